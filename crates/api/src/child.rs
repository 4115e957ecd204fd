//! Every program crmdash starts (the `[ui] opener` today; `watch --exec` and user actions as
//! they come) is made by [`command`]: it gets crmdash's environment without `CRMDASH_TOKEN`
//! and without any variable whose value holds a token crmdash knows. No other code may call
//! `std::process::Command::new` for a child program.

use std::ffi::{OsStr, OsString};
use std::process::Command;
use std::sync::Mutex;

use secrecy::{ExposeSecret, SecretString};

/// The variable a token can be given in.
pub const TOKEN_VAR: &str = "CRMDASH_TOKEN";

/// Tokens this process holds (every API client registers its own), scrubbed from children.
static SECRETS: Mutex<Vec<SecretString>> = Mutex::new(Vec::new());

/// Remembers `token` so no child gets a variable holding it, and makes the process not
/// dumpable while it holds one: no core file, no ptrace by another process of the user, and
/// `/proc/PID/mem` and `environ` readable by root only.
pub fn register_secret(token: &SecretString) {
    let t = token.expose_secret().trim();
    if t.is_empty() {
        return;
    }
    not_dumpable();
    let mut known = SECRETS.lock().unwrap_or_else(|e| e.into_inner());
    if !known.iter().any(|k| k.expose_secret() == t) {
        known.push(SecretString::from(t.to_string()));
    }
}

/// `prctl(PR_SET_DUMPABLE, 0)` on Linux (elsewhere nothing).
fn not_dumpable() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_DUMPABLE takes one integer argument and touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
}

/// Whether the process may be dumped (Linux; elsewhere `true`).
pub fn dumpable() -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_GET_DUMPABLE takes no pointer and returns the flag.
    unsafe {
        libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) != 0
    }
    #[cfg(not(target_os = "linux"))]
    true
}

/// A command for `program` whose environment is this process's, scrubbed (see [`scrub`]).
pub fn command(program: impl AsRef<OsStr>) -> Command {
    let mut secrets: Vec<String> = SECRETS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|s| s.expose_secret().to_string())
        .collect();
    if let Some(t) = std::env::var_os(TOKEN_VAR) {
        secrets.push(t.to_string_lossy().trim().to_string());
    }
    let mut cmd = Command::new(program);
    cmd.env_clear().envs(scrub(std::env::vars_os(), &secrets));
    cmd
}

/// `vars` without `CRMDASH_TOKEN` and without any variable whose value holds one of
/// `secrets` (whole, or inside a longer value such as `Bearer TOKEN`).
pub fn scrub(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
    secrets: &[String],
) -> Vec<(OsString, OsString)> {
    let secrets: Vec<&str> = secrets
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect();
    vars.into_iter()
        .filter(|(k, v)| {
            if k == TOKEN_VAR {
                return false;
            }
            let v = v.to_string_lossy();
            !secrets.iter().any(|s| v.contains(s))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_holding_a_token_is_not_dumpable() {
        register_secret(&SecretString::from("t0ken-for-dumpable".to_string()));
        assert!(!dumpable(), "a core file or ptrace could read the token");
    }

    fn vars(list: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        list.iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .collect()
    }

    #[test]
    fn the_token_variable_and_any_holding_a_token_are_dropped() {
        let secret = "tok-Abc123-secret".to_string();
        let kept = scrub(
            vars(&[
                ("PATH", "/bin"),
                ("CRMDASH_TOKEN", "anything"),
                ("MY_CRM", "tok-Abc123-secret"),
                ("AUTH_HEADER", "Bearer tok-Abc123-secret"),
                ("HOME", "/home/u"),
            ]),
            &[secret],
        );
        let names: Vec<_> = kept.iter().map(|(k, _)| k.to_string_lossy()).collect();
        assert_eq!(names, ["PATH", "HOME"]);
    }

    #[test]
    fn a_child_started_here_has_no_registered_token_in_its_environment() {
        // A token no other test uses; the variable holding it is given to the command the
        // way a parent's environment would be (set on the Command, then scrubbed again).
        let token = "child-test-Tok3n-q8w7e6r5";
        register_secret(&SecretString::from(token.to_string()));
        let dir = tempfile::tempdir().unwrap();
        let dump = dir.path().join("env.txt");
        let mut cmd = command("sh");
        let inherited: Vec<(OsString, OsString)> = cmd
            .get_envs()
            .filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned())))
            .collect();
        assert!(!inherited.is_empty(), "the environment is passed on");
        assert!(
            inherited
                .iter()
                .all(|(k, v)| k != TOKEN_VAR && !v.to_string_lossy().contains(token)),
            "{inherited:?}"
        );
        let status = cmd
            .arg("-c")
            .arg(format!("env > '{}'", dump.display()))
            .status()
            .unwrap();
        assert!(status.success());
        let seen = std::fs::read_to_string(&dump).unwrap();
        assert!(seen.contains("PATH="), "{seen}");
        assert!(
            !seen.contains(token) && !seen.contains("CRMDASH_TOKEN="),
            "{seen}"
        );
    }
}
