//! Latency probe: runs the release `crmdash` in a pseudo-terminal (160x45) against a sandbox
//! in its own process, sends navigation, sort and tab keys, and timestamps the moment the
//! parsed screen (`vt100`) shows each change; prints p50/p95/p99. Also: cold start to the
//! first complete frame, first data, idle CPU and bytes written over 10 s, and RSS.
//!
//! `cargo build --release && cargo run --release --example latency_probe -- [KEYS] [LATENCY_MS]`
//! (defaults: 200 keys, 0 ms; `crmdash` is taken from `target/release`, or `CRMDASH_BIN`).
//!
//! With a mirror: `PROBE_HOME=DIR` keeps the home (config, mirror) across runs instead of a
//! temporary one; `PROBE_URL` and `PROBE_TOKEN` use a sandbox already running (a 1M-contact
//! sandbox takes a while to start); `PROBE_SYNC=1` runs `crmdash sync` first (timed), so the
//! dashboard opens on a complete mirror and its first rows come from disk.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::num::NonZeroU16;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const ROWS: u16 = 45;
const COLS: u16 = 160;
/// A key whose change does not show by then is counted as lost (and reported).
const KEY_TIMEOUT: Duration = Duration::from_secs(2);

type Pred = Box<dyn Fn(&vt100::Screen) -> bool + Send>;

/// The screen as parsed so far, with when its last byte arrived and how many came.
struct Screen {
    parser: vt100::Parser,
    last_chunk: Instant,
    bytes: u64,
    writes: u64,
    /// When armed (`Some(None)`), the read time of the first chunk that comes next: the
    /// first bytes of the frame a key causes.
    first: Option<Option<Instant>>,
    /// What the main thread waits for, checked by the reader after every chunk; the time is
    /// when the first chunk after which it held was read (taken before parsing, so the
    /// probe's own parsing is not counted, nor when the main thread happens to wake).
    watch: Option<(Pred, Option<Instant>)>,
}

type Shared = Arc<(Mutex<Screen>, Condvar)>;

type Writer = Arc<Mutex<Box<dyn Write + Send>>>;

/// Reads the pty, timestamping each chunk; answers the cursor-position query (`ESC [ 6 n`)
/// as a terminal would (ratatui asks it at start).
fn reader_thread(mut reader: Box<dyn Read + Send>, shared: Shared, writer: Writer) {
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            let at = Instant::now();
            if buf[..n].windows(4).any(|w| w == b"\x1b[6n") {
                let mut w = writer.lock().unwrap();
                let _ = w.write_all(b"\x1b[1;1R");
                let _ = w.flush();
            }
            let (lock, cv) = &*shared;
            let mut guard = lock.lock().unwrap();
            let s = &mut *guard;
            s.parser.process(&buf[..n]);
            s.last_chunk = at;
            s.bytes += n as u64;
            s.writes += 1;
            if let Some(first @ None) = &mut s.first {
                *first = Some(at);
            }
            if let Some((pred, seen @ None)) = &mut s.watch
                && pred(s.parser.screen())
            {
                *seen = Some(at);
            }
            cv.notify_all();
        }
    });
}

/// Waits until `pred` holds on the screen; returns when the chunk that made it hold arrived
/// (or the last chunk's time, when it already held).
fn wait_for(
    shared: &Shared,
    timeout: Duration,
    pred: impl Fn(&vt100::Screen) -> bool + Send + 'static,
) -> Option<Instant> {
    let (lock, _) = &**shared;
    let mut s = lock.lock().unwrap();
    if pred(s.parser.screen()) {
        return Some(s.last_chunk);
    }
    s.watch = Some((Box::new(pred), None));
    drop(s);
    wait_watched(shared, timeout)
}

/// Starts watching for `pred` before a key is sent, so no chunk can slip past it.
fn watch(shared: &Shared, pred: impl Fn(&vt100::Screen) -> bool + Send + 'static) {
    shared.0.lock().unwrap().watch = Some((Box::new(pred), None));
}

