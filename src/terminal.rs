//! The terminal's modes: raw mode, alternate screen, bracketed paste and (optionally) mouse
//! capture on entry; all of them undone on exit, on panic (a hook restores before the message
//! is printed) and around a `Ctrl-Z` suspend. OSC 52 clipboard writes. Frames reach the
//! terminal in one `write(2)` each ([`FrameWriter`]).

use std::io::{self, Write};
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
use ratatui::layout::{Position, Rect};

pub type Term = Terminal<CrosstermBackend<FrameWriter>>;

static HOOK: Once = Once::new();

/// A frame's bytes, held until ratatui flushes the backend at the end of `draw`, then written
/// to stdout at once. Std's `Stdout` is a 1 KiB line buffer: a full redraw (10-40 KiB) would
/// leave in dozens of writes and the terminal would show half-drawn frames. Dropping the
/// writer discards what it holds, so nothing is written after a panic hook's restore.
#[derive(Debug, Default)]
pub struct FrameWriter {
    buf: Vec<u8>,
}

/// A frame larger than this (a huge terminal) does not keep its buffer between frames.
const KEEP_CAPACITY: usize = 256 * 1024;

impl Write for FrameWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let mut out = io::stdout().lock();
        let result = out.write_all(&self.buf).and_then(|()| out.flush());
        self.buf.clear();
        if self.buf.capacity() > KEEP_CAPACITY {
            self.buf.shrink_to(KEEP_CAPACITY);
        }
        result
    }
}

/// Switches the terminal to the dashboard's modes and installs the panic hook.
pub fn enter(mouse: bool) -> io::Result<Term> {
    install_panic_hook();
    set_modes(mouse)?;
    let mut term = Terminal::new(CrosstermBackend::new(FrameWriter::default()))?;
    clear(&mut term)?;
    Ok(term)
}

/// Clears the screen and forgets the last frame, so the next draw paints every cell.
/// `Terminal::clear` would first ask the terminal where its cursor is (`ESC [ 6 n`) and wait
/// for the answer (up to 2 s from a terminal that does not answer); a full-screen viewport
/// has nothing to restore it to, and `resize` clears the same way without asking. The clear
/// leaves with the next frame, in the same write.
fn clear(term: &mut Term) -> io::Result<()> {
    let size = term.size()?;
    term.resize(Rect::from((Position::ORIGIN, size)))
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
    clear(term)
}

/// Leaves the alternate screen and raw mode, runs `f` (a program that wants the terminal),
/// and takes the terminal back, clearing it for a full redraw.
pub fn hand_over<T>(term: &mut Term, mouse: bool, f: impl FnOnce() -> T) -> io::Result<T> {
    restore()?;
    let out = f();
    set_modes(mouse)?;
    clear(term)?;
    Ok(out)
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
    use std::io::Write;

    #[test]
    fn frame_writer_holds_a_frame_until_flushed() {
        let mut w = super::FrameWriter::default();
        w.write_all(b"\x1b[1;1Habc").unwrap();
        assert_eq!(w.write(b"de").unwrap(), 2);
        assert_eq!(w.buf, b"\x1b[1;1Habcde");
    }

    #[test]
    fn osc52_encodes_text() {
        assert_eq!(super::osc52("hi"), "\x1b]52;c;aGk=\x07");
    }
}
