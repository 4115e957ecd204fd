//! Opening a URL in the browser for `o`: the configured opener (`[ui] opener`), else
//! `xdg-open` (`open` on macOS). Where no browser can start (an SSH session without
//! `DISPLAY` or `WAYLAND_DISPLAY`, an opener that fails), the URL is shown instead so it can
//! be copied. Only the URL is passed: no token, no headers, and an environment without
//! the token ([`crate::child::command`]).

use std::process::Stdio;

/// How `o` opens URLs here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opener {
    /// Program and leading arguments; the URL is added last.
    pub command: Vec<String>,
    /// Whether the user chose it (`[ui] opener`): then it is run even without a display.
    pub configured: bool,
    /// Whether a graphical session is reachable (`DISPLAY`, `WAYLAND_DISPLAY`, macOS).
    pub display: bool,
}

impl Opener {
    /// From `[ui] opener` and the environment.
    pub fn from_settings(opener: Option<&str>) -> Opener {
        let configured: Vec<String> = opener
            .map(|o| o.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        let display = cfg!(target_os = "macos")
            || ["DISPLAY", "WAYLAND_DISPLAY"]
                .iter()
                .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()));
        let default = if cfg!(target_os = "macos") {
            "open"
        } else {
            "xdg-open"
        };
        Opener {
            configured: !configured.is_empty(),
            command: if configured.is_empty() {
                vec![default.to_string()]
            } else {
                configured
            },
            display,
        }
    }

    /// Whether a browser can be started here: an opener chosen by the user always runs.
    pub fn can_open(&self) -> bool {
        self.configured || self.display
    }

    /// Starts the opener with `url`; why it could not, if it could not.
    pub fn open(&self, url: &str) -> Result<(), String> {
        if !self.can_open() {
            return Err(
                "No browser can be started here (no DISPLAY or WAYLAND_DISPLAY: an SSH session?), so the address below was copied to the clipboard. Set [ui] opener to choose a program."
                    .into(),
            );
        }
        let (program, args) = self
            .command
            .split_first()
            .ok_or_else(|| "No opener is set ([ui] opener).".to_string())?;
        // Through the one door for children: no token in its environment.
        let mut child = crate::child::command(program)
            .args(args)
            .arg(url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| {
                format!("Cannot start {program}: {e}. Set [ui] opener to choose a program.")
            })?;
        // Reaped off the loop so no zombie is left; its exit status is not waited on.
        std::thread::spawn(move || child.wait());
        Ok(())
    }
}
