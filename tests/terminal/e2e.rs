//! End to end in a real terminal: the demo (embedded sandbox + dashboard) runs inside tmux;
//! we switch to Deals, sort by value descending, page forward, filter by name, open a detail,
//! quit, and check the screen at each step and that the terminal was restored (raw mode off,
//! alternate screen left, mouse reporting off).
//!
//! Runs the real binary (`crmdash --demo`).

use std::process::Command;
use std::time::{Duration, Instant};

pub(crate) struct Tmux {
    socket: String,
    session: String,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux must be installed for the end-to-end test (apt-get install tmux)")
    }

    pub(crate) fn send(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.session];
        args.extend_from_slice(keys);
        assert!(self.cmd(&args).status.success());
    }

    /// Resizes the window and sends `key` in one tmux command: the signal and the key reach
    /// the dashboard microseconds apart.
    fn resize_and_send(&self, width: u16, height: u16, key: &str) {
        let (w, h) = (width.to_string(), height.to_string());
        let args = [
            "resize-window",
            "-t",
            "e2e",
            "-x",
            &w,
            "-y",
            &h,
            ";",
            "send-keys",
            "-t",
            &self.session,
            key,
        ];
        let out = self.cmd(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    pub(crate) fn screen(&self) -> String {
        String::from_utf8_lossy(
            &self
                .cmd(&["capture-pane", "-p", "-t", &self.session])
                .stdout,
        )
        .into_owned()
    }

    fn display(&self, format: &str) -> String {
        String::from_utf8_lossy(
            &self
                .cmd(&["display", "-p", "-t", &self.session, format])
                .stdout,
        )
        .trim()
        .to_string()
    }

    /// Polls the screen until it shows `text` (generous limit: machines are slow and shared).
    pub(crate) fn wait_for(&self, text: &str) -> String {
        self.wait_for_all(&[text])
    }

    /// Polls until every text is on screen at once (a capture can catch a frame half-written).
    fn wait_for_all(&self, texts: &[&str]) -> String {
        self.wait_until(&format!("{texts:?}"), |s| {
            texts.iter().all(|t| s.contains(t))
        })
    }

    /// Gives the window `width` x `height` (the app sees a resize).
    pub(crate) fn resize(&self, width: u16, height: u16) {
        let (w, h) = (width.to_string(), height.to_string());
        let out = self.cmd(&["resize-window", "-t", "e2e", "-x", &w, "-y", &h]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    pub(crate) fn wait_until(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            if start.elapsed() > Duration::from_secs(60) {
                panic!("screen never showed {what}; it shows:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

/// The real binary with `--demo`, in private config, data and state dirs (so no remembered tabs
/// or sorts from another run change what the test sees).
pub(crate) fn demo_command(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("crmdash-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.display();
    format!(
        "env XDG_CONFIG_HOME={d}/config XDG_DATA_HOME={d}/data XDG_STATE_HOME={d}/state CRMDASH_CONFIG={d}/config.toml {} --demo",
        env!("CARGO_BIN_EXE_crmdash")
    )
}

/// Runs `command` in a fresh tmux server (its own socket), then prints its exit status and
/// the terminal settings, and lingers so the screen can be read.
fn start(name: &str, command: &str) -> Tmux {
    start_sized(name, command, (120, 32))
}

/// [`start`] in a window of `width` x `height`.
pub(crate) fn start_sized(name: &str, command: &str, (width, height): (u16, u16)) -> Tmux {
    let (width, height) = (width.to_string(), height.to_string());
    let tmux = Tmux {
        socket: format!("crmdash-{name}-{}", std::process::id()),
        session: "e2e".into(),
    };
    let script = format!("{command}; echo EXIT=$?; stty -a; echo STTY-DONE; sleep 600");
    let args = [
        "new-session",
        "-d",
        "-s",
        "e2e",
        "-x",
        &width,
        "-y",
        &height,
        "sh",
        "-c",
    ];
    let mut full: Vec<&str> = args.to_vec();
    full.push(&script);
    let out = tmux.cmd(&full);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    tmux
}

/// Raw mode off (canonical input, echo), alternate screen left, mouse reporting off.
fn assert_restored(tmux: &Tmux, screen: &str) {
    let screen = &format!("{screen}{}", tmux.wait_for("STTY-DONE"));
    assert!(
        screen.contains(" icanon") && !screen.contains("-icanon"),
        "{screen}"
    );
    assert!(
        screen.contains(" echo ") && !screen.contains("-echo "),
        "{screen}"
    );
    assert_eq!(tmux.display("#{alternate_on}"), "0");
    assert_eq!(tmux.display("#{mouse_any_flag}"), "0");
}

#[test]
fn browse_deals_in_a_real_terminal_and_restore_it() {
    let tmux = start("browse", &format!("NO_COLOR=1 {}", demo_command("browse")));
    tmux.wait_for("page 1/20 · 500 total");
    assert_eq!(tmux.display("#{alternate_on}"), "1");
    tmux.send(&["1"]);
    tmux.wait_for("Contacts · sort updated_at ↓");
    tmux.send(&["2"]);
    tmux.wait_for("Deals · sort updated_at ↓");
    tmux.send(&["s", "s", "s"]);
    tmux.wait_for_all(&["Deals · sort value ↓", "Value ↓"]);
    tmux.send(&["n"]);
    tmux.wait_for("page 2/20");
    tmux.send(&["/", "G", "m", "b", "H"]);
    tmux.wait_for_all(&["2 Deals [name=GmbH]", "Filter deals", "page 1/"]);
    tmux.send(&["Enter"]);
    // Enter closes the bar; the filter stays.
    tmux.wait_until("the table without the filter bar", |s| {
        s.contains("page 1/") && s.contains("GmbH") && !s.contains("Filter deals")
    });
    tmux.send(&["Enter"]);
    tmux.wait_for_all(&["Deal deal_", "GmbH", "value:"]);
    tmux.send(&["Escape"]);
    // An Escape and a `q` that reach the terminal in one read are Alt+q: wait for the pane to close.
    tmux.wait_until("the pane closed", |s| !s.contains("Deal deal_"));
    tmux.send(&["q"]);
    let s = tmux.wait_for("EXIT=0");
    assert_restored(&tmux, &s);
}

/// The widest line of the screen's frame (the table's top border), in columns.
/// The width of the frame the dashboard last drew: its top border, whole (a frame drawn at an
/// older, larger size shows cut off by the pane, without its closing corner).
pub(crate) fn frame_width(screen: &str) -> usize {
    screen
        .lines()
        .find(|l| l.starts_with('┌'))
        .map(str::trim_end)
        .filter(|l| l.ends_with('┐'))
        .map_or(0, |l| l.chars().count())
}

/// Keys are read on the runtime's thread and the frame's size is the one the terminal last
/// reported: a resize (SIGWINCH) must still reach the dashboard and redraw it at the new size,
/// and a burst of keys in one write must all be handled, in order.
#[test]
fn a_resize_redraws_at_the_new_size_and_a_burst_of_keys_all_count() {
    let tmux = start_sized(
        "resize",
        &format!("NO_COLOR=1 {}", demo_command("resize")),
        (120, 32),
    );
    tmux.wait_for("page 1/20 · 500 total");
    assert_eq!(frame_width(&tmux.screen()), 120);
    tmux.resize(150, 40);
    tmux.wait_until("the frame 150 columns wide", |s| frame_width(s) == 150);
    tmux.resize(90, 24);
    tmux.wait_until("the frame 90 columns wide", |s| frame_width(s) == 90);
    // One write of two keys (Contacts, then Projects); then back to Deals.
    tmux.send(&["-l", "13"]);
    tmux.wait_until("Projects, at the new size", |s| {
        s.contains("Projects · sort") && frame_width(s) == 90
    });
    tmux.send(&["2"]);
    tmux.wait_for("Deals · sort updated_at ↓");
    // Three sorts in one write: each counts (updated_at → ... → value ↓, as one at a time).
    tmux.send(&["-l", "sss"]);
    tmux.wait_for("Deals · sort value ↓");
    tmux.send(&["q"]);
    let s = tmux.wait_for("EXIT=0");
    assert_restored(&tmux, &s);
}

/// A resize and a key that arrive together: crossterm reads one event per wake-up and drops
/// the other's readiness, so the key stayed unread until more input came (or the resize was
/// never reported). Both must be handled: each round's tab shows, at the round's width.
#[test]
fn a_key_that_comes_with_a_resize_is_read_and_so_is_the_resize() {
    let tmux = start_sized(
        "winchkey",
        &format!("NO_COLOR=1 {}", demo_command("winchkey")),
        (100, 30),
    );
    tmux.wait_for("page 1/20 · 500 total");
    let tabs = [
        ("1", "Contacts · sort"),
        ("3", "Projects · sort"),
        ("2", "Deals · sort"),
    ];
    for round in 0..12u16 {
        let (key, title) = tabs[usize::from(round) % 3];
        let width = if round % 2 == 0 { 90 } else { 110 };
        tmux.resize_and_send(width, 30, key);
        tmux.wait_until(&format!("round {round}: {title} at {width} columns"), |s| {
            s.contains(title) && frame_width(s) == usize::from(width)
        });
    }
    tmux.send(&["q"]);
    let s = tmux.wait_for("EXIT=0");
    assert_restored(&tmux, &s);
}

/// The dashboard's process: the child of the pane's shell.
fn dashboard_pid(tmux: &Tmux) -> String {
    let shell = tmux.display("#{pane_pid}");
    let child = Command::new("pgrep").args(["-P", &shell]).output().unwrap();
    String::from_utf8_lossy(&child.stdout)
        .lines()
        .next()
        .unwrap()
        .trim()
        .to_string()
}

/// Whether `pid` still runs (a zombie has ended).
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|s| !s.trim_start().starts_with('Z'))
    })
}

#[test]
fn a_terminal_that_hangs_up_ends_the_dashboard() {
    let tmux = start("hangup", &demo_command("hangup"));
    tmux.wait_for("page 1/20");
    let pid = dashboard_pid(&tmux);
    assert!(running(&pid));
    // The terminal goes away (its window closed, the ssh connection dropped).
    let _ = tmux.cmd(&["kill-server"]);
    let start = Instant::now();
    while running(&pid) {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
            panic!("the dashboard ({pid}) still ran a minute after its terminal hung up");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn sigterm_restores_the_terminal() {
    let tmux = start("term", &demo_command("term"));
    tmux.wait_for("page 1/20");
    assert_eq!(tmux.display("#{alternate_on}"), "1");
    let pid = dashboard_pid(&tmux);
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    // Ended by SIGTERM: exit 128 + 15, after the terminal is restored.
    let s = tmux.wait_for("EXIT=143");
    assert_restored(&tmux, &s);
}

/// The child of `a_panic_restores_the_terminal_then_prints_the_message`: enters the dashboard's
/// terminal modes and panics. Does nothing unless run by that test.
#[test]
fn panicking_child() {
    if std::env::var_os("CRMDASH_E2E_PANIC_CHILD").is_none() {
        return;
    }
    let mut term = crmdash::terminal::enter(true).unwrap();
    term.draw(|f| f.render_widget(ratatui::widgets::Paragraph::new("drawn"), f.area()))
        .unwrap();
    panic!("deliberate panic from the dashboard test");
}

#[test]
fn a_panic_restores_the_terminal_then_prints_the_message() {
    let exe = std::env::current_exe().unwrap();
    // Test names are paths inside the test binary: this module's path without the crate's name.
    let child = format!(
        "{}::panicking_child",
        module_path!().split_once("::").unwrap().1
    );
    let tmux = start(
        "panic",
        &format!(
            "RUST_BACKTRACE=0 CRMDASH_E2E_PANIC_CHILD=1 {} --exact {child} --nocapture --test-threads=1",
            exe.display()
        ),
    );
    let s = tmux.wait_for("EXIT=");
    assert!(
        s.contains("deliberate panic from the dashboard test"),
        "{s}"
    );
    assert!(!s.contains("EXIT=0"), "{s}");
    assert_restored(&tmux, &s);
}

/// A D-Bus "session bus" that accepts connections and never says a word: the keyring read
/// hangs like an unanswered unlock prompt. Returns its address; connections live until exit.
fn silent_bus(dir: &std::path::Path) -> String {
    let path = dir.join("bus");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming().flatten() {
            held.push(conn);
        }
    });
    format!("unix:path={}", path.display())
}

#[test]
fn the_first_frame_comes_before_a_hanging_keyring_then_login_is_offered() {
    let dir = std::env::temp_dir().join(format!("crmdash-e2e-keyring-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        "[profiles.default]\nbase_url = \"https://crm.example.com\"\n",
    )
    .unwrap();
    let bus = silent_bus(&dir);
    let d = dir.display();
    let command = format!(
        "env -u CRMDASH_TOKEN -u CRMDASH_BASE_URL -u CRMDASH_PROFILE -u CRMDASH_KEYRING NO_COLOR=1 DBUS_SESSION_BUS_ADDRESS={bus} XDG_CONFIG_HOME={d}/config XDG_DATA_HOME={d}/data XDG_STATE_HOME={d}/state CRMDASH_CONFIG={} {}",
        config.display(),
        env!("CARGO_BIN_EXE_crmdash")
    );
    let tmux = start("keyring", &command);
    // The dashboard is up while the keyring has not answered: tabs, and what it waits for.
    let s = tmux.wait_for_all(&["1 Contacts", "looking up the API token"]);
    assert!(!s.contains("Log in"), "{s}");
    assert_eq!(tmux.display("#{alternate_on}"), "1");
    // After the keyring's 10 s limit: the login dialog, naming the problem.
    let s = tmux.wait_for_all(&["Log in", "did not answer within 10 s"]);
    assert!(s.contains("CRMDASH_TOKEN"), "{s}");
    assert!(!s.contains("looking up the API token"), "{s}");
    tmux.send(&["Escape"]);
    tmux.wait_until("the dialog closed", |s| !s.contains("Log in"));
    tmux.send(&["q"]);
    let s = tmux.wait_for("EXIT=0");
    assert_restored(&tmux, &s);
    let _ = std::fs::remove_dir_all(&dir);
}
