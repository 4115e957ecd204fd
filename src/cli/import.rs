//! `crmdash contacts import FILE.csv`: the seed's migration case. Every row is validated before
//! anything is sent; each row's Idempotency-Key is stable (from `--key-column` or a hash of the
//! row), so re-running an interrupted import never creates a contact twice.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{Map, Value};

use crate::api::{ErrorKind, IdempotencyKey, NewContact};
use crate::cli::contacts::{checked_contact, find_by_email};
use crate::cli::context::Ctx;
use crate::cli::exit::CliError;
use crate::validate::ContactInput;

/// `crmdash contacts import`.
#[derive(Debug, Clone, Args)]
#[command(after_help = IMPORT_EXAMPLES)]
pub struct ImportArgs {
    /// CSV with a header row. first_name, last_name, email and phone map onto the contact;
    /// other columns are sent as further keys (unless --only-known).
    #[arg(value_name = "FILE.csv")]
    pub file: PathBuf,
    /// Column holding an external id: each row's Idempotency-Key derives from it
    /// [default: a hash of the row's content].
    #[arg(long, value_name = "COL")]
    pub key_column: Option<String>,
    /// Ignore columns other than first_name, last_name, email, phone.
    #[arg(long)]
    pub only_known: bool,
    /// Validate every row and show what would be sent; send nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Create rows whose email already exists (by default they are skipped).
    #[arg(long)]
    pub allow_duplicate: bool,
}

const IMPORT_EXAMPLES: &str = "\
Examples:
  crmdash contacts import people.csv --dry-run
  crmdash contacts import people.csv --key-column external_id
  crmdash contacts import people.csv --only-known --allow-duplicate

The file (RFC 4180, UTF-8, header row):
  external_id,first_name,last_name,email,phone,source
  17,Ada,Lovelace,ada@example.com,+44 20 7946 0000,fair-2026";

const KNOWN: [&str; 4] = ["first_name", "last_name", "email", "phone"];

/// One row ready to send.
#[derive(Debug, Clone)]
pub struct ImportRow {
    /// Line in the file (the header is line 1).
    pub line: u64,
    pub contact: NewContact,
    pub key: IdempotencyKey,
}

/// What happened to the rows.
#[derive(Debug, Default)]
pub struct Summary {
    pub created: usize,
    pub replayed: usize,
    pub duplicates: usize,
    pub failed: Vec<(u64, String)>,
}

