//! A pseudo-terminal session for the reliability and secrets tests: the real `crmdash` binary
//! on a pty (portable-pty), every byte it writes kept, the screen rebuilt with vt100, and the
//! pty's termios read from the master side.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, ExitStatus, MasterPty, PtySize, SlavePty};

/// Generous: guards against a hang, never measures speed.
pub const LIMIT: Duration = Duration::from_secs(60);

pub const ROWS: u16 = 30;
pub const COLS: u16 = 120;

pub struct Pty {
    child: Box<dyn Child + Send + Sync>,
    master: Box<dyn MasterPty + Send>,
    // Kept open so the termios can still be read after the child exits.
    _slave: Box<dyn SlavePty + Send>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    out: Arc<Mutex<Vec<u8>>>,
}

/// `crmdash ARGS` with a clean environment: every dir under `root`, `envs` added.
pub fn command(root: &Path, args: &[&str], envs: &[(&str, &str)]) -> CommandBuilder {
    let mut c = CommandBuilder::new(env!("CARGO_BIN_EXE_crmdash"));
    c.args(args);
    c.env_clear();
    c.env("PATH", std::env::var_os("PATH").unwrap_or_default());
    c.env("HOME", root);
    c.env("XDG_CONFIG_HOME", root.join("xdg-config"));
    c.env("XDG_DATA_HOME", root.join("xdg-data"));
    c.env("XDG_STATE_HOME", root.join("xdg-state"));
    c.env("XDG_CACHE_HOME", root.join("xdg-cache"));
    c.env("CRMDASH_CONFIG", root.join("config.toml"));
    c.env("TERM", "xterm-256color");
    c.env("NO_COLOR", "1");
    c.env("TZ", "UTC");
    c.env("RUST_BACKTRACE", "0");
    c.env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent");
    c.cwd(root);
    for (k, v) in envs {
        c.env(k, v);
    }
    c
}

impl Pty {
    pub fn spawn(cmd: CommandBuilder) -> Pty {
        let pair = portable_pty::native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pty");
        let child = pair.slave.spawn_command(cmd).expect("crmdash starts");
        let writer = Arc::new(Mutex::new(pair.master.take_writer().expect("writer")));
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let out = Arc::new(Mutex::new(Vec::new()));
        let (o, w) = (out.clone(), writer.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let chunk = &buf[..n];
                // A bare pty has no terminal to answer a cursor-position query: answer it.
                if chunk.windows(4).any(|w| w == b"\x1b[6n") {
                    let _ = w.lock().unwrap().write_all(b"\x1b[1;1R");
                }
                o.lock().unwrap().extend_from_slice(chunk);
            }
        });
        Pty {
            child,
            master: pair.master,
            _slave: pair.slave,
            writer,
            out,
        }
    }

    /// Every byte written so far.
    pub fn bytes(&self) -> Vec<u8> {
        self.out.lock().unwrap().clone()
    }

    /// The screen as a terminal would show it now.
    pub fn screen(&self) -> String {
        let mut p = vt100::Parser::new(
            std::num::NonZero::new(ROWS).unwrap(),
            std::num::NonZero::new(COLS).unwrap(),
            0,
        );
        p.process(&self.bytes());
        p.screen().contents()
    }

    pub fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if s.contains(text) {
                return s;
            }
            assert!(
                start.elapsed() < LIMIT,
                "the screen never showed {text:?}; it shows:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn send(&self, text: &str) {
        let mut w = self.writer.lock().unwrap();
        w.write_all(text.as_bytes()).unwrap();
        w.flush().unwrap();
    }

    pub fn pid(&self) -> i32 {
        self.child.process_id().expect("a pid") as i32
    }

    pub fn signal(&self, sig: i32) {
        // SAFETY: kill() only sends a signal to our own child process.
        let r = unsafe { libc::kill(self.pid(), sig) };
        assert_eq!(r, 0, "kill failed");
    }

    /// Waits for the child to exit (bounded), then for its last bytes to arrive.
    pub fn wait_exit(&mut self) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                std::thread::sleep(Duration::from_millis(200));
                return status;
            }
            assert!(
                start.elapsed() < LIMIT,
                "crmdash did not exit; screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The pty's line discipline settings (the slave's, read through the master).
    pub fn termios(&self) -> libc::termios {
        let fd = self.master.as_raw_fd().expect("a master fd");
        // SAFETY: tcgetattr writes into the zeroed struct we own; fd is the open master.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            assert_eq!(libc::tcgetattr(fd, &mut t), 0, "tcgetattr");
            t
        }
    }

    /// Raw mode is off: canonical input and echo are on.
    pub fn cooked(&self) -> bool {
        let t = self.termios();
        t.c_lflag & libc::ICANON != 0 && t.c_lflag & libc::ECHO != 0
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// Where `needle` last occurs in `hay`.
pub fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}
