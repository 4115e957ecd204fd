//! The status line (page position, data age, request state, last error or note, profile and
//! host) and the hint line generated from the key map.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use crate::app::App;
use crate::app::keymap::Action;
use crate::ui::common::{cached_row, fit, profile_mark};
use crate::ui::theme::Theme;

const SPINNER: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];

/// `page 2/7 · 163 total`, or `all 42 contacts` for an unpaged list.
pub fn position(app: &App) -> String {
    if app.pipeline_shown().is_some() {
        // The table's page says nothing about the pipeline, whose header has its own count.
        return String::new();
    }
    let tab = app.tab();
    let Some(shown) = &tab.shown else {
        return String::new();
    };
    match shown.page.meta {
        Some(meta) => {
            let page = meta.current_page.unwrap_or(shown.spec.page as u64);
            let last = tab
                .last_page()
                .map(|l| l.to_string())
                .unwrap_or_else(|| "?".into());
            let total = meta
                .total
                .map(|t| format!(" · {t} total"))
                .unwrap_or_default();
            format!("page {page}/{last}{total}")
        }
        None => format!(
            "all {} {}",
            shown.page.records.len(),
            tab.resource.kind.noun()
        ),
    }
}

/// The status line, from the cache while its inputs hold (`app::chrome`).
pub fn draw_status(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let c = &app.chrome;
    cached_row::draw(
        f.buffer_mut(),
        area,
        (&c.status_row, c.status_key),
        (&c.builds, cached_row::Which::Status),
        |buf, area| build_status(buf, area, app, theme),
    );
}

/// The hint line, from the cache while the focus and the width hold.
pub fn draw_hint(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let c = &app.chrome;
    cached_row::draw(
        f.buffer_mut(),
        area,
        (&c.hint_row, c.hint_key),
        (&c.builds, cached_row::Which::Hint),
        |buf, area| {
            fit::draw_str(buf, area, &app.hint_line(area.width), theme.dim);
        },
    );
}

