//! `crmdash contacts list|create|import|dupes`: the list filters, and create with its duplicate
//! check (`dupes` itself is `cli::dupes`).

use clap::{Args, Subcommand};
use serde_json::{Map, Value};

use crate::api::{
    Client, ContactInclude, ContactQuery, ContactSort, IdempotencyKey, NewContact, Paging,
    SortDirection,
};
use crate::cli::context::Ctx;
use crate::cli::exit::CliError;
use crate::cli::format;
use crate::cli::import::ImportArgs;
use crate::cli::list::PageArgs;
use crate::cli::times;
use crate::idempotency_journal::{self, Journal, KeyState};
use crate::journal::{self, Answer, WriteKind};
use crate::output::Format;
use crate::validate::{self, ContactField, ContactInput, KNOWN_FIELDS};

#[derive(Debug, Clone, Subcommand)]
pub enum ContactsCommand {
    /// List contacts (GET /public/v1/contacts).
    List(ContactListArgs),
    /// Create one contact, after checking that its email is not taken.
    Create(CreateArgs),
    /// Create contacts from a CSV file; re-running never duplicates.
    Import(ImportArgs),
    /// Near duplicates in the local mirror: the same person entered twice, written
    /// differently (no network).
    Dupes(crate::cli::dupes::DupesArgs),
}

/// `crmdash contacts list`.
#[derive(Debug, Clone, Args)]
#[command(after_help = list_help())]
pub struct ContactListArgs {
    /// Filter by email address: a whole address (the service matches it exactly); `crmdash
    /// search` finds part of one in the local mirror.
    #[arg(long, value_name = "E")]
    pub email: Option<String>,
    /// Filter by full name.
    #[arg(long, value_name = "N")]
    pub full_name: Option<String>,
    /// Only contacts created after this time (see Times below).
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub created_after: Option<String>,
    /// Only contacts updated after this time (see Times below).
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub updated_after: Option<String>,
    /// Sort key.
    #[arg(long, value_enum, value_name = "KEY")]
    pub sort_by: Option<ContactSort>,
    /// Sort direction.
    #[arg(long, value_enum, value_name = "DIR")]
    pub sort_direction: Option<SortDirection>,
    /// Related records to include, comma separated.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "REL,...")]
    pub include: Vec<ContactInclude>,
    #[command(flatten)]
    pub paging: PageArgs,
}

fn list_help() -> String {
    format!(
        "Examples:\n  \
         crmdash contacts list --email ada@example.com\n  \
         crmdash contacts list --created-after -7d --sort-by created_at --sort-direction desc\n  \
         crmdash contacts list --include accounts,assigned_user --all --format csv > contacts.csv\n\n{}",
        times::help()
    )
}

impl ContactListArgs {
    /// These options with `--view`'s filled in where left out.
    pub fn with_view(&self) -> Result<Self, CliError> {
        use crate::cli::view;
        let Some(name) = &self.paging.view else {
            return Ok(self.clone());
        };
        let q = view::load(name, crate::resource::Resource::Contacts)?;
        let (sort_by, sort_direction) = view::sort(self.sort_by, self.sort_direction, &q);
        Ok(ContactListArgs {
            email: view::filter(&self.email, &q, "email"),
            full_name: view::filter(&self.full_name, &q, "full_name"),
            created_after: view::filter(&self.created_after, &q, "created_after"),
            updated_after: view::filter(&self.updated_after, &q, "updated_after"),
            sort_by,
            sort_direction,
            include: view::includes(&self.include, &q),
            paging: view::paging(&self.paging, &q),
        })
    }

    /// The query, times and email checked (exit 5 before anything is sent).
    pub fn query(&self) -> Result<ContactQuery, CliError> {
        if let Some(e) = &self.email {
            validate::check_email(e).map_err(|m| CliError::field("email", partial_email(e, &m)))?;
        }
        let zone = times::local_zone();
        Ok(ContactQuery {
            email: self.email.clone(),
            full_name: self.full_name.clone(),
            created_after: times::opt_instant("created_after", &self.created_after, &zone)?,
            updated_after: times::opt_instant("updated_after", &self.updated_after, &zone)?,
            sort_by: self.sort_by,
            sort_direction: self.sort_direction,
            include: self.include.clone(),
            paging: Paging::default(),
        })
    }
}

