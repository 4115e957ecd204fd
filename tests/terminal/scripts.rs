//! Complex scripts in a real terminal (tmux, the real binary with `--demo`): contacts named in
//! Devanagari, Arabic and with emoji ZWJ sequences, created through the demo's API, shown on
//! the Contacts page with the detail pane open, then closed, then other tabs. At each step
//! the screen as tmux holds it must be what a full redraw (Ctrl-L) shows: no stray glyph left
//! by a dialog or a tab, no column shifted. Also the deals page of the seed's `वर्मा & Sons`.

use crate::e2e::{Tmux, demo_command, frame_width, start_sized};

use crmdash::api::{Client, IdempotencyKey, NewContact};
use secrecy::SecretString;
use unicode_width::UnicodeWidthStr;

const NAMES: [(&str, &str); 3] = [
    ("वर्मा & Sons", "Verma"),
    ("محمد", "العتيبي"),
    ("👩‍👩‍👧 Family", "Bakery 👨‍💻"),
];

/// The demo's address, read from the status bar (`@ 127.0.0.1:PORT`).
fn base_url(screen: &str) -> String {
    let at = screen
        .find("@ 127.0.0.1:")
        .expect("the host in the status bar")
        + 2;
    let port: String = screen[at + "127.0.0.1:".len()..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    format!("http://127.0.0.1:{port}")
}

fn create_contacts(base: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let token = SecretString::from(crmdash::sandbox::DEFAULT_TOKEN.to_string());
    let client = Client::new(base, token).unwrap();
    for (i, (first, last)) in NAMES.iter().enumerate() {
        let c = NewContact {
            first_name: Some(first.to_string()),
            last_name: Some(last.to_string()),
            email: Some(format!("scripts{i}@example.com")),
            phone: None,
            extra: Default::default(),
        };
        rt.block_on(client.create_contact(&crate::ticket(), &c, &IdempotencyKey::random()))
            .expect("the demo creates the contact");
    }
}

/// No line is wider than the terminal as measured per cluster (what the layout assumed).
fn assert_fits(screen: &str, width: usize, what: &str) {
    for (y, line) in screen.lines().enumerate() {
        assert!(
            line.width() <= width,
            "{what}: row {y} is {} wide:\n{screen}",
            line.width()
        );
    }
}

/// The detail box's left border (the second `│` of a row, after the table's) is at the same
/// column on every row of the box, measured as the terminal placed the glyphs.
fn assert_borders_aligned(screen: &str, what: &str) {
    let border = |c: &char| matches!(c, '│' | '┌' | '└' | '┐' | '┘');
    // Table rows crossed by the box: the table's border, the box's two, the table's.
    let box_rows: Vec<usize> = screen
        .lines()
        .filter(|l| l.starts_with('│') && l.chars().filter(border).count() >= 4)
        .filter_map(|l| {
            let (i, _) = l.char_indices().filter(|(_, c)| border(c)).nth(1)?;
            Some(l[..i].width())
        })
        .collect();
    assert!(box_rows.len() > 3, "{what}: no box:\n{screen}");
    let first = box_rows[0];
    assert!(
        box_rows.iter().all(|c| *c == first),
        "{what}: borders at {box_rows:?}\n{screen}"
    );
}

/// What tmux shows now is what a full redraw shows.
fn assert_no_residue(tmux: &Tmux, what: &str, width: usize) -> String {
    // Let the frame settle (a capture can catch one half-written).
    std::thread::sleep(std::time::Duration::from_millis(400));
    let before = tmux.screen();
    tmux.send(&["C-l"]);
    std::thread::sleep(std::time::Duration::from_millis(400));
    let after = tmux.screen();
    // The status line (second to last) may change between the two captures on its own (a
    // request's latency, the data's age, the mirror's background sync): it is not residue.
    let body = |s: &str| {
        let lines: Vec<&str> = s.lines().collect();
        let status = lines.len().saturating_sub(2);
        lines
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != status)
            .map(|(_, l)| *l)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        body(&before),
        body(&after),
        "{what}: the screen differs from a full redraw"
    );
    assert_fits(&after, width, what);
    after
}

#[test]
fn complex_scripts_leave_no_residue_in_tmux() {
    for (w, h) in [(80u16, 24u16), (60, 16), (160, 45)] {
        let name = format!("scripts{w}");
        // A narrow status bar shortens the host (`@ 12…`): the demo's address is read at 80
        // columns, then the window takes its size.
        let tmux = start_sized(
            &name,
            &format!("NO_COLOR=1 {}", demo_command(&name)),
            (w.max(80), h),
        );
        let width = usize::from(w);
        let s = tmux.wait_for("page 1/");
        create_contacts(&base_url(&s));
        if w < 80 {
            tmux.resize(w, h);
            // What this test checks is drawn at the new size: its keys come after the redraw
            // (a key that comes with a resize: `e2e::a_key_that_comes_with_a_resize_…`).
            tmux.wait_until("the frame redrawn at the new width", |s| {
                frame_width(s) == width
            });
        }
        tmux.send(&["1"]);
        tmux.wait_for("Contacts · sort updated_at");
        tmux.send(&["r"]);
        tmux.wait_until("the new contacts", |s| {
            s.contains("Family") && s.contains("محمد")
        });
        let what = format!("{w}x{h}");
        assert_no_residue(&tmux, &format!("{what} contacts"), width);
        // The detail pane over each of the three rows, then closed.
        for row in 0..3 {
            tmux.send(&["Enter"]);
            tmux.wait_for("Contact con");
            let s = assert_no_residue(&tmux, &format!("{what} detail of row {row}"), width);
            assert_borders_aligned(&s, &format!("{what} detail of row {row}"));
            tmux.send(&["Escape"]);
            tmux.wait_until("the pane closed", |s| !s.contains("Contact con"));
            assert_no_residue(&tmux, &format!("{what} after row {row}"), width);
            tmux.send(&["j"]);
        }
        // The deals of the seed's `वर्मा & Sons`, then back: nothing of one tab stays.
        tmux.send(&["2", "/"]);
        for c in ["&", "Space", "S", "o", "n", "s", "Enter"] {
            tmux.send(&[c]);
        }
        tmux.wait_for("& Sons");
        assert_no_residue(&tmux, &format!("{what} deals & Sons"), width);
        tmux.send(&["Enter"]);
        tmux.wait_for("Deal deal_");
        assert_no_residue(&tmux, &format!("{what} deal detail"), width);
        // Apart: `Esc 3` sent at once reads as Alt-3.
        tmux.send(&["Escape"]);
        tmux.wait_until("the pane closed", |s| !s.contains("Deal deal_"));
        tmux.send(&["3"]);
        tmux.wait_for("Projects · sort");
        assert_no_residue(&tmux, &format!("{what} projects"), width);
        tmux.send(&["q"]);
        tmux.wait_for("EXIT=0");
    }
}