/// `crmdash contacts import`.
pub async fn run(ctx: &Ctx, args: &ImportArgs) -> Result<(), CliError> {
    let rows = read_rows(&args.file, args.key_column.as_deref(), args.only_known)?;
    if args.dry_run {
        for r in &rows {
            let body = serde_json::to_string(&r.contact.to_body()).unwrap_or_default();
            println!("line {}: {body} (Idempotency-Key {})", r.line, r.key);
        }
        println!("{} rows valid; nothing sent (--dry-run)", rows.len());
        return Ok(());
    }
    let bar = progress_bar(rows.len() as u64);
    let mut summary = Summary::default();
    let mut fatal = None;
    for row in &rows {
        bar.set_message(format!("line {}", row.line));
        match import_row(ctx, row, args.allow_duplicate).await {
            Ok(Outcome::Created) => summary.created += 1,
            Ok(Outcome::Replayed) => summary.replayed += 1,
            Ok(Outcome::Duplicate(id)) => {
                summary.duplicates += 1;
                bar.suspend(|| {
                    eprintln!("line {}: skipped, email exists as contact {id}", row.line)
                });
            }
            Err(CliError::Api(e))
                if matches!(e.kind, ErrorKind::Unauthorized | ErrorKind::Forbidden) =>
            {
                fatal = Some(CliError::Api(e));
                break;
            }
            Err(e) => summary.failed.push((row.line, e.to_string())),
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    print_summary(&summary, rows.len());
    if let Some(e) = fatal {
        return Err(e);
    }
    if !summary.failed.is_empty() {
        return Err(CliError::invalid(format!(
            "{} of {} rows failed (re-run the same command to retry them: rows already created are not duplicated)",
            summary.failed.len(),
            rows.len()
        )));
    }
    Ok(())
}

enum Outcome {
    Created,
    Replayed,
    Duplicate(String),
}

async fn import_row(
    ctx: &Ctx,
    row: &ImportRow,
    allow_duplicate: bool,
) -> Result<Outcome, CliError> {
    if !allow_duplicate
        && let Some(email) = &row.contact.email
        && let Some(id) = find_by_email(ctx.client().await?, email).await?
    {
        return Ok(Outcome::Duplicate(id));
    }
    let created = ctx
        .client()
        .await?
        .create_contact(&row.contact, &row.key)
        .await?;
    Ok(if created.replayed {
        Outcome::Replayed
    } else {
        Outcome::Created
    })
}

fn print_summary(s: &Summary, total: usize) {
    println!("rows: {total}");
    println!("created: {}", s.created);
    println!("replayed: {}", s.replayed);
    println!("duplicates skipped: {}", s.duplicates);
    println!("failed: {}", s.failed.len());
    for (line, reason) in &s.failed {
        println!("  line {line}: {reason}");
    }
}

fn progress_bar(len: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
        bar.set_style(style);
    }
    bar
}

/// Reads and validates every row. Any bad row fails the whole file (exit 5) with one line per
/// problem, so nothing is sent until the file is clean.
pub fn read_rows(
    path: &Path,
    key_column: Option<&str>,
    only_known: bool,
) -> Result<Vec<ImportRow>, CliError> {
    let bytes = std::fs::read(path)
        .map_err(|e| CliError::other(format!("cannot read {}: {e}", path.display())))?;
    // The csv crate's line numbers drift with CRLF endings (a record may be placed on the `\n`
    // ending the previous one): count the newlines before the record's first byte instead.
    let line_at = |pos: Option<&csv::Position>| {
        pos.map(|p| {
            let mut start = (p.byte() as usize).min(bytes.len());
            while start < bytes.len() && matches!(bytes[start], b'\r' | b'\n') {
                start += 1;
            }
            1 + bytes[..start].iter().filter(|b| **b == b'\n').count() as u64
        })
        .unwrap_or(0)
    };
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(bytes.as_slice());
    let headers: Vec<String> = reader
        .headers()
        .map_err(|e| CliError::invalid(format!("{}: {e}", path.display())))?
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').trim().to_string())
        .collect();
    let column = |name: &str| headers.iter().position(|h| h.eq_ignore_ascii_case(name));
    if KNOWN.iter().all(|k| column(k).is_none()) {
        return Err(CliError::invalid(format!(
            "{}: the header row names none of {}",
            path.display(),
            KNOWN.join(", ")
        )));
    }
    let key_index = match key_column {
        Some(k) => Some(column(k).ok_or_else(|| {
            CliError::field(
                "key_column",
                format!(
                    "{}: there is no column '{k}' (columns: {})",
                    path.display(),
                    headers.join(", ")
                ),
            )
        })?),
        None => None,
    };

    let mut rows = Vec::new();
    let mut problems: Vec<(String, String)> = Vec::new();
    let mut seen_keys: HashMap<String, (u64, String)> = HashMap::new();
    for result in reader.records() {
        let record = match result {
            Ok(r) => r,
            Err(e) => {
                let line = line_at(e.position());
                problems.push((format!("line {line}"), format!("not valid CSV: {e}")));
                continue;
            }
        };
        let line = line_at(record.position());
        if record.iter().all(str::is_empty) {
            continue;
        }
        if record.len() != headers.len() {
            problems.push((
                format!("line {line}"),
                format!("{} fields, the header has {}", record.len(), headers.len()),
            ));
            continue;
        }
        let cell = |name: &str| {
            column(name)
                .map(|i| record[i].to_string())
                .unwrap_or_default()
        };
        let input = ContactInput {
            first_name: cell("first_name"),
            last_name: cell("last_name"),
            email: cell("email"),
            phone: cell("phone"),
            ..ContactInput::default()
        };
        let mut extra = Map::new();
        if !only_known {
            for (i, h) in headers.iter().enumerate() {
                let known = KNOWN.iter().any(|k| h.eq_ignore_ascii_case(k));
                if !known && !h.is_empty() && !record[i].is_empty() {
                    extra.insert(h.clone(), Value::String(record[i].to_string()));
                }
            }
        }
        let contact = match checked_contact(input, extra) {
            Ok(c) => c,
            Err(e) => {
                for (field, msg) in e.field_errors() {
                    problems.push((format!("line {line}"), format!("{field}: {msg}")));
                }
                continue;
            }
        };
        let body = serde_json::to_string(&contact.to_body()).unwrap_or_default();
        let key = match key_index {
            Some(i) => {
                let external = record[i].to_string();
                if external.is_empty() {
                    problems.push((
                        format!("line {line}"),
                        "the key column is empty".to_string(),
                    ));
                    continue;
                }
                if let Some((first, first_body)) = seen_keys.get(&external)
                    && *first_body != body
                {
                    problems.push((
                        format!("line {line}"),
                        format!("key '{external}' is also on line {first} with other values"),
                    ));
                    continue;
                }
                seen_keys.entry(external.clone()).or_insert((line, body));
                IdempotencyKey::derived(&["crmdash-import-key", &external])
            }
            None => IdempotencyKey::derived(&["crmdash-import-row", &body]),
        };
        rows.push(ImportRow { line, contact, key });
    }
    if !problems.is_empty() {
        let bad_lines = {
            let mut l: Vec<&String> = problems.iter().map(|(l, _)| l).collect();
            l.dedup();
            l.len()
        };
        return Err(CliError::Invalid {
            message: format!("{}: {bad_lines} bad rows; nothing was sent", path.display()),
            fields: problems,
        });
    }
    if rows.is_empty() {
        return Err(CliError::invalid(format!(
            "{}: no rows to import",
            path.display()
        )));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file(text: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f
    }

    #[test]
    fn rows_map_known_columns_and_keep_the_others() {
        let f = file("id,first_name,email,source\n7,Ada,ada@example.com,fair\n");
        let rows = read_rows(f.path(), Some("id"), false).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].line, 2);
        let body = rows[0].contact.to_body();
        assert_eq!(body["first_name"], "Ada");
        assert_eq!(body["source"], "fair");
        assert_eq!(body["id"], "7");
        let known = read_rows(f.path(), Some("id"), true).unwrap();
        assert!(!known[0].contact.to_body().contains_key("source"));
    }

    #[test]
    fn keys_are_stable_across_runs_and_follow_the_key_column() {
        let f = file("id,first_name,email\n7,Ada,ada@example.com\n8,Bob,bob@example.com\n");
        let a = read_rows(f.path(), None, false).unwrap();
        let b = read_rows(f.path(), None, false).unwrap();
        assert_eq!(a[0].key, b[0].key);
        assert_ne!(a[0].key, a[1].key);
        let g = file("id,first_name,email\n7,Ada,ada@other.example\n");
        let by_id_1 = read_rows(f.path(), Some("id"), false).unwrap();
        let by_id_2 = read_rows(g.path(), Some("id"), false).unwrap();
        assert_eq!(by_id_1[0].key, by_id_2[0].key);
    }

    #[test]
    fn every_bad_row_is_reported_with_its_line() {
        let f = file(
            "first_name,email,phone\nAda,not-an-email,\n,,\nBob,bob@example.com,12345\nCy,cy@example.com,+1 555 0100\n",
        );
        let err = read_rows(f.path(), None, false).unwrap_err();
        let lines: Vec<String> = err.field_errors().into_iter().map(|(l, _)| l).collect();
        assert!(lines.contains(&"line 2".to_string()), "{lines:?}");
        assert!(lines.contains(&"line 4".to_string()), "{lines:?}");
        assert!(!lines.contains(&"line 5".to_string()), "{lines:?}");
        assert_eq!(err.exit() as u8, 5);
    }

    #[test]
    fn line_numbers_hold_with_crlf_endings_and_a_bom() {
        let f = file("\u{feff}First_Name,EMAIL\r\nAda,ada@example.com\r\nBo,bo@\r\n");
        let err = read_rows(f.path(), None, false).unwrap_err();
        let lines: Vec<String> = err.field_errors().into_iter().map(|(l, _)| l).collect();
        assert_eq!(lines, vec!["line 3".to_string()]);
        let g = file("first_name,email\r\nAda,ada@example.com\r\n");
        assert_eq!(read_rows(g.path(), None, false).unwrap()[0].line, 2);
    }

    #[test]
    fn a_missing_key_column_is_refused() {
        let f = file("first_name,email\nAda,ada@example.com\n");
        let err = read_rows(f.path(), Some("external_id"), false).unwrap_err();
        assert!(err.to_string().contains("no column 'external_id'"), "{err}");
    }
}
