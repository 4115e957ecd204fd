//! The new-contact pane: fields with inline errors, the duplicate notice, the sending state
//! and server messages; the confirmation and discard questions on top.

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::app::dialogs::contact_form::{ContactForm, FIELDS, Stage};
use crate::app::keymap::{Action, KeyMap};
use crate::ui::common::form_rows::{self, Row};
use crate::ui::common::modal;
use crate::ui::theme::Theme;
use crate::validate::ContactField;

fn label(f: ContactField) -> &'static str {
    match f {
        ContactField::FirstName => "First name",
        ContactField::LastName => "Last name",
        ContactField::Email => "Email",
        ContactField::Phone => "Phone",
        _ => "Extra",
    }
}

pub fn draw(
    f: &mut Frame,
    area: Rect,
    form: &ContactForm,
    spinner: &str,
    waits: Option<String>,
    keys: &KeyMap,
    theme: &Theme,
) {
    let full = crate::app::layout::modal_area(area);
    let m = modal::centered(area, full.width.min(90), full.height);
    let inner = modal::frame(f, m, "New contact", &footer(form, keys), theme);
    let mut rows = field_rows(form, inner.width, keys, theme);
    rows.extend(outcome_rows(form, inner.width, spinner, waits, theme));
    form_rows::draw(f, inner, &rows, theme);
    ask_on_top(f, area, form, keys, theme);
}

/// A locked form (a create whose outcome is unknown) can only be retried with its key or
/// discarded: editing it would send other data under the same Idempotency-Key.
fn footer(form: &ContactForm, keys: &KeyMap) -> String {
    let key = |a: Action| keys.first_key(a);
    if form.locked {
        format!(
            "{} retry with the same key · {} discard",
            key(Action::Submit),
            key(Action::Cancel)
        )
    } else {
        format!(
            "{} next · {} back · {} create · {} discard",
            keys.pair(Action::NextField, Action::Confirm),
            key(Action::PrevField),
            key(Action::Submit),
            key(Action::Cancel)
        )
    }
}

/// Where it goes, the fields with their errors (and the duplicate notice under the email),
/// then the extra lines.
fn field_rows<'a>(form: &'a ContactForm, width: u16, keys: &KeyMap, theme: &Theme) -> Vec<Row<'a>> {
    let editing = form.stage == Stage::Editing;
    let mut rows = Row::wrapped(
        &format!("Profile {} at {}", form.target.profile, form.target.host),
        width,
        theme.dim,
    );
    rows.push(Row::text("", theme.dim));
    for (i, field) in FIELDS.iter().enumerate() {
        rows.push(Row::Input {
            label: label(*field),
            input: &form.inputs[i],
            focused: editing && form.focus == i,
        });
        if let Some(e) = form.error_for(*field) {
            rows.extend(Row::error(e, width, theme));
        }
        // "give a name or an email" (and the server's `name` errors): between the names and
        // the email, the fields it is about.
        if *field == ContactField::LastName
            && let Some(e) = form.error_for(ContactField::Form)
        {
            rows.extend(Row::error(e, width, theme));
        }
        if *field == ContactField::Email
            && let Some(d) = &form.duplicate
        {
            let created = d
                .created
                .as_deref()
                .map(|c| format!(", created {c}"))
                .unwrap_or_default();
            rows.extend(Row::under(
                &format!(
                    "already exists: {}{created} · {} opens it",
                    d.name,
                    keys.first_key(Action::OpenDuplicate),
                ),
                width,
                theme.pending,
            ));
        }
        if *field == ContactField::Phone {
            rows.extend(near_rows(form, width, keys, theme));
        }
    }
    rows.extend(Row::wrapped(
        "Extra attributes, one `key = value` per line (values as JSON when they parse):",
        width,
        theme.dim,
    ));
    rows.extend(Row::extra_lines(
        &form.extra,
        "Extra",
        form.focus.checked_sub(FIELDS.len()).filter(|_| editing),
    ));
    if let Some(e) = form.error_for(ContactField::Extra) {
        rows.extend(Row::error(e, width, theme));
    }
    rows
}