/// The refusal of an `--email` that is not a whole address: what is wrong, that the filter
/// matches whole addresses only, and where parts are found.
fn partial_email(typed: &str, problem: &str) -> String {
    let t = typed.trim();
    let safe = !t.is_empty()
        && t.chars()
            .all(|c| c.is_alphanumeric() || "@._-+".contains(c));
    // The typed text is echoed back only when it is short enough to read.
    let arg = if t.chars().count() > 60 {
        "TEXT".to_string()
    } else if safe {
        t.to_string()
    } else {
        format!("'{}'", t.replace('\'', "'\\''"))
    };
    format!(
        "--email: {problem}. --email matches whole addresses; `crmdash search {arg}` (or Ctrl-F \
         in the dashboard) finds parts of one in the local mirror"
    )
}

/// `crmdash contacts create`.
#[derive(Debug, Clone, Args)]
#[command(after_help = CREATE_EXAMPLES)]
pub struct CreateArgs {
    /// Given name (sent as `first_name`).
    #[arg(long, value_name = "F")]
    pub first_name: Option<String>,
    /// Family name (sent as `last_name`).
    #[arg(long, value_name = "L")]
    pub last_name: Option<String>,
    /// Checked for syntax, and looked up first: an existing contact with it stops the create.
    #[arg(long, value_name = "E")]
    pub email: Option<String>,
    /// With an international prefix (`+` or `00`).
    #[arg(long, value_name = "P")]
    pub phone: Option<String>,
    /// A further body key; VALUE is parsed as JSON when it parses, else sent as a string.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = validate::parse_pair)]
    pub set: Vec<(String, Value)>,
    /// Idempotency-Key of this contact [default: a fresh UUID]. Running the command again with
    /// the same key replays the first create (same id, exit 0) instead of refusing it.
    #[arg(long, value_name = "K")]
    pub idempotency_key: Option<String>,
    /// Create even when a contact with this email exists (checked only for a key never sent).
    #[arg(long)]
    pub allow_duplicate: bool,
    /// Confirm a write to a protected profile (needs --profile NAME on the command line too).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Output format [default: table on a terminal, json otherwise].
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,
}

const CREATE_EXAMPLES: &str = "\
Examples:
  crmdash contacts create --first-name Ada --last-name Lovelace --email ada@example.com --phone '+44 20 7946 0000'
  crmdash contacts create --email grace@example.com --set tags='[\"vip\"]' --set source=migration
  crmdash contacts create --email a@example.com --idempotency-key crm-42 --format json";

/// `crmdash contacts create`.
pub async fn create(ctx: &Ctx, args: &CreateArgs) -> Result<(), CliError> {
    ctx.check_write(args.yes)?;
    let extra: Map<String, Value> = args.set.iter().cloned().collect();
    let contact = checked_contact(
        ContactInput {
            first_name: args.first_name.clone().unwrap_or_default(),
            last_name: args.last_name.clone().unwrap_or_default(),
            email: args.email.clone().unwrap_or_default(),
            phone: args.phone.clone().unwrap_or_default(),
            ..ContactInput::default()
        },
        extra,
    )
    .map_err(one_message)?;
    let key = match &args.idempotency_key {
        Some(k) => IdempotencyKey::from_stable(k)
            .map_err(|m| CliError::field("idempotency_key", format!("--idempotency-key: {m}")))?,
        None => IdempotencyKey::random(),
    };
    let client = ctx.client().await?;
    // A `--demo` run's journal lives (and goes) with its folder.
    let journal = if ctx.demo() {
        crate::mirror::paths::demo_root()
            .ok()
            .map(|d| Journal::at(d.join(idempotency_journal::FILE_NAME)))
    } else {
        Journal::in_data_dir()
    };
    let scope = idempotency_journal::scope_of(client.base_url());
    // A key crmdash already sent is a retry: it must replay, never be refused as a duplicate
    // of the contact its first attempt made.
    let known = match (&journal, &args.idempotency_key) {
        (Some(j), Some(_)) => j.lookup(&scope, &key).unwrap_or_else(|e| {
            warn_journal(j, &e);
            None
        }),
        _ => None,
    };
    if known.is_none()
        && !args.allow_duplicate
        && let Some(email) = &contact.email
        && let Some(id) = find_by_email(client, email).await?
    {
        return Err(CliError::Duplicate(format!(
            "a contact with email {email} already exists: id {id} (--allow-duplicate creates another)"
        )));
    }
    // The gate (flags of the service, the intent in the write journal) before anything else
    // records this write, so a first write in a fresh data dir is journaled once.
    let body = serde_json::to_value(&contact).unwrap_or_default();
    let mut intent = ctx.intent(WriteKind::Create, body.clone()).await?;
    intent.key = Some(key.to_string());
    let ticket = ctx.admit(args.yes, &intent).await?;
    if let Some(j) = &journal
        && let Err(e) = j.sent(&scope, &key)
    {
        warn_journal(j, &e);
    }
    let sent = client.create_contact(&ticket, &contact, &key).await;
    // Every admitted write is answered in the journal (a request that surely did not leave as
    // failed), so only a process that ended in between leaves it in doubt.
    let answer = match &sent {
        Ok(c) => Answer {
            replayed: c.replayed,
            ..Answer::accepted(c.status)
        },
        Err(e) => Answer::failed(e),
    };
    let mut entry = ctx
        .write_record(WriteKind::Create, body, answer)
        .await?
        .answering(ticket.id());
    entry.key = Some(key.to_string());
    entry.target = sent
        .as_ref()
        .ok()
        .and_then(|c| c.record.as_ref())
        .map(|c| c.id.clone());
    journal::record_or_warn(ctx.journal_path().as_deref(), &entry);
    let created = sent.map_err(|mut e| {
            if e.outcome_unknown {
                e.message = format!(
                    "{}; it may have been created: re-run with --idempotency-key {key} to finish it without a duplicate",
                    e.message
                );
            }
            e
        })?;
    if let Some(j) = &journal
        && let Err(e) = j.created(&scope, &key, created.record.as_ref().map(|c| c.id.as_str()))
    {
        warn_journal(j, &e);
    }
    if let Some(record) = &created.record
        && let Some(sink) = crate::cli::cache::CreatedSink::open(ctx).await
    {
        sink.remember(vec![record.clone()]).await;
    }
    if created.replayed {
        crmdash_domain::say!(
            "note: replayed: an earlier request with Idempotency-Key {key} created this contact"
        );
    } else if let Some(k) = &known
        && k.state == KeyState::Created
    {
        crmdash_domain::say!(
            "note: Idempotency-Key {key} was used before (crmdash's journal); the service answered without saying it replayed"
        );
    }
    let fmt = format::resolve(args.format, ctx.tty);
    match &created.record {
        Some(record) => format::print_one(record, fmt)?,
        None => crmdash_domain::say!(
            "created (HTTP {}); the service returned no record",
            created.status
        ),
    }
    Ok(())
}

