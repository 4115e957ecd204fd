//! The terminal's modes: raw mode, alternate screen, bracketed paste and (optionally) mouse
//! capture on entry; all of them undone on exit, on panic (a hook restores before the message
//! is printed) and around a `Ctrl-Z` suspend. OSC 52 clipboard writes.

use std::io::{self, Stdout, Write};
use std::sync::Once;

use base64::Engine as _;
use crossterm::cursor::Show;
use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

pub type Term = Terminal<CrosstermBackend<Stdout>>;

static HOOK: Once = Once::new();

/// Switches the terminal to the dashboard's modes and installs the panic hook.
pub fn enter(mouse: bool) -> io::Result<Term> {
    install_panic_hook();
    set_modes(mouse)?;
    let mut term = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    term.clear()?;
    Ok(term)
}

fn set_modes(mouse: bool) -> io::Result<()> {
    enable_raw_mode()?;
    let mut out = io::stdout();
    execute!(out, EnterAlternateScreen, EnableBracketedPaste)?;
    if mouse {
        execute!(out, EnableMouseCapture)?;
    }
    Ok(())
}

/// Undoes everything `enter` did. Safe to call more than once, and when nothing was set.
pub fn restore() -> io::Result<()> {
    let mut out = io::stdout();
    // Each step runs even when an earlier one fails: a half-restored terminal is the worst case.
    let r1 = execute!(out, DisableMouseCapture, DisableBracketedPaste);
    let r2 = execute!(out, LeaveAlternateScreen, Show);
    let r3 = disable_raw_mode();
    let _ = out.flush();
    r1.and(r2).and(r3)
}

/// Restores the terminal before the default hook prints the panic, so the message is
/// readable and the shell usable.
pub fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let _ = restore();
            previous(info);
        }));
    });
}

/// `Ctrl-Z`: restores the terminal, stops the process (SIGTSTP, as the shell expects), and
/// when continued (`fg`) sets the modes again and redraws everything.
pub fn suspend(term: &mut Term, mouse: bool) -> io::Result<()> {
    restore()?;
    // SAFETY: raise() only delivers a signal to this process; the default action of SIGTSTP
    // stops it until SIGCONT, after which the call returns.
    unsafe {
        libc::raise(libc::SIGTSTP);
    }
    set_modes(mouse)?;
    term.clear()
}

/// The OSC 52 sequence that puts `text` on the clipboard of the terminal (works over SSH).
pub fn osc52(text: &str) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("\x1b]52;c;{b64}\x07")
}

pub fn copy_to_clipboard(text: &str) -> io::Result<()> {
    let mut out = io::stdout();
    out.write_all(osc52(text).as_bytes())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    #[test]
    fn osc52_encodes_text() {
        assert_eq!(super::osc52("hi"), "\x1b]52;c;aGk=\x07");
    }
}
