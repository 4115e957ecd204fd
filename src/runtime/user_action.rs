//! Running a user action's programs (`[actions.NAME]`): in the terminal (`suspend`), the
//! dashboard stepped aside until they end; or in the background, output captured and the end
//! said in the status line. Every program starts through `child::command` (no token in its
//! environment).

use std::process::Stdio;

use tokio::sync::mpsc::UnboundedSender;

use crate::app::Message;
use crate::user_actions::command;

/// Runs each argv with the terminal; returns the status line's words and whether they are
/// an error.
pub fn run_in_terminal(name: &str, argvs: &[Vec<String>]) -> (String, bool) {
    for argv in argvs {
        match command(argv).status() {
            Ok(s) if s.success() => {}
            Ok(s) => return (format!("{name}: {} {}", argv[0], ended(s)), true),
            Err(e) => return (format!("{name}: cannot start {}: {e}", argv[0]), true),
        }
    }
    (format!("{name}: done"), false)
}

/// Runs each argv on the blocking pool, output captured; the end (and the first line the
/// program wrote) comes back as a notice.
pub fn run_in_background(name: String, argvs: Vec<Vec<String>>, tx: UnboundedSender<Message>) {
    tokio::task::spawn_blocking(move || {
        let mut last_line = String::new();
        for argv in &argvs {
            let out = command(argv)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .output();
            let out = match out {
                Ok(o) => o,
                Err(e) => {
                    let _ = tx.send(Message::Notice {
                        text: format!("{name}: cannot start {}: {e}", argv[0]),
                        error: true,
                    });
                    return;
                }
            };
            let text = |b: &[u8]| {
                String::from_utf8_lossy(b)
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or_default()
                    .trim()
                    .to_string()
            };
            if !out.status.success() {
                let why = text(&out.stderr);
                let _ = tx.send(Message::Notice {
                    text: format!("{name}: {} {}: {why}", argv[0], ended(out.status)),
                    error: true,
                });
                return;
            }
            last_line = text(&out.stdout);
        }
        let text = if last_line.is_empty() {
            format!("{name}: done")
        } else {
            format!("{name}: done: {last_line}")
        };
        let _ = tx.send(Message::Notice { text, error: false });
    });
}

fn ended(s: std::process::ExitStatus) -> String {
    match s.code() {
        Some(c) => format!("exited with {c}"),
        None => "was stopped by a signal".to_string(),
    }
}
