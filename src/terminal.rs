//! The terminal's modes: raw mode, alternate screen, bracketed paste and (optionally) mouse
//! capture on entry; all of them undone on exit, on panic (a hook restores before the message
//! is printed) and around a `Ctrl-Z` suspend. OSC 52 clipboard writes. Frames reach the
//! terminal in one `write(2)` each ([`FrameWriter`]). Keys are read on the runtime's own
//! thread ([`Events`]), and the size a frame is drawn at is the one the terminal last reported
//! ([`FrameBackend`]): a key costs one wake-up and no system call before its frame is written.

use std::io::{self, Write};
use std::pin::Pin;
use std::sync::Once;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use base64::Engine as _;
use crossterm::cursor::Show;
use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture, Event,
    EventStream,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use futures::Stream;
use ratatui::Terminal;
use ratatui::backend::{Backend, ClearType, CrosstermBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Rect, Size};

pub type Term = Terminal<FrameBackend>;

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

/// The terminal's size as it last reported it (columns in the high half, rows in the low;
/// 0 before the first query): set when the dashboard takes the terminal and by every resize
/// event, read by [`FrameBackend::size`] at each frame.
static SIZE: AtomicU32 = AtomicU32::new(0);

fn remember_size(cols: u16, rows: u16) {
    SIZE.store((u32::from(cols) << 16) | u32::from(rows), Ordering::Relaxed);
}

/// Asks the terminal for its size (crossterm opens `/dev/tty` for it) and remembers it.
fn query_size() -> io::Result<Size> {
    let (cols, rows) = crossterm::terminal::size()?;
    remember_size(cols, rows);
    Ok(Size::new(cols, rows))
}

/// Crossterm's backend over a [`FrameWriter`], except for the size: ratatui asks for it before
/// every frame, and crossterm would open `/dev/tty` and close it again each time to ask the
/// terminal. The size only changes with a resize event, which [`Events`] passes on here.
#[derive(Debug)]
pub struct FrameBackend {
    inner: CrosstermBackend<FrameWriter>,
}

impl Backend for FrameBackend {
    type Error = io::Error;

    fn draw<'a, I>(&mut self, content: I) -> io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.inner.draw(content)
    }
    fn append_lines(&mut self, n: u16) -> io::Result<()> {
        self.inner.append_lines(n)
    }
    fn hide_cursor(&mut self) -> io::Result<()> {
        self.inner.hide_cursor()
    }
    fn show_cursor(&mut self) -> io::Result<()> {
        self.inner.show_cursor()
    }
    fn get_cursor_position(&mut self) -> io::Result<Position> {
        self.inner.get_cursor_position()
    }
    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> io::Result<()> {
        self.inner.set_cursor_position(position)
    }
    fn clear(&mut self) -> io::Result<()> {
        self.inner.clear()
    }
    fn clear_region(&mut self, clear_type: ClearType) -> io::Result<()> {
        self.inner.clear_region(clear_type)
    }
    fn size(&self) -> io::Result<Size> {
        match SIZE.load(Ordering::Relaxed) {
            0 => query_size(),
            packed => Ok(Size::new((packed >> 16) as u16, packed as u16)),
        }
    }
    fn window_size(&mut self) -> io::Result<WindowSize> {
        self.inner.window_size()
    }
    fn flush(&mut self) -> io::Result<()> {
        Backend::flush(&mut self.inner)
    }
}

/// Switches the terminal to the dashboard's modes and installs the panic hook.
pub fn enter(mouse: bool) -> io::Result<Term> {
    install_panic_hook();
    set_modes(mouse)?;
    let mut term = Terminal::new(FrameBackend {
        inner: CrosstermBackend::new(FrameWriter::default()),
    })?;
    clear(&mut term)?;
    Ok(term)
}

/// Clears the screen and forgets the last frame, so the next draw paints every cell.
/// `Terminal::clear` would first ask the terminal where its cursor is (`ESC [ 6 n`) and wait
/// for the answer (up to 2 s from a terminal that does not answer); a full-screen viewport
/// has nothing to restore it to, and `resize` clears the same way without asking. The clear
/// leaves with the next frame, in the same write. The size is asked afresh: the terminal may
/// have changed while another program had it.
fn clear(term: &mut Term) -> io::Result<()> {
    let size = query_size()?;
    term.resize(Rect::from((Position::ORIGIN, size)))
}

/// The terminal's events (keys, mouse, paste, resize) as a stream.
///
/// When standard input is the terminal (crossterm then reads it), the runtime watches it
/// itself and crossterm parses what is there on the runtime's thread: a key wakes one thread,
/// the one that draws. Crossterm's own `EventStream` waits on a thread of its own, which then
/// wakes the runtime, and the two take turns at crossterm's reader lock; that hop was a good
/// part of a key's way to its frame. A resize wakes the stream through `SIGWINCH` (crossterm
/// reads the new size from its own signal pipe). Otherwise (crossterm reads `/dev/tty`, which
/// it opens itself) this is crossterm's `EventStream`.
pub enum Events {
    Direct {
        stdin: tokio::io::unix::AsyncFd<Stdin>,
        winch: tokio::signal::unix::Signal,
        /// Whether crossterm may have something to give (input was seen, or its last answer
        /// was an event and more may be queued): it is asked only then, so polling the stream
        /// when nothing happened costs no system call.
        maybe: bool,
        /// A resize was signalled that crossterm has not reported (see [`nudge_stdin`]).
        resized: bool,
        /// Crossterm's last event was a resize: input may wait that it will not read (see
        /// [`nudge_stdin`]).
        after_resize: bool,
    },
    Thread(EventStream),
}