/// Waits for the watched predicate to hold; clears the watch.
fn wait_watched(shared: &Shared, timeout: Duration) -> Option<Instant> {
    let (lock, cv) = &**shared;
    let deadline = Instant::now() + timeout;
    let mut s = lock.lock().unwrap();
    loop {
        if let Some((_, Some(at))) = &s.watch {
            let at = *at;
            s.watch = None;
            return Some(at);
        }
        let Some(left) = deadline.checked_duration_since(Instant::now()) else {
            s.watch = None;
            return None;
        };
        s = cv.wait_timeout(s, left).unwrap().0;
    }
}

fn row_text(s: &vt100::Screen, row: u16) -> String {
    s.rows(0, COLS).nth(row as usize).unwrap_or_default()
}

/// The row drawn in reverse video inside the table (the selection), if any.
fn selected_row(s: &vt100::Screen) -> Option<u16> {
    (3..ROWS - 2).find(|&r| s.cell(r, 3).is_some_and(|c| c.inverse()))
}

/// The active tab's title (the reverse-video text of the first row).
fn active_tab(s: &vt100::Screen) -> String {
    (0..COLS)
        .filter_map(|c| {
            s.cell(0, c)
                .filter(|c| c.inverse())
                .map(|c| c.contents().to_string())
        })
        .collect::<String>()
        .trim()
        .to_string()
}

/// "sort updated_at ▼" from the table's top border.
fn sort_label(s: &vt100::Screen) -> Option<String> {
    (1..ROWS).find_map(|r| {
        let t = row_text(s, r);
        let i = t.find("· sort ")?;
        Some(t[i..].split(" · ").next().unwrap_or("").to_string())
    })
}

/// Whether screen row `r` shows a record of the table (not its header, border or blank space).
fn is_record(s: &vt100::Screen, r: u16) -> bool {
    let Some(border) = (1..ROWS).find(|&b| row_text(s, b).contains("· sort ")) else {
        return false;
    };
    let inner: String = row_text(s, r)
        .chars()
        .skip(1)
        .take(COLS as usize - 2)
        .collect();
    r > border + 1 && r < ROWS && !inner.trim().is_empty() && !inner.starts_with('─')
}

fn first_complete_frame(s: &vt100::Screen) -> bool {
    active_tab(s).contains("Deals") && !row_text(s, ROWS - 1).trim().is_empty()
}

/// Spawns `crmdash sandbox` and reads its base URL and token.
fn start_sandbox(bin: &str, latency_ms: u64, contacts: usize) -> (Child, String, String) {
    let mut cmd = Command::new(bin);
    cmd.args([
        "sandbox",
        "--port",
        "0",
        "--contacts",
        &contacts.to_string(),
    ]);
    if latency_ms > 0 {
        cmd.args(["--latency-ms", &latency_ms.to_string()]);
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("sandbox starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut url = String::new();
    let mut token = String::new();
    while url.is_empty() || token.is_empty() {
        let line = lines.next().expect("sandbox output").expect("utf-8");
        if let Some(u) = line.strip_prefix("base_url: ") {
            url = u.to_string();
        } else if let Some(t) = line.strip_prefix("token: ") {
            token = t.to_string();
        }
    }
    // Keep draining so the sandbox never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (child, url, token)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn report(name: &str, mut v: Vec<Duration>) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "  {name:<10} n={:<4} p50={:.3} ms  p95={:.3} ms  p99={:.3} ms  max={:.3} ms",
        v.len(),
        ms(percentile(&v, 0.50)),
        ms(percentile(&v, 0.95)),
        ms(percentile(&v, 0.99)),
        ms(v.last().copied().unwrap_or_default()),
    );
}

/// CPU time of each thread of `pid`, from `/proc/PID/task/*/schedstat` (nanoseconds).
fn thread_times(pid: u32) -> HashMap<String, u64> {
    let mut times = HashMap::new();
    if let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for t in dir.flatten() {
            let s = std::fs::read_to_string(t.path().join("schedstat")).unwrap_or_default();
            if let Some(ns) = s.split_whitespace().next().and_then(|n| n.parse().ok()) {
                times.insert(t.file_name().to_string_lossy().into_owned(), ns);
            }
        }
    }
    times
}

