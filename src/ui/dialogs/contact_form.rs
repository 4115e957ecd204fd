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
    keys: &KeyMap,
    theme: &Theme,
) {
    let key = |a: Action| keys.first_key(a);
    let full = crate::app::layout::modal_area(area);
    let m = modal::centered(area, full.width.min(90), full.height);
    let footer = if form.locked {
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
    };
    let inner = modal::frame(f, m, "New contact", &footer, theme);
    let editing = form.stage == Stage::Editing;
    let mut rows = Row::wrapped(
        &format!("Profile {} at {}", form.target.profile, form.target.host),
        inner.width,
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
            rows.extend(Row::error(e, inner.width, theme));
        }
        // "give a name or an email" (and the server's `name` errors): between the names and
        // the email, the fields it is about.
        if *field == ContactField::LastName
            && let Some(e) = form.error_for(ContactField::Form)
        {
            rows.extend(Row::error(e, inner.width, theme));
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
                    key(Action::OpenDuplicate),
                ),
                inner.width,
                theme.pending,
            ));
        }
    }
    rows.extend(Row::wrapped(
        "Extra attributes, one `key = value` per line (values as JSON when they parse):",
        inner.width,
        theme.dim,
    ));
    rows.extend(Row::extra_lines(
        &form.extra,
        "Extra",
        form.focus.checked_sub(FIELDS.len()).filter(|_| editing),
    ));
    if let Some(e) = form.error_for(ContactField::Extra) {
        rows.extend(Row::error(e, inner.width, theme));
    }
    if let Some(p) = &form.progress {
        rows.push(Row::text(format!("{spinner} {p}…"), theme.spinner));
    }
    if let Some(b) = &form.banner {
        let style = if form.locked {
            theme.pending
        } else {
            theme.error
        };
        rows.extend(Row::wrapped(b, inner.width, style));
    }
    form_rows::draw(f, inner, &rows, theme);

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