/// Standard input's descriptor, watched (never read nor closed) by [`Events`].
pub struct Stdin;

impl std::os::fd::AsRawFd for Stdin {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        libc::STDIN_FILENO
    }
}

/// The dashboard's events; must be called inside the runtime.
pub fn events() -> Events {
    use std::io::IsTerminal;
    let direct = || -> io::Result<Events> {
        // SAFETY: descriptor 0 stays open, on the same file description, for the whole run:
        // nothing in the program closes or replaces standard input.
        let stdin = unsafe {
            tokio::io::unix::AsyncFd::register_with_interest(Stdin, tokio::io::Interest::READABLE)
        }?;
        let winch = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::window_change())?;
        Ok(Events::Direct {
            stdin,
            winch,
            maybe: true,
            resized: false,
            after_resize: false,
        })
    };
    match io::stdin().is_terminal().then(direct) {
        Some(Ok(events)) => events,
        _ => Events::Thread(EventStream::new()),
    }
}

/// What standard input holds right now, asked of the terminal itself (level, not edge).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Input {
    Nothing,
    /// Bytes wait to be read.
    Waiting,
    /// The terminal hung up (its other end closed: `POLLHUP`, or an error).
    HungUp,
}

fn stdin_state() -> Input {
    let mut fd = libc::pollfd {
        fd: libc::STDIN_FILENO,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid `pollfd` for an open descriptor, and no wait.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    if ready <= 0 {
        Input::Nothing
    } else if fd.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
        Input::HungUp
    } else if fd.revents & libc::POLLIN != 0 {
        Input::Waiting
    } else {
        Input::Nothing
    }
}

/// Wakes the terminal's readers without changing anything: what crossterm can lose, and how
/// [`Events`] gets it back.
///
/// Crossterm waits on the terminal and on its `SIGWINCH` pipe with one edge-triggered `epoll`,
/// and returns the first event it finds in a wake-up: when a resize and a key are ready in the
/// same one, the other's readiness is dropped. A key left so stays unread until more input
/// comes (crossterm is never told again that it is there); a resize left so is never reported.
/// So: after crossterm reports a resize, when it says it has nothing while the terminal still
/// holds input, the terminal's settings are set again, unchanged (`tcsetattr`): the kernel
/// wakes whoever waits to read it, which gives crossterm a new edge, and it reads the key. A
/// resize signalled (to the runtime) that crossterm did not report is reported from the
/// terminal's size.
/// (Level-checked first with [`stdin_state`]; at most once per poll of the stream.)
fn nudge_stdin() {
    // SAFETY: `termios` is plain data, filled by `tcgetattr` before it is used; descriptor 0
    // is the terminal (checked when the stream was made).
    unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        if libc::tcgetattr(libc::STDIN_FILENO, &mut t) == 0 {
            libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &t);
        }
    }
}

impl Stream for Events {
    type Item = io::Result<Event>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let (stdin, winch, maybe, resized, after_resize) = match self.get_mut() {
            Events::Thread(stream) => return Pin::new(stream).poll_next(cx),
            Events::Direct {
                stdin,
                winch,
                maybe,
                resized,
                after_resize,
            } => (stdin, winch, maybe, resized, after_resize),
        };
        // Whether standard input said it was readable in this call, and whether the terminal
        // was nudged in it (once at most: see `nudge_stdin`).
        let (mut woke, mut nudged) = (false, false);
        loop {
            if *maybe {
                match crossterm::event::poll(Duration::ZERO) {
                    Ok(true) => {
                        let event = crossterm::event::read();
                        if let Ok(Event::Resize(cols, rows)) = event {
                            remember_size(cols, rows);
                            *resized = false;
                            *after_resize = true;
                        }
                        return Poll::Ready(Some(event));
                    }
                    Ok(false) => {
                        *maybe = false;
                        let state = if woke || *after_resize {
                            stdin_state()
                        } else {
                            Input::Nothing
                        };
                        // Readable with nothing to give: the terminal may have hung up (its
                        // readiness then never clears, and this loop would spin). The stream
                        // ends, as the dashboard's input has.
                        if woke && state == Input::HungUp {
                            return Poll::Ready(None);
                        }
                        // Input crossterm was not told of (see `nudge_stdin`).
                        if std::mem::take(after_resize) && state == Input::Waiting && !nudged {
                            nudged = true;
                            nudge_stdin();
                            *maybe = true;
                            continue;
                        }
                        if std::mem::take(resized)
                            && let Ok((cols, rows)) = crossterm::terminal::size()
                            && SIZE.load(Ordering::Relaxed)
                                != (u32::from(cols) << 16) | u32::from(rows)
                        {
                            remember_size(cols, rows);
                            return Poll::Ready(Some(Ok(Event::Resize(cols, rows))));
                        }
                    }
                    Err(e) => return Poll::Ready(Some(Err(e))),
                }
            }
            // Readiness is cleared before crossterm reads: input that comes after is a new
            // edge, and wakes the task again.
            match stdin.poll_read_ready(cx) {
                Poll::Ready(Ok(mut guard)) => {
                    if guard.ready().is_read_closed() {
                        return Poll::Ready(None);
                    }
                    guard.clear_ready();
                    *maybe = true;
                    woke = true;
                    continue;
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Some(Err(e))),
                Poll::Pending => {}
            }
            match winch.poll_recv(cx) {
                Poll::Ready(Some(())) => {
                    *maybe = true;
                    *resized = true;
                }
                Poll::Ready(None) | Poll::Pending => return Poll::Pending,
            }
        }
    }
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