/// CPU time spent between two `thread_times` readings, and how many threads ended meanwhile
/// (their time after the first reading is not counted: a thread that ends, such as an idle
/// blocking-pool worker, takes its counter with it).
fn cpu_between(before: &HashMap<String, u64>, after: &HashMap<String, u64>) -> (Duration, usize) {
    let spent = after
        .iter()
        .map(|(tid, ns)| ns - before.get(tid).copied().unwrap_or(0).min(*ns))
        .sum();
    let ended = before.keys().filter(|t| !after.contains_key(*t)).count();
    (Duration::from_nanos(spent), ended)
}

/// utime+stime from `/proc/PID/stat`, in clock ticks (coarse: 10 ms).
fn stat_ticks(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = s.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    f.get(11).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0)
        + f.get(12).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0)
}

fn status_kb(pid: u32, field: &str) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// A program running in its own pseudo-terminal at 160x45, its screen parsed as it arrives.
struct Tui {
    name: &'static str,
    shared: Shared,
    writer: Writer,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    /// Keeps the pty open while the program runs.
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Tui {
    fn spawn(name: &'static str, cmd: CommandBuilder) -> Tui {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("pty");
        let shared: Shared = Arc::new((
            Mutex::new(Screen {
                parser: vt100::Parser::new(
                    NonZeroU16::new(ROWS).unwrap(),
                    NonZeroU16::new(COLS).unwrap(),
                    0,
                ),
                last_chunk: Instant::now(),
                bytes: 0,
                writes: 0,
                first: None,
                watch: None,
            }),
            Condvar::new(),
        ));
        let writer: Writer = Arc::new(Mutex::new(pty.master.take_writer().unwrap()));
        reader_thread(
            pty.master.try_clone_reader().unwrap(),
            shared.clone(),
            writer.clone(),
        );
        let child = pty.slave.spawn_command(cmd).expect("the program starts");
        Tui {
            name,
            shared,
            writer,
            child,
            _master: pty.master,
        }
    }

    fn send(&self, bytes: &[u8]) {
        let mut w = self.writer.lock().unwrap();
        w.write_all(bytes).unwrap();
        w.flush().unwrap();
    }

    /// Waits until nothing has arrived for `quiet` (at most `limit`).
    fn settle(&self, quiet: Duration, limit: Duration) {
        let end = Instant::now() + limit;
        while Instant::now() < end {
            let last = self.shared.0.lock().unwrap().last_chunk;
            if last.elapsed() >= quiet {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends `key` and returns (first bytes after it, first chunk after which the screen
    /// differs from before it), both from the moment the key was written.
    fn key(&self, key: &[u8]) -> Option<(Duration, Duration)> {
        let before = {
            let mut s = self.shared.0.lock().unwrap();
            s.first = Some(None);
            s.parser.screen().contents_formatted()
        };
        watch(&self.shared, move |s| s.contents_formatted() != before);
        let sent = Instant::now();
        self.send(key);
        let changed = wait_watched(&self.shared, KEY_TIMEOUT);
        let first = self.shared.0.lock().unwrap().first.take().flatten();
        Some((
            first?.saturating_duration_since(sent),
            changed?.saturating_duration_since(sent),
        ))
    }

    fn screen(&self) -> String {
        self.shared.0.lock().unwrap().parser.screen().contents()
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `latency_probe compare [ROUNDS] [KEYS]`: `crmdash --demo` and ATAC side by side in one
/// run, each in its own 160x45 pty, driven the same way and alternately: each round sends
/// KEYS arrow keys (down, then back up, so every key moves the selection) to one program,
/// then to the other (the order alternates by round). For each key: the time to the first
/// bytes that come back, and to the first chunk after which the screen differs from before
/// the key (the first bytes of its redraw). ATAC comes from `ATAC_BIN` (default
/// `/work/tools/bin/atac`) and opens a collection of 30 requests written to a temporary
/// folder (unfolded first, so the arrows move through its requests); `SLUMBER_BIN`, when set,
/// adds slumber the same way.
fn compare(mut args: impl Iterator<Item = String>) {
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let keys: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let bin = std::env::var("CRMDASH_BIN").unwrap_or_else(|_| "target/release/crmdash".into());
    let bin = std::fs::canonicalize(&bin).expect("the crmdash binary (cargo build --release)");
    let atac = std::env::var("ATAC_BIN").unwrap_or_else(|_| "/work/tools/bin/atac".into());
    let home = tempfile::tempdir().expect("temp home");
    let env = |cmd: &mut CommandBuilder| {
        cmd.env("HOME", home.path());
        cmd.env("XDG_CONFIG_HOME", home.path().join("config"));
        cmd.env("XDG_STATE_HOME", home.path().join("state"));
        cmd.env("XDG_DATA_HOME", home.path().join("data"));
        cmd.env("XDG_CACHE_HOME", home.path().join("cache"));
        cmd.env("TERM", "xterm-256color");
        cmd.env("NO_COLOR", "1");
    };
    let config = home.path().join("config.toml");
    std::fs::write(&config, "[ui]\nrefresh_seconds = 0\n").unwrap();
    let mut ours = CommandBuilder::new(&bin);
    ours.arg("--demo");
    env(&mut ours);
    ours.env("CRMDASH_CONFIG", &config);
    let atac_dir = home.path().join("atac");
    std::fs::create_dir_all(&atac_dir).unwrap();
    std::fs::write(atac_dir.join("crm.json"), atac_collection(30)).unwrap();
    let mut theirs = CommandBuilder::new(&atac);
    theirs.args(["-d".as_ref(), atac_dir.as_os_str()]);
    env(&mut theirs);
    let mut tuis = vec![Tui::spawn("crmdash", ours), Tui::spawn("atac", theirs)];
    if let Ok(slumber) = std::env::var("SLUMBER_BIN") {
        let file = home.path().join("slumber.yml");
        std::fs::write(&file, slumber_collection(30)).unwrap();
        let mut cmd = CommandBuilder::new(slumber);
        cmd.args(["-f".as_ref(), file.as_os_str()]);
        env(&mut cmd);
        tuis.push(Tui::spawn("slumber", cmd));
    }
    // crmdash: its first rows (the demo's sandbox is in-process); every program: 1 s of quiet.
    wait_for(&tuis[0].shared, Duration::from_secs(20), |s| {
        selected_row(s).is_some()
    })
    .expect("crmdash shows rows");
    for t in &tuis {
        t.settle(Duration::from_millis(1000), Duration::from_secs(20));
    }
    // ATAC opens with its collection folded and nothing selected: select it, unfold it.
    for key in [&b"\x1b[B"[..], b"\r"] {
        tuis[1].send(key);
        tuis[1].settle(Duration::from_millis(300), Duration::from_secs(5));
    }
    println!(
        "latency probe, side by side: {COLS}x{ROWS}, {rounds} rounds of {keys} keys each, load average {}",
        loadavg()
    );
    let mut first: Vec<Vec<Duration>> = vec![Vec::new(); tuis.len()];
    let mut changed: Vec<Vec<Duration>> = vec![Vec::new(); tuis.len()];
    let mut lost = vec![0usize; tuis.len()];
    for round in 0..rounds {
        let mut order: Vec<usize> = (0..tuis.len()).collect();
        order.rotate_left(round % tuis.len());
        for &i in &order {
            for k in 0..keys {
                let key: &[u8] = if k < keys / 2 { b"\x1b[B" } else { b"\x1b[A" };
                match tuis[i].key(key) {
                    Some((f, c)) => {
                        first[i].push(f);
                        changed[i].push(c);
                    }
                    None => lost[i] += 1,
                }
                std::thread::sleep(Duration::from_millis(15));
            }
            tuis[i].settle(Duration::from_millis(100), Duration::from_secs(2));
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let mut p50 = Vec::new();
    for (i, t) in tuis.iter().enumerate() {
        let (mut f, mut c) = (first[i].clone(), changed[i].clone());
        f.sort();
        c.sort();
        p50.push(percentile(&c, 0.5));
        println!(
            "  {:<8} n={:<4} first bytes p50={:.3} p95={:.3} ms; screen changed p50={:.3} p95={:.3} p99={:.3} ms; lost {}",
            t.name,
            c.len(),
            ms(percentile(&f, 0.5)),
            ms(percentile(&f, 0.95)),
            ms(percentile(&c, 0.5)),
            ms(percentile(&c, 0.95)),
            ms(percentile(&c, 0.99)),
            lost[i]
        );
        if c.is_empty() {
            println!(
                "  {} never changed its screen; it shows:\n{}",
                t.name,
                t.screen()
            );
        }
    }
    for i in 1..tuis.len() {
        println!(
            "  crmdash / {} p50 = {:.2}",
            tuis[i].name,
            ms(p50[0]) / ms(p50[i]).max(f64::MIN_POSITIVE)
        );
    }
    println!("  load average after: {}", loadavg());
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// An ATAC 0.24 collection (JSON, as `atac request new` writes it) of `n` GET requests to a
/// closed local port (nothing is sent: the probe only moves the selection).
fn atac_collection(n: usize) -> String {
    let requests: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"name":"contacts page {i}","url":"http://127.0.0.1:9/v1/contacts?page={i}","params":[],"headers":[],"auth":"no_auth","scripts":{{"pre_request_script":null,"post_request_script":null}},"settings":{{"use_config_proxy":true,"allow_redirects":true,"timeout":30000,"store_received_cookies":true,"pretty_print_response_content":true,"accept_invalid_certs":false,"accept_invalid_hostnames":false}},"protocol":{{"type":"http","method":"GET","body":"no_body"}}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"name":"crm","last_position":null,"requests":[{}]}}"#,
        requests.join(",")
    )
}

/// A slumber collection (YAML) of `n` GET requests.
fn slumber_collection(n: usize) -> String {
    let mut out = String::from("requests:\n");
    for i in 0..n {
        out.push_str(&format!(
            "  page{i}:\n    method: GET\n    url: http://127.0.0.1:9/v1/contacts?page={i}\n"
        ));
    }
    out
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().is_some_and(|a| a == "compare") {
        args.next();
        compare(args);
        return;
    }
    let keys: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    let latency: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(0);
    let contacts: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let bin = std::env::var("CRMDASH_BIN").unwrap_or_else(|_| "target/release/crmdash".into());
    let bin = std::fs::canonicalize(&bin)
        .expect("the crmdash binary (cargo build --release)")
        .display()
        .to_string();
    let (mut sandbox, url, token) = match (std::env::var("PROBE_URL"), std::env::var("PROBE_TOKEN"))
    {
        (Ok(url), Ok(token)) => (None, url, token),
        _ => {
            let (child, url, token) = start_sandbox(&bin, latency, contacts);
            (Some(child), url, token)
        }
    };
    let temp = tempfile::tempdir().expect("temp home");
    let home = std::env::var_os("PROBE_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| temp.path().to_path_buf());
    std::fs::create_dir_all(&home).expect("the probe's home");
    let config = home.join("config.toml");
    std::fs::write(&config, "[ui]\nrefresh_seconds = 0\n").unwrap();
    let env = |cmd: &mut dyn FnMut(&str, &std::ffi::OsStr)| {
        cmd("CRMDASH_TOKEN", token.as_ref());
        cmd("CRMDASH_CONFIG", config.as_os_str());
        cmd("HOME", home.as_os_str());
        cmd("XDG_CONFIG_HOME", home.join("config").as_os_str());
        cmd("XDG_STATE_HOME", home.join("state").as_os_str());
        cmd("XDG_DATA_HOME", home.join("data").as_os_str());
        cmd("XDG_CACHE_HOME", home.join("cache").as_os_str());
    };
    if std::env::var_os("PROBE_SYNC").is_some() {
        let mut sync = Command::new(&bin);
        sync.args(["--base-url", &url, "sync"]);
        env(&mut |k, v| {
            sync.env(k, v);
        });
        let started = Instant::now();
        let out = sync.output().expect("crmdash sync runs");
        assert!(
            out.status.success(),
            "crmdash sync: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        println!(
            "  crmdash sync before the dashboard: {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }

    let pty = native_pty_system()
        .openpty(PtySize {
            rows: ROWS,
            cols: COLS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("pty");
    let mut cmd = CommandBuilder::new(&bin);
    cmd.args(["--base-url", &url]);
    env(&mut |k, v| cmd.env(k, v));
    cmd.env("TERM", "xterm-256color");
    cmd.env("NO_COLOR", "1");
    let shared: Shared = Arc::new((
        Mutex::new(Screen {
            parser: vt100::Parser::new(
                NonZeroU16::new(ROWS).unwrap(),
                NonZeroU16::new(COLS).unwrap(),
                0,
            ),
            last_chunk: Instant::now(),
            bytes: 0,
            writes: 0,
            first: None,
            watch: None,
        }),
        Condvar::new(),
    ));
    let writer: Writer = Arc::new(Mutex::new(pty.master.take_writer().unwrap()));
    reader_thread(
        pty.master.try_clone_reader().unwrap(),
        shared.clone(),
        writer.clone(),
    );
    let press = |k: char| {
        let mut w = writer.lock().unwrap();
        w.write_all(&[k as u8]).unwrap();
        w.flush().unwrap();
    };
    let spawned = Instant::now();
    let mut child = pty.slave.spawn_command(cmd).expect("crmdash starts");
    let pid = child.process_id().expect("pid");
    println!(
        "crmdash latency probe: {COLS}x{ROWS}, {keys} keys, sandbox latency {latency} ms, {contacts} contacts"
    );
    let Some(first) = wait_for(&shared, Duration::from_secs(5), first_complete_frame) else {
        let s = shared.0.lock().unwrap();
        panic!(
            "no first frame; the screen:\n{}",
            s.parser.screen().contents()
        );
    };
    let data = wait_for(&shared, Duration::from_secs(10), |s| {
        selected_row(s).is_some()
    })
    .expect("first data");
    println!(
        "  cold start to first complete frame: {:.2} ms",
        (first - spawned).as_secs_f64() * 1000.0
    );
    println!(
        "  cold start to first data on screen: {:.2} ms",
        (data - spawned).as_secs_f64() * 1000.0
    );

    // `PROBE_COLD_ONLY=1`: stop here (to repeat the cold start many times).
    if std::env::var_os("PROBE_COLD_ONLY").is_some() {
        let _ = child.kill();
        let _ = child.wait();
        stop(sandbox.as_mut());
        return;
    }

    // Load every tab once, so navigation finds rows everywhere.
    for k in ['1', '3', '2'] {
        press(k);
        wait_for(&shared, Duration::from_secs(10), move |s| {
            active_tab(s).starts_with(k) && selected_row(s).is_some()
        })
        .expect("tab loads");
    }
    std::thread::sleep(Duration::from_millis(300));

    let pattern = [
        'j', 'j', 'j', 'k', 'k', 's', 'j', 'k', '1', 'j', 'k', '2', 'S', 'j', '3', 'k', 'j', '2',
    ];
    let (mut nav, mut sort, mut tab) = (Vec::new(), Vec::new(), Vec::new());
    let mut lost = Vec::new();
    for i in 0..keys {
        let (before, k) = {
            let s = shared.0.lock().unwrap();
            let screen = s.parser.screen();
            let selected = selected_row(screen);
            // A selection on the first or last record cannot move further that way: the key
            // would change nothing, and wait for a change that never comes.
            let k = match (pattern[i % pattern.len()], selected) {
                ('k', Some(r)) if !is_record(screen, r - 1) => 'j',
                ('j', Some(r)) if !is_record(screen, r + 1) => 'k',
                (k, _) => k,
            };
            ((selected, sort_label(screen)), k)
        };
        match k {
            'j' | 'k' => {
                let want = before
                    .0
                    .map(|r| if k == 'j' { r + 1 } else { r.saturating_sub(1) });
                watch(&shared, move |s| selected_row(s) == want);
            }
            's' | 'S' => {
                let label = before.1.clone();
                watch(&shared, move |s| sort_label(s) != label);
            }
            _ => watch(&shared, move |s| active_tab(s).starts_with(k)),
        }
        let sent = Instant::now();
        press(k);
        match wait_watched(&shared, KEY_TIMEOUT) {
            Some(at) => {
                let d = at.saturating_duration_since(sent);
                match k {
                    'j' | 'k' => nav.push(d),
                    's' | 'S' => sort.push(d),
                    _ => tab.push(d),
                }
            }
            None => lost.push((k, before.0)),
        }
        // A human's pace is slower; this keeps requests in flight on a slow link.
        std::thread::sleep(Duration::from_millis(15));
    }
    println!("  keystroke to frame (read time of the chunk that completes the change):");
    let mut all: Vec<Duration> = nav.iter().chain(&sort).chain(&tab).copied().collect();
    report("navigate", nav);
    report("sort", sort);
    report("tab", tab);
    report("all", std::mem::take(&mut all));
    if !lost.is_empty() {
        println!(
            "  keys whose change did not show within {KEY_TIMEOUT:?} (key, selected row before): {lost:?}"
        );
    }
    println!(
        "  RSS while browsing: {} kB (peak {} kB)",
        status_kb(pid, "VmRSS:"),
        status_kb(pid, "VmHWM:")
    );

    // `PROBE_SMAPS=FILE`: keep the memory map as it is while browsing, to see where RSS goes.
    if let Some(path) = std::env::var_os("PROBE_SMAPS") {
        let _ = std::fs::copy(format!("/proc/{pid}/smaps"), path);
    }

    // Idle: let answers land, then watch 10 s with nothing pressed.
    std::thread::sleep(Duration::from_millis(latency.max(100) * 3));
    let (b0, w0) = {
        let s = shared.0.lock().unwrap();
        (s.bytes, s.writes)
    };
    let (c0, t0) = (thread_times(pid), stat_ticks(pid));
    std::thread::sleep(Duration::from_secs(10));
    let (c1, t1) = (thread_times(pid), stat_ticks(pid));
    let (idle_cpu, ended) = cpu_between(&c0, &c1);
    let (b1, w1) = {
        let s = shared.0.lock().unwrap();
        (s.bytes, s.writes)
    };
    println!(
        "  idle 10 s: CPU {:.3} ms (schedstat, {} threads, {ended} ended meanwhile; utime+stime {} ticks), {} bytes in {} writes to the terminal",
        idle_cpu.as_secs_f64() * 1000.0,
        c1.len(),
        t1 - t0,
        b1 - b0,
        w1 - w0
    );
    println!(
        "  RSS after idle: {} kB (anon {} kB, file {} kB)",
        status_kb(pid, "VmRSS:"),
        status_kb(pid, "RssAnon:"),
        status_kb(pid, "RssFile:")
    );

    press('q');
    let _ = child.wait();
    stop(sandbox.as_mut());
}

/// Stops the sandbox the probe started (not one it was given).
fn stop(sandbox: Option<&mut Child>) {
    if let Some(s) = sandbox {
        let _ = s.kill();
        let _ = s.wait();
    }
}
