//! The reschedule dialog: fields, the live summary and its warnings, the body keys (flagged
//! when they are the defaults), the log; the exact JSON preview and questions on top.

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::app::dialogs::reschedule::{FIELDS, Field, RescheduleForm, Stage};
use crate::app::keymap::{Action, KeyMap};
use crate::reschedule::format_time;
use crate::ui::common::form_rows::{self, Row};
use crate::ui::common::modal;
use crate::ui::theme::Theme;

fn label(f: Field) -> &'static str {
    match f {
        Field::Id => "Appointment",
        Field::Start => "Start",
        Field::End => "End / length",
        Field::Extra => "Extra",
    }
}

pub fn draw(
    f: &mut Frame,
    area: Rect,
    form: &RescheduleForm,
    spinner: &str,
    waits: Option<String>,
    keys: &KeyMap,
    theme: &Theme,
) {
    let full = crate::app::layout::modal_area(area);
    let m = modal::centered(area, full.width.min(100), full.height);
    let inner = modal::frame(f, m, "Reschedule appointment", &footer(form, keys), theme);
    let mut rows = field_rows(form, inner.width, theme);
    rows.extend(outcome_rows(form, inner.width, spinner, waits, theme));
    rows.extend(log_rows(form, theme));
    form_rows::draw(f, inner, &rows, theme);
    ask_on_top(f, area, form, keys, theme);
}

fn footer(form: &RescheduleForm, keys: &KeyMap) -> String {
    let key = |a: Action| keys.first_key(a);
    match form.stage {
        Stage::Done { .. } => format!(
            "{} another appointment · {} close",
            key(Action::NextAppointment),
            keys.pair(Action::Confirm, Action::Cancel)
        ),
        _ => format!(
            // Short enough to be whole in an 80-column dialog.
            "{} next · {} ±15m · {} ±1d · {} preview · {} close",
            key(Action::NextField),
            keys.pair(Action::Later, Action::Earlier),
            keys.pair(Action::PrevDay, Action::NextDay),
            key(Action::Submit),
            key(Action::Cancel)
        ),
    }
}

/// Where it goes, the fields with their errors, the live summary, the body keys and the
/// extra lines.
fn field_rows<'a>(form: &'a RescheduleForm, width: u16, theme: &Theme) -> Vec<Row<'a>> {
    let editing = form.stage == Stage::Editing;
    let cfg = &form.config;
    // Wrapped, never cut: the zone is what the typed times mean.
    let mut rows = Row::wrapped(
        &format!(
            "Profile {} at {} · times in {}",
            cfg.profile,
            cfg.host,
            cfg.zone.describe()
        ),
        width,
        theme.dim,
    );
    for (i, field) in FIELDS.iter().enumerate() {
        rows.push(Row::Input {
            label: label(*field),
            input: &form.inputs[i],
            focused: editing && form.focus == i,
        });
        if let Some(e) = form.error_for(*field) {
            rows.extend(Row::error(e, width, theme));
        } else if *field == Field::Id
            && editing
            && let Some(note) = form.id_note()
        {
            rows.extend(Row::wrapped(&note, width, theme.dim));
        }
    }
    if let Ok((_, summary)) = form.live() {
        rows.push(Row::text(format!("→ {}", summary.text), theme.heading));
        for w in &summary.warnings {
            rows.push(Row::text(format!("  ⚠ {w}"), theme.pending));
        }
    }
    rows.extend(body_key_rows(form, width, theme));
    rows.extend(Row::extra_lines(
        &form.extra,
        "Extra k = v",
        form.focus.checked_sub(FIELDS.len()).filter(|_| editing),
    ));
    if let Some(e) = form.error_for(Field::Extra) {
        rows.extend(Row::error(e, width, theme));
    }
    rows
}

/// The body's keys, flagged when they are the built-in defaults: a service that names them
/// otherwise would ignore the new time, so the user is asked to check before sending.
fn body_key_rows<'a>(form: &RescheduleForm, width: u16, theme: &Theme) -> Vec<Row<'a>> {
    let s = &form.config.settings;
    let end = if s.end_field.trim().is_empty() {
        "no end sent".to_string()
    } else {
        format!("end → \"{}\"", s.end_field)
    };
    let keys = format!("Body keys: start → \"{}\", {end}", s.start_field);
    if s.fields_are_defaults {
        Row::wrapped(
            &format!(
                "{keys} (built-in defaults: confirm your service uses them, or set [reschedule] start_field/end_field)"
            ),
            width,
            theme.pending,
        )
    } else {
        vec![Row::text(keys, theme.dim)]
    }
}