/// The mirror's near duplicates of the draft (the exact email duplicate is said under the
/// email), under the fields they are about, each with why.
fn near_rows<'a>(form: &ContactForm, width: u16, keys: &KeyMap, theme: &Theme) -> Vec<Row<'a>> {
    let exact = form.duplicate.as_ref().map(|d| d.id.as_str());
    // Made once a frame: each match carries its record's JSON.
    let all = form.matches();
    let turn = if all.len() > 1 {
        "opens them in turn"
    } else {
        "opens it"
    };
    let near: Vec<_> = all
        .iter()
        .filter(|m| Some(m.id.as_str()) != exact)
        .collect();
    if near.is_empty() {
        return Vec::new();
    }
    let mut rows = Vec::new();
    for m in near {
        let created = m
            .created
            .as_deref()
            .map(|c| format!(", created {c}"))
            .unwrap_or_default();
        rows.extend(Row::under(
            &format!("looks like {} ({}{created}): {}", m.name, m.id, m.why),
            width,
            theme.pending,
        ));
    }
    rows.extend(Row::under(
        &format!(
            "from the local mirror · {} {turn}",
            keys.first_key(Action::OpenDuplicate)
        ),
        width,
        theme.dim,
    ));
    rows
}

/// The create under way, and the server's answer (kept in the pending colour while the
/// form is locked: it says the outcome is unknown, not that it failed).
fn outcome_rows<'a>(
    form: &ContactForm,
    width: u16,
    spinner: &str,
    waits: Option<String>,
    theme: &Theme,
) -> Vec<Row<'a>> {
    let mut rows = Vec::new();
    // "sending…" only while the request is on the wire: before, what it waits for.
    match (waits, &form.progress) {
        (Some(w), _) => rows.extend(Row::wrapped(&w, width, theme.pending)),
        (None, Some(p)) => rows.push(Row::text(format!("{spinner} {p}…"), theme.spinner)),
        (None, None) => {}
    }
    if let Some(b) = &form.banner {
        let style = if form.locked {
            theme.pending
        } else {
            theme.error
        };
        rows.extend(Row::wrapped(b, width, style));
    }
    rows
}

/// The stage's question, if it asks one, over the form: create (saying what else is sent and
/// whether the email is taken), or discard the draft.
fn ask_on_top(f: &mut Frame, area: Rect, form: &ContactForm, keys: &KeyMap, theme: &Theme) {
    let key = |a: Action| keys.first_key(a);
    match &form.stage {
        Stage::Confirm { contact } => {
            let who = [contact.first_name.as_deref(), contact.last_name.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
            let who = match (&contact.email, who.is_empty()) {
                (Some(e), true) => e.clone(),
                (Some(e), false) => format!("{who} <{e}>"),
                (None, _) => who,
            };
            let mut lines = vec![
                format!(
                    "Create {who} in profile '{}' at {}?",
                    form.target.profile, form.target.host
                ),
                "Creating a contact may start workflows in the service (emails, assignments, automations).".to_string(),
            ];
            if !contact.extra.is_empty() {
                lines.push(format!(
                    "Also sent: {}",
                    contact
                        .extra
                        .iter()
                        .map(|(k, v)| format!("{k} = {v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if let Some(d) = &form.duplicate {
                lines.push(format!(
                    "A contact with this email already exists: {}. Creating makes a second one.",
                    d.name
                ));
            }
            let exact = form.duplicate.as_ref().map(|d| d.id.as_str());
            let near: Vec<String> = form
                .matches()
                .into_iter()
                .filter(|m| Some(m.id.as_str()) != exact)
                .map(|m| format!("{} ({})", m.name, m.why))
                .collect();
            if !near.is_empty() {
                lines.push(format!(
                    "It looks like {} in the local mirror. Creating makes another.",
                    near.join("; ")
                ));
            }
            // The same keys whether or not the email is taken.
            let footer = format!(
                "{} create · {} create and add another · {} back",
                keys.pair(Action::Confirm, Action::Yes),
                key(Action::AddAnother),
                key(Action::Cancel)
            );
            form_rows::ask(f, area, "Create contact?", &lines, &footer, theme);
        }
        Stage::AskDiscard => {
            let lines = vec!["Discard this draft? What was typed is lost.".to_string()];
            let footer = format!(
                "{} discard · {} keep editing",
                key(Action::Yes),
                key(Action::No)
            );
            form_rows::ask(f, area, "Discard?", &lines, &footer, theme);
        }
        _ => {}
    }
}
