//! Starts the embedded sandbox on a free loopback port and opens the dashboard against it:
//! what `crmdash --demo` does, for trying the dashboard and for the pty end-to-end test.
//! `CRMDASH_DEMO_LATENCY_MS=500` simulates a slow link; `CRMDASH_DEMO_STATE=path` remembers
//! tabs and sorts between runs.

use std::time::Duration;

use crmdash::api::Client;
use crmdash::config::Settings;
use crmdash::runtime::{DashboardOptions, run_dashboard};
use crmdash::sandbox::{Sandbox, SandboxConfig};
use secrecy::SecretString;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let latency = std::env::var("CRMDASH_DEMO_LATENCY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis);
    let sandbox = Sandbox::start(SandboxConfig {
        latency,
        ..SandboxConfig::default()
    })
    .await?;
    let base_url = sandbox.base_url();
    let client = Client::new(&base_url, SecretString::from(sandbox.token()))?;
    let result = run_dashboard(DashboardOptions {
        profile: "sandbox".into(),
        base_url,
        client: Some(client),
        settings: Settings::default(),
        state_file: std::env::var_os("CRMDASH_DEMO_STATE").map(Into::into),
        log_path: None,
        demo: true,
    })
    .await;
    sandbox.shutdown().await;
    result
}