/// Validates the four known fields (exit 5 listing every field error) and adds the extra keys.
pub fn checked_contact(
    input: ContactInput,
    extra: Map<String, Value>,
) -> Result<NewContact, CliError> {
    let mut contact = validate::validate_contact(&input).map_err(|errors| {
        let fields: Vec<(String, String)> = errors
            .iter()
            .map(|(f, m)| {
                (
                    f.server_key().unwrap_or("contact").to_string(),
                    m.to_string(),
                )
            })
            .collect();
        let nothing = errors.len() == 1 && errors.get(ContactField::Form).is_some();
        let message = if nothing {
            "nothing to create: give a first or last name, or an email".to_string()
        } else {
            "the contact is not valid".to_string()
        };
        CliError::Invalid { message, fields }
    })?;
    for (key, value) in extra {
        if let Some(k) = KNOWN_FIELDS.iter().find(|k| k.eq_ignore_ascii_case(&key)) {
            return Err(CliError::field(
                "set",
                format!("{k} has its own option (--{})", k.replace('_', "-")),
            ));
        }
        contact.extra.insert(key, value);
    }
    Ok(contact)
}

/// The command line's wording of a refused contact: the option that is wrong, in one line
/// when only one is.
fn one_message(e: CliError) -> CliError {
    let CliError::Invalid { message, fields } = e else {
        return e;
    };
    match fields.as_slice() {
        [(field, _)] if field == "contact" => {
            CliError::invalid("nothing to create: give --first-name, --last-name or --email")
        }
        [(field, m)] => CliError::field(field, format!("--{}: {m}", field.replace('_', "-"))),
        _ => CliError::Invalid { message, fields },
    }
}

fn warn_journal(j: &Journal, e: &std::io::Error) {
    crmdash_domain::say!(
        "warning: the idempotency journal {} cannot be used: {e}",
        j.path().display()
    );
}

/// The id of a contact with exactly this email, if the service has one.
pub async fn find_by_email(client: &Client, email: &str) -> Result<Option<String>, CliError> {
    let query = ContactQuery {
        email: Some(email.to_string()),
        ..ContactQuery::default()
    };
    let page = client.list_contacts(&query).await?;
    // The filter may match partially: only an exact (case-insensitive) match is a duplicate.
    Ok(page
        .data
        .iter()
        .find(|c| {
            c.email
                .as_deref()
                .is_some_and(|e| e.trim().eq_ignore_ascii_case(email.trim()))
        })
        .map(|c| c.id.clone()))
}
