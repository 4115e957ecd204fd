//! Shared harness of the CLI integration tests: an in-process sandbox on 127.0.0.1 port 0 and
//! the real `crmdash` binary run against it, with config, data and keyring paths in a tempdir.

#![allow(dead_code)]

use std::path::PathBuf;

use assert_cmd::Command;
use crmdash::sandbox::{FaultKind, FaultRule, Sandbox, SandboxConfig, SandboxHandle};

pub struct Env {
    pub sb: SandboxHandle,
    pub dir: tempfile::TempDir,
    // Serves the sandbox while the binary runs in a child process.
    pub rt: tokio::runtime::Runtime,
}

impl Env {
    pub fn new() -> Env {
        Env::with(SandboxConfig::default())
    }

    pub fn with(cfg: SandboxConfig) -> Env {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let sb = rt.block_on(Sandbox::start(cfg)).expect("sandbox starts");
        let dir = tempfile::tempdir().expect("tempdir");
        Env { sb, dir, rt }
    }

    pub fn config_path(&self) -> PathBuf {
        self.dir.path().join("config.toml")
    }

    /// Writes the config file crmdash reads (CRMDASH_CONFIG points here).
    pub fn write_config(&self, text: &str) {
        std::fs::write(self.config_path(), text).expect("config written");
    }

    /// `crmdash --base-url <sandbox> ARGS...` with the sandbox token in CRMDASH_TOKEN.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = self.bare();
        c.env("CRMDASH_TOKEN", self.sb.token());
        c.arg("--base-url").arg(self.sb.base_url());
        c.args(args);
        c
    }

    /// The binary with a clean environment and no arguments.
    pub fn bare(&self) -> Command {
        Command::from_std(self.bare_std())
    }

    /// [`Env::bare`] as a `std::process::Command` (to run it in the background, or to read
    /// its output as it comes).
    pub fn bare_std(&self) -> std::process::Command {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_crmdash"));
        let d = self.dir.path();
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", d)
            .env("XDG_CONFIG_HOME", d.join("xdg-config"))
            .env("XDG_DATA_HOME", d.join("xdg-data"))
            .env("XDG_STATE_HOME", d.join("xdg-state"))
            .env("XDG_CACHE_HOME", d.join("xdg-cache"))
            .env("CRMDASH_CONFIG", self.config_path())
            .env("NO_COLOR", "1")
            .env("TZ", "UTC")
            // No D-Bus session: nothing may reach a real keyring.
            .env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent")
            .current_dir(d);
        c
    }

    pub fn fault(&self, rule: FaultRule) {
        self.sb.faults().add(rule);
    }

    /// Requests the sandbox received with this method and path prefix (under /public/v1).
    pub fn requests_to(&self, method: &str, path: &str) -> Vec<crmdash::sandbox::RecordedRequest> {
        let full = format!("/public/v1/{path}");
        self.sb
            .requests()
            .into_iter()
            .filter(|r| r.method == method && r.path.starts_with(&full))
            .collect()
    }

    /// A GET straight to the sandbox (not through crmdash): the server's exact bytes.
    pub fn raw_get(&self, path_and_query: &str) -> String {
        let url = format!("{}/public/v1/{path_and_query}", self.sb.base_url());
        let token = self.sb.token();
        self.rt.block_on(async move {
            reqwest::Client::new()
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .expect("GET")
                .text()
                .await
                .expect("body")
        })
    }
}

/// What a finished run printed, and its exit code.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn run(mut cmd: impl std::borrow::BorrowMut<Command>) -> Run {
    let out = cmd.borrow_mut().output().expect("crmdash runs");
    Run {
        code: out.status.code().expect("exited normally, not by a signal"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

impl Run {
    /// Asserts the exit code, showing both streams when it differs.
    pub fn code(self, expected: i32) -> Run {
        assert_eq!(
            self.code, expected,
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// The error contract: `error: ...` first on stderr, no panic or backtrace.
    pub fn error_line(&self) -> &str {
        assert!(!self.stderr.contains("panicked"), "{}", self.stderr);
        assert!(!self.stderr.contains("RUST_BACKTRACE"), "{}", self.stderr);
        let first = self.stderr.lines().next().unwrap_or_default();
        assert!(first.starts_with("error: "), "stderr: {}", self.stderr);
        first
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {}", self.stdout))
    }
}

pub fn fault(kind: FaultKind) -> FaultRule {
    FaultRule::new(kind)
}
