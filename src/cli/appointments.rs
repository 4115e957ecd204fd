//! `crmdash appointments reschedule ID|LINK`: the body is built by the shared builder from the
//! configured keys (`[reschedule]`), shown and confirmed on a terminal, and logged once sent.

use std::io::{BufRead, Write};

use clap::{Args, Subcommand};
use serde_json::{Map, Value};

use crate::cli::context::Ctx;
use crate::cli::exit::CliError;
use crate::cli::format::{self, OutputFormat};
use crate::cli::times;
use crate::reschedule;

#[derive(Debug, Clone, Subcommand)]
pub enum AppointmentsCommand {
    /// Move an appointment (POST /public/v1/appointments/{id}/reschedule).
    Reschedule(RescheduleArgs),
}

/// `crmdash appointments reschedule`.
#[derive(Debug, Clone, Args)]
#[command(after_help = reschedule_help())]
pub struct RescheduleArgs {
    /// The appointment's id, or a link that contains it.
    #[arg(value_name = "ID|LINK")]
    pub id: String,
    /// New start, sent under `[reschedule] start_field` (default `start_time`).
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub start: Option<String>,
    /// New end, sent under `[reschedule] end_field` (default `end_time`; "" in the config sends none).
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub end: Option<String>,
    /// A further body key; VALUE is parsed as JSON when it parses, else sent as a string.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = crate::validate::parse_pair)]
    pub set: Vec<(String, Value)>,
    /// A JSON object merged into the body last (its keys win).
    #[arg(long, value_name = "JSON")]
    pub body: Option<String>,
    /// Send without asking (needed when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Output format [default: table on a terminal, json otherwise].
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<OutputFormat>,
}

fn reschedule_help() -> String {
    format!(
        "Examples:\n  \
         crmdash appointments reschedule 8412 --start 'tomorrow 09:30' --end 'tomorrow 10:00'\n  \
         crmdash appointments reschedule https://crm.example.com/appointments/8412 --start +2h --yes\n  \
         crmdash appointments reschedule 8412 --start 2026-12-01T09:00:00Z --set reason='\"customer asked\"' --yes\n  \
         crmdash appointments reschedule 8412 --body '{{\"starts_at\": \"2026-12-01T09:00:00Z\"}}' --yes\n\n\
         The keys that carry the times are set in the config file (the seed does not name them):\n  \
         [reschedule]\n  start_field = \"start_time\"\n  end_field = \"end_time\"\n  timezone = \"local\"\n\n\
         Times without an offset are in [reschedule] timezone.\n{}",
        times::help()
    )
}

/// `crmdash appointments reschedule`.
pub async fn reschedule(ctx: &Ctx, args: &RescheduleArgs) -> Result<(), CliError> {
    let id = reschedule::extract_appointment_id(&args.id).ok_or_else(|| {
        CliError::field(
            "id",
            format!(
                "'{}' is neither an appointment id nor a link containing one",
                args.id
            ),
        )
    })?;
    let zone = times::zone_named(&ctx.settings.reschedule.timezone)?;
    let start = times::opt_instant("start", &args.start, &zone)?;
    let end = times::opt_instant("end", &args.end, &zone)?;
    if let (Some(s), Some(e)) = (start, end)
        && e <= s
    {
        return Err(CliError::field("end", "--end must be after --start"));
    }
    let merge = match &args.body {
        Some(text) => parse_body(text)?,
        None => Map::new(),
    };
    let extra: Map<String, Value> = args.set.iter().cloned().collect();
    let body = reschedule::build_body(
        &ctx.settings.reschedule,
        &reschedule::RescheduleTimes { start, end },
        &extra,
        &merge,
    );
    if body.is_empty() {
        return Err(CliError::invalid(
            "nothing to send: give --start, --end, --set or --body",
        ));
    }
    // Resolve the token before asking, so a confirmed change is not then refused for setup.
    let client = ctx.client().await?;
    if !args.yes {
        confirm(ctx, &id, &body)?;
    }
    let result = client.reschedule_appointment(&id, &body).await;
    if let Err(e) = reschedule::append_log(&id, &body, &result) {
        eprintln!("warning: could not write the reschedule log: {e}");
    }
    let appointment = result?;
    format::print_one(&appointment, format::resolve(args.format, ctx.tty))
}

/// `--body`: a JSON object, or exit 5.
fn parse_body(text: &str) -> Result<Map<String, Value>, CliError> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(CliError::field(
            "body",
            "--body must be a JSON object ({...})",
        )),
        Err(e) => Err(CliError::field(
            "body",
            format!("--body is not valid JSON: {e}"),
        )),
    }
}

/// Shows the body and asks on a terminal; without one, `--yes` is required.
fn confirm(ctx: &Ctx, id: &str, body: &Map<String, Value>) -> Result<(), CliError> {
    let pretty = serde_json::to_string_pretty(body).unwrap_or_default();
    if !(ctx.tty.stdin && ctx.tty.stderr) {
        return Err(CliError::Usage(format!(
            "not a terminal: pass --yes to send this body to appointment {id}: {}",
            serde_json::to_string(body).unwrap_or_default()
        )));
    }
    let mut err = std::io::stderr().lock();
    let fields = &ctx.settings.reschedule;
    let _ = writeln!(err, "Reschedule appointment {id} with this body:\n{pretty}");
    if fields.fields_are_defaults {
        let _ = writeln!(
            err,
            "(the keys {} / {} are crmdash's defaults: set [reschedule] start_field and end_field \
             in the config file to your service's names)",
            fields.start_field, fields.end_field
        );
    }
    let _ = write!(err, "Send? [y/N] ");
    let _ = err.flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| CliError::other(format!("cannot read the answer: {e}")))?;
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        Ok(())
    } else {
        Err(CliError::other("cancelled: nothing was sent"))
    }
}