fn build_status(buf: &mut Buffer, area: Rect, app: &App, theme: &Theme) {
    // The facts, each with a rank: when the line is short, the highest ranks go first (the
    // latency, the age, the page position), so a message keeps as much room as it can.
    let mut facts: Vec<(u8, Span)> = Vec::new();
    let mirror = app.mirror_status();
    // Offline comes first and is never dropped: on a narrow screen it is the last thing cut.
    if app.is_offline()
        && let Some(m) = &mirror
    {
        facts.push((0, Span::styled(m.clone(), theme.error)));
    }
    let pos = position(app);
    if !pos.is_empty() {
        // An error older than its few seconds no longer takes the position's room.
        let stale_error = app.status.error.is_some() && app.status.error_new_until.is_none();
        facts.push((if stale_error { 0 } else { 2 }, Span::raw(pos)));
    }
    if let Some(age) = app.age_label() {
        // `from mirror · 12:03` says the rows are not the service's: it stays longer than the
        // page position; the service's `updated 10 s ago` goes early.
        let mirrored = app
            .tab()
            .shown
            .as_ref()
            .is_some_and(|s| s.page.mirrored.is_some());
        facts.push((if mirrored { 1 } else { 3 }, Span::styled(age, theme.dim)));
    }
    if app.busy() {
        let frame = SPINNER[app.spinner_frame % SPINNER.len()];
        facts.push((1, Span::styled(format!("{frame} loading"), theme.spinner)));
    } else if let Some(l) = app.status.latency.filter(|_| !app.is_offline()) {
        facts.push((4, Span::styled(format!("{} ms", l.as_millis()), theme.dim)));
    }
    // Online: the background sync's progress. It outranks the age and the latency (it lasts
    // minutes on a first sync, and an 80-column screen has no room for all three).
    if let Some(m) = mirror.filter(|_| !app.is_offline()) {
        facts.push((2, Span::styled(m, theme.dim)));
    }
    // Long work under way (`J` lists it): exports, readings, syncs, selections.
    let jobs = app.jobs.running();
    if jobs > 0 {
        let s = if jobs == 1 { "" } else { "s" };
        facts.push((2, Span::styled(format!("{jobs} job{s}"), theme.pending)));
    }
    if app.status.awaiting_token {
        facts.push((0, Span::styled("looking up the API token", theme.pending)));
    }
    if let Some(r) = &app.status.retrying {
        facts.push((0, Span::styled(r.as_str(), theme.pending)));
    }
    if let Some(e) = &app.status.error {
        facts.push((0, Span::styled(e.as_str(), theme.error)));
    } else if let Some((n, _)) = &app.status.note {
        facts.push((0, Span::styled(n.as_str(), theme.note)));
    }
    // A write in its undo window: the countdown comes first and is never dropped.
    if let Some(c) = app.undo_countdown() {
        facts.insert(
            0,
            (
                0,
                Span::styled(c, theme.pending.add_modifier(Modifier::BOLD)),
            ),
        );
    }
    let joined = |facts: &[(u8, Span<'static>)]| {
        let mut spans = Vec::with_capacity(facts.len() * 2);
        for (i, (_, s)) in facts.iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled(" · ", theme.dim));
            }
            spans.push(s.clone());
        }
        Line::from(spans)
    };
    let all: Vec<(u8, Span<'static>)> = facts
        .into_iter()
        .map(|(r, s)| (r, Span::styled(s.content.into_owned(), s.style)))
        .collect();
    // The facts that fit in `room` columns, dropping those of rank `from` and up (highest
    // first); whether they fit.
    let fitted = |room: usize, from: u8| {
        let mut facts = all.clone();
        while fit::line_width(&joined(&facts)) > room {
            let Some((at, _)) = facts
                .iter()
                .enumerate()
                .filter(|(_, (r, _))| *r >= from)
                .max_by_key(|(i, (r, _))| (*r, *i))
            else {
                return (facts, false);
            };
            facts.remove(at);
        }
        (facts, true)
    };
    // The profile and host give way to the message: first the host goes (the profile
    // stays), then both. The age and latency go before them, the page position and the
    // sync's progress after them (a note hides those only for its few seconds).
    let width = usize::from(area.width);
    let marked = profile_mark::label(app);
    let rights = match &marked {
        // A flagged profile's name never gives way: the host goes first, then the words (the
        // `!` stays, so the marker holds under NO_COLOR at any width).
        Some(label) => [
            format!(" {label} @ {} ", app.config.host),
            format!(" {label} "),
            if profile_mark::protected(app) {
                format!(" ! {} ", app.workspace.profile)
            } else {
                format!(" {} ", app.workspace.profile)
            },
        ],
        None => [
            profile_and_host(app, area.width * 2 / 5),
            format!(" {} ", app.config.profile),
            String::new(),
        ],
    };
    let choice = rights
        .iter()
        .filter(|r| fit::width(r) <= width * 2 / 5)
        .find_map(|right| {
            let (facts, fits) = fitted(width - fit::width(right), 3);
            fits.then(|| (facts, right.clone()))
        });
    let (facts, right) = choice.unwrap_or_else(|| {
        // A protected profile's marker stays even here: the other facts give way to it.
        if profile_mark::protected(app) {
            let mark = format!(" ! {} ", app.workspace.profile);
            let room = width.saturating_sub(fit::width(&mark));
            (fitted(room, 1).0, mark)
        } else {
            (fitted(width, 1).0, String::new())
        }
    });
    let rw = fit::width(&right) as u16;
    let left_area = Rect {
        width: area.width.saturating_sub(rw),
        ..area
    };
    let right_area = Rect {
        x: area.x + area.width - rw,
        width: rw,
        ..area
    };
    let room = usize::from(left_area.width);
    let (line, cut) = fit::line(joined(&facts), room);
    if cut && left_area.width > 12 {
        // Cut: say where the whole message is (the `?` overlay lists the recent ones).
        let more = format!(" {} ", app.keymap.first_key(Action::Help));
        let mw = fit::width(&more) as u16;
        let text_area = Rect {
            width: left_area.width - mw,
            ..left_area
        };
        let (line, _) = fit::line(line, usize::from(text_area.width));
        line.render(text_area, buf);
        fit::draw_str(
            buf,
            Rect {
                x: text_area.right(),
                width: mw,
                ..left_area
            },
            &more,
            theme.key,
        );
    } else {
        line.render(left_area, buf);
    }
    let right_style = if profile_mark::protected(app) {
        profile_mark::warning(app.config.colors)
    } else if marked.is_some() {
        theme.note
    } else {
        theme.dim
    };
    fit::draw_str(buf, right_area, &right, right_style);
}

/// ` default @ crm.example.com `, or cut with `…` when `room` is short: the profile first,
/// then as much of the host as fits (both are whole in `?`).
fn profile_and_host(app: &App, room: u16) -> String {
    let room = usize::from(room);
    let host = match app.config.host.as_str() {
        "" => "no base URL yet",
        h => h,
    };
    let full = format!(" {} @ {host} ", app.config.profile);
    if fit::width(&full) <= room {
        return full;
    }
    // No wider than the host alone would be: the other facts keep their room.
    let room = room.min(fit::width(&format!(" @ {host} ")));
    format!("{} ", fit::cut(full.trim_end(), room.saturating_sub(1)))
}
