//! How a sandbox is configured: `SandboxConfig` for code, `SandboxArgs` for the command line.

use std::time::Duration;

use super::DEFAULT_TOKEN;
use super::error::SandboxError;
use super::faults::FaultRule;
use super::seed::DEFAULT_SEED;

/// Settings of one sandbox. The tokens are local test tokens, never real credentials.
#[derive(Clone)]
pub struct SandboxConfig {
    /// 0 picks a free port.
    pub port: u16,
    pub token: String,
    /// A second token that may read but gets 403 on POST.
    pub read_only_token: Option<String>,
    /// The generator's seed; `DEFAULT_SEED` with at most 1,000 contacts loads the committed data.
    pub seed: u64,
    pub contacts: usize,
    /// Refuse a create whose e-mail an existing contact has (422 `email`).
    pub unique_emails: bool,
    /// Added before every API request.
    pub latency: Option<Duration>,
    /// Fault rules active from the start.
    pub faults: Vec<FaultRule>,
    /// At most this many API requests a second; beyond it 429 with `Retry-After`.
    pub rate_limit: Option<u32>,
    /// Changes a second made by the change generator (updates and deletions); 0 = none.
    pub churn: u32,
    /// Append labelled near duplicates (one per 20 contacts) after the seeded contacts.
    pub near_duplicates: bool,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            port: 0,
            token: DEFAULT_TOKEN.to_string(),
            read_only_token: None,
            seed: DEFAULT_SEED,
            contacts: 1000,
            unique_emails: false,
            latency: None,
            faults: Vec::new(),
            rate_limit: None,
            churn: 0,
            near_duplicates: false,
        }
    }
}

impl std::fmt::Debug for SandboxConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SandboxConfig")
            .field("port", &self.port)
            .field("token", &"<redacted>")
            .field(
                "read_only_token",
                &self.read_only_token.as_ref().map(|_| "<redacted>"),
            )
            .field("seed", &self.seed)
            .field("contacts", &self.contacts)
            .field("unique_emails", &self.unique_emails)
            .field("latency", &self.latency)
            .field("faults", &self.faults)
            .field("rate_limit", &self.rate_limit)
            .field("churn", &self.churn)
            .field("near_duplicates", &self.near_duplicates)
            .finish()
    }
}

/// Checks a token the sandbox will accept: it must fit in a header.
pub fn check_token(t: &str) -> Result<(), SandboxError> {
    if t.is_empty() || t.len() > 200 || !t.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        return Err(SandboxError::Token);
    }
    Ok(())
}

fn parse_fault(s: &str) -> Result<FaultRule, String> {
    let rule: FaultRule = serde_json::from_str(s).map_err(|e| format!("not a fault rule: {e}"))?;
    rule.check()?;
    Ok(rule)
}

/// `crmdash sandbox`: run the local fake service in the foreground.
#[derive(Clone, clap::Args)]
#[command(
    after_help = "Examples:\n  crmdash sandbox\n  crmdash sandbox --port 8080 --contacts 100000\n  crmdash sandbox --churn 20\n  crmdash sandbox --near-duplicates\n  crmdash sandbox --read-only-token viewer-token --latency-ms 200\n  crmdash sandbox --latency-ms 100 --rate-limit 20\n  crmdash sandbox --fault '{\"kind\":\"rate_limited\",\"path\":\"/deals\",\"times\":3}'\n  crmdash sandbox --openapi > openapi.json\n\nThe control endpoint http://127.0.0.1:PORT/_sandbox sets faults and shows recorded requests while it runs; http://127.0.0.1:PORT/openapi.json describes the API (OpenAPI 3.1)."
)]
pub struct SandboxArgs {
    /// Port on 127.0.0.1 (0 picks a free one)
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// The bearer token clients must send (a local test token, not a secret)
    #[arg(long, default_value = DEFAULT_TOKEN)]
    pub token: String,
    /// A token that may list but not create or reschedule (403)
    #[arg(long)]
    pub read_only_token: Option<String>,
    /// Seed of the data generator (the default seed serves the committed data set)
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Number of contacts (above 1,000 they are generated at start)
    #[arg(long, default_value_t = 1000)]
    pub contacts: usize,
    /// Refuse to create a contact whose e-mail address is taken (422)
    #[arg(long)]
    pub unique_emails: bool,
    /// Delay added to every API request, in milliseconds
    #[arg(long)]
    pub latency_ms: Option<u64>,
    /// A fault rule as JSON, active from the start (repeatable)
    #[arg(long = "fault", value_name = "JSON", value_parser = parse_fault)]
    pub faults: Vec<FaultRule>,
    /// Print the API's OpenAPI 3.1 document (also served at /openapi.json) and exit
    #[arg(long)]
    pub openapi: bool,
    /// At most N API requests a second; beyond it 429 with Retry-After
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub rate_limit: Option<u32>,
    /// Change N records a second (updates and deletions of contacts, deals and projects)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub churn: u32,
    /// Add one near duplicate per 20 contacts (typos, swapped names, phone formats, email
    /// case, Gmail dots) and look-alikes who are other people, for `crmdash contacts dupes`
    #[arg(long)]
    pub near_duplicates: bool,
}

impl std::fmt::Debug for SandboxArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.to_config(), f)
    }
}

impl SandboxArgs {
    pub fn to_config(&self) -> SandboxConfig {
        SandboxConfig {
            port: self.port,
            token: self.token.clone(),
            read_only_token: self.read_only_token.clone(),
            seed: self.seed,
            contacts: self.contacts,
            unique_emails: self.unique_emails,
            latency: self.latency_ms.map(Duration::from_millis),
            faults: self.faults.clone(),
            rate_limit: self.rate_limit,
            churn: self.churn,
            near_duplicates: self.near_duplicates,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::FaultKind;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: SandboxArgs,
    }

    #[test]
    fn flags_become_a_config_and_debug_hides_tokens() {
        let cli = Cli::try_parse_from([
            "crmdash",
            "--port",
            "8080",
            "--contacts",
            "100000",
            "--read-only-token",
            "viewer",
            "--unique-emails",
            "--latency-ms",
            "20",
            "--rate-limit",
            "20",
            "--fault",
            r#"{"kind":"rate_limited","path":"/deals","times":3}"#,
        ])
        .unwrap();
        let cfg = cli.args.to_config();
        assert_eq!(
            (cfg.port, cfg.contacts, cfg.unique_emails),
            (8080, 100_000, true)
        );
        assert_eq!(cfg.token, DEFAULT_TOKEN);
        assert_eq!(cfg.latency, Some(Duration::from_millis(20)));
        assert_eq!(cfg.rate_limit, Some(20));
        assert!(Cli::try_parse_from(["crmdash", "--rate-limit", "0"]).is_err());
        assert_eq!(
            cfg.faults[0].kind,
            FaultKind::RateLimited {
                retry_after_secs: 1
            }
        );
        assert_eq!(cfg.faults[0].times, 3);
        let shown = format!("{:?}", cli.args);
        assert!(!shown.contains("viewer") && !shown.contains(DEFAULT_TOKEN));
        let bad = Cli::try_parse_from([
            "crmdash",
            "--fault",
            r#"{"kind":"server_error","status":200}"#,
        ]);
        assert!(bad.is_err());
        assert!(check_token("has space").is_err());
    }
}