/// Sending, done, or the server's message.
fn outcome_rows<'a>(
    form: &RescheduleForm,
    width: u16,
    spinner: &str,
    waits: Option<String>,
    theme: &Theme,
) -> Vec<Row<'a>> {
    let mut rows = Vec::new();
    match &form.stage {
        Stage::Sending { .. } => match waits {
            Some(w) => rows.extend(Row::wrapped(&w, width, theme.pending)),
            None => rows.push(Row::text(format!("{spinner} sending…"), theme.spinner)),
        },
        Stage::Done { entry } => {
            let at = entry.updated_at.as_deref().unwrap_or("(not returned)");
            // Read whole: wrapped, never cut (the id and the time are what it is for).
            rows.extend(Row::wrapped(
                &format!("Rescheduled appointment {} · updated_at {at}", entry.id),
                width,
                theme.note,
            ));
        }
        _ => {}
    }
    if let Some(b) = &form.banner {
        rows.extend(Row::wrapped(b, width, theme.error));
    }
    rows
}

/// The reschedules of this and earlier sessions, newest first, after a blank row.
fn log_rows<'a>(form: &RescheduleForm, theme: &Theme) -> Vec<Row<'a>> {
    let cfg = &form.config;
    let s = &cfg.settings;
    let mut rows = vec![Row::text("", theme.dim)];
    match (&form.log_error, form.log.is_empty()) {
        (Some(e), _) => rows.push(Row::text(format!("Log: {e}"), theme.dim)),
        (None, true) => rows.push(Row::text("Log: no reschedules yet", theme.dim)),
        (None, false) => {
            rows.push(Row::text(
                "Rescheduled (this and earlier sessions):",
                theme.dim,
            ));
            for e in form.log.iter().rev() {
                // Like the CLI's `appointments log` table: the new start and end in the
                // configured zone, then where it went (host with its port), whole at 80x24.
                let (start, end) = e.times_in(s, &cfg.zone);
                let span = if end.is_empty() {
                    start
                } else {
                    format!("{start}-{end}")
                };
                rows.push(Row::text(
                    format!(
                        "{} → {span} · {} · {} · sent {}",
                        e.id,
                        e.host,
                        e.profile,
                        cfg.zone.from_utc(e.at).format("%Y-%m-%d %H:%M"),
                    ),
                    theme.dim,
                ));
            }
        }
    }
    rows
}

/// The question of the stage, if it asks one, over the form: the exact body before sending,
/// which of a repeated local time, whether to discard.
fn ask_on_top(f: &mut Frame, area: Rect, form: &RescheduleForm, keys: &KeyMap, theme: &Theme) {
    let key = |a: Action| keys.first_key(a);
    let cfg = &form.config;
    match &form.stage {
        Stage::Preview {
            appointment_id,
            body,
        } => {
            let mut lines = vec![format!(
                "POST /appointments/{appointment_id}/reschedule to {} (profile {}), exactly this body:",
                cfg.host, cfg.profile
            )];
            let json = serde_json::to_string_pretty(body).unwrap_or_default();
            lines.extend(json.lines().map(str::to_string));
            let footer = format!(
                "{} send · {} back (all kept)",
                key(Action::Confirm),
                key(Action::Cancel)
            );
            form_rows::ask(f, area, "Send?", &lines, &footer, theme);
        }
        Stage::AskWhich { earlier, later } => {
            let lines = vec![
                "This local time occurs twice (daylight saving time ends). Which one?".into(),
                format!(
                    "{}  {} (the first)",
                    key(Action::PickFirst),
                    format_time(earlier)
                ),
                format!(
                    "{}  {} (the second)",
                    key(Action::PickSecond),
                    format_time(later)
                ),
            ];
            let footer = format!(
                "{} / {} choose · {} back",
                key(Action::PickFirst),
                key(Action::PickSecond),
                key(Action::Cancel)
            );
            form_rows::ask(f, area, "Which time?", &lines, &footer, theme);
        }
        Stage::AskDiscard => {
            let lines = vec!["Close and lose what was typed?".to_string()];
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
