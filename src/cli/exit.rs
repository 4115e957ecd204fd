//! Exit codes of the scriptable CLI, the error type commands return, and how it is printed:
//! `error: <message>` then one line per field error, on stderr, never a backtrace.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

use crate::api::{ApiError, ErrorKind};
use crate::config::ConfigError;
use crate::credentials::CredentialError;

/// The documented exit codes as numbers (login/logout/auth speak these).
pub const OK: u8 = 0;
pub const OTHER: u8 = 1;
pub const USAGE: u8 = 2;
pub const UNAUTHORIZED: u8 = 3;
pub const NOT_FOUND: u8 = 4;
pub const REJECTED: u8 = 5;
pub const NETWORK: u8 = 6;
pub const MIRROR_DAMAGED: u8 = 7;
pub const REFUSED_BY_PROFILE: u8 = 8;
pub const IN_DOUBT: u8 = 9;
pub const MIRROR_INCOMPLETE: u8 = 10;
pub const NOT_JOURNALED: u8 = 11;

/// Shown at the end of the top-level `--help` (and in docs/command-line.md).
pub const EXIT_CODES_HELP: &str = "\
Exit codes:
  0  success
  1  other error (cancelled, configuration such as no base URL, a redirect not
     followed, local I/O)
  2  usage: unknown option, invalid choice, missing argument
     (also: appointments reschedule without a terminal and without --yes)
  3  unauthorized or forbidden: the token was rejected (run `crmdash login`)
  4  not found
  5  rejected input: refused before sending (page, per_page, time, email, phone,
     nothing to create), the server's 400/409/422, or a duplicate found
  6  network, server or rate-limit error after retries, or an undecodable response
  7  the local mirror is damaged (search, deals summary): `crmdash sync` moves it
     aside and rebuilds it
  8  refused by the profile's safety: a write to a read_only profile, or to a
     protected one without --yes and --profile NAME; nothing was sent
  9  a reschedule plan left rows in doubt: sent by a run stopped before their answer,
     not sent again (check them, then --resend-in-doubt)
  10 --source mirror without a complete copy of the resource in the local mirror
     (none yet, or a sync under way or stopped half way): run `crmdash sync`
  11 the write journal could not record a write before it left (no data
     directory, a full disk, no permission): nothing was sent
  128+N  ended by signal N (the dashboard restores the terminal first)";

/// The documented exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    Other = 1,
    Usage = 2,
    Auth = 3,
    NotFound = 4,
    Rejected = 5,
    Unavailable = 6,
    MirrorDamaged = 7,
    /// A write refused by the profile's `read_only` or `protected` flag.
    RefusedByProfile = 8,
    /// A reschedule plan's rows whose outcome is unknown were not sent again.
    InDoubt = 9,
    /// `--source mirror` without a complete copy of the resource in the mirror.
    MirrorIncomplete = 10,
    /// The write journal could not record a write's intent: it was not sent.
    NotJournaled = 11,
    /// Ended by SIGINT (128 + 2).
    Interrupted = 130,
    /// Ended by SIGTERM (128 + 15).
    Terminated = 143,
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e as u8)
    }
}

/// Why a command failed. Each variant knows its exit code.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Refused by crmdash before anything was sent (exit 5). `fields`: (field, message), in order.
    #[error("{message}")]
    Invalid {
        message: String,
        fields: Vec<(String, String)>,
    },
    /// A contact with this email exists already (exit 5).
    #[error("{0}")]
    Duplicate(String),
    /// The command line is usable only with more options (exit 2).
    #[error("{0}")]
    Usage(String),
    /// The API call failed; the exit code follows its kind.
    #[error(transparent)]
    Api(#[from] ApiError),
    /// Anything else (exit 1).
    #[error("{0}")]
    Other(String),
    /// A failure that already knows its exit code (profiles, credentials).
    #[error("{}", .0.message)]
    Coded(Failure),
    /// A write the profile's safety flags refused before anything was read or sent (exit 8).
    #[error(transparent)]
    Refused(#[from] crate::safety::Refusal),
    /// A write whose intent the write journal could not record: not sent (exit 11).
    #[error("{0}")]
    NotJournaled(String),
}

impl From<crate::gate::GateError> for CliError {
    fn from(e: crate::gate::GateError) -> Self {
        match e {
            crate::gate::GateError::Refused(r) => CliError::Refused(r),
            e @ crate::gate::GateError::NotJournaled(_) => CliError::NotJournaled(e.to_string()),
        }
    }
}

/// A failed command: the one line to print and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    pub fn new(code: u8, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
        }
    }
}

/// Exit code of an API error class, as a number.
pub fn api_exit_code(e: &ApiError) -> u8 {
    exit_for_api(e) as u8
}

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Self {
        Failure::new(api_exit_code(&e), e.to_string())
    }
}

impl From<ConfigError> for Failure {
    fn from(e: ConfigError) -> Self {
        let code = match e {
            // No base URL anywhere is a configuration problem (exit 1, as documented).
            ConfigError::NoBaseUrl { .. } => OTHER,
            ConfigError::BadProfileName { .. } => USAGE,
            ConfigError::BadBaseUrl { .. } => REJECTED,
            ConfigError::File { .. } => OTHER,
        };
        Failure::new(code, e.to_string())
    }
}

impl From<CredentialError> for Failure {
    fn from(e: CredentialError) -> Self {
        let code = match e {
            CredentialError::NotLoggedIn { .. }
            | CredentialError::BaseUrlMismatch { .. }
            | CredentialError::NoSavedBaseUrl { .. } => UNAUTHORIZED,
            CredentialError::EmptyToken | CredentialError::MalformedToken => REJECTED,
            _ => OTHER,
        };
        Failure::new(code, e.to_string())
    }
}

impl From<Failure> for CliError {
    fn from(f: Failure) -> Self {
        CliError::Coded(f)
    }
}

impl From<ConfigError> for CliError {
    fn from(e: ConfigError) -> Self {
        CliError::Coded(e.into())
    }
}

impl From<CredentialError> for CliError {
    fn from(e: CredentialError) -> Self {
        CliError::Coded(e.into())
    }
}

impl CliError {
    pub fn invalid(message: impl Into<String>) -> Self {
        CliError::Invalid {
            message: message.into(),
            fields: Vec::new(),
        }
    }

    /// A refusal of one option or field, before anything is sent.
    pub fn field(field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        CliError::Invalid {
            fields: vec![(field.to_string(), message.clone())],
            message,
        }
    }

    pub fn other(message: impl std::fmt::Display) -> Self {
        CliError::Other(message.to_string())
    }

    pub fn exit(&self) -> Exit {
        match self {
            CliError::Invalid { .. } | CliError::Duplicate(_) => Exit::Rejected,
            CliError::Usage(_) => Exit::Usage,
            CliError::Api(e) => exit_for_api(e),
            CliError::Other(_) => Exit::Other,
            CliError::Refused(_) => Exit::RefusedByProfile,
            CliError::NotJournaled(_) => Exit::NotJournaled,
            CliError::Coded(f) => match f.code {
                0 => Exit::Ok,
                2 => Exit::Usage,
                3 => Exit::Auth,
                4 => Exit::NotFound,
                5 => Exit::Rejected,
                6 => Exit::Unavailable,
                7 => Exit::MirrorDamaged,
                8 => Exit::RefusedByProfile,
                9 => Exit::InDoubt,
                10 => Exit::MirrorIncomplete,
                11 => Exit::NotJournaled,
                130 => Exit::Interrupted,
                143 => Exit::Terminated,
                _ => Exit::Other,
            },
        }
    }

    /// Field errors to print under the message.
    pub fn field_errors(&self) -> Vec<(String, String)> {
        let all: Vec<(String, String)> = match self {
            CliError::Invalid { fields, .. } => fields.clone(),
            CliError::Api(e) => flatten_fields(&e.field_errors),
            _ => return Vec::new(),
        };
        let message = self.to_string();
        // A refusal naming one field already says it in the message.
        all.into_iter().filter(|(_, m)| *m != message).collect()
    }

    /// Prints `error: <message>` and the field errors to stderr.
    pub fn report(&self) {
        let mut err = crate::output::stderr();
        let _ = writeln!(err, "error: {}", one_line(&self.to_string()));
        for (field, msg) in self.field_errors() {
            let _ = writeln!(err, "  {field}: {}", one_line(&msg));
        }
    }
}

/// `{field: [messages]}` as (field, message) pairs.
pub fn flatten_fields(map: &BTreeMap<String, Vec<String>>) -> Vec<(String, String)> {
    map.iter()
        .flat_map(|(f, msgs)| msgs.iter().map(move |m| (f.clone(), m.clone())))
        .collect()
}

/// Fields whose refusal is a setup problem rather than rejected input. (A bad base URL counts
/// as rejected input, as `login` has it.)
const SETUP_FIELDS: &[&str] = &["token", "ca_file"];

/// The exit code of a failed API call.
pub fn exit_for_api(e: &ApiError) -> Exit {
    match e.kind {
        ErrorKind::InvalidRequest => {
            if e.field_errors
                .keys()
                .any(|f| SETUP_FIELDS.contains(&f.as_str()))
            {
                Exit::Other
            } else {
                Exit::Rejected
            }
        }
        ErrorKind::Unauthorized | ErrorKind::Forbidden => Exit::Auth,
        ErrorKind::NotFound => Exit::NotFound,
        ErrorKind::Validation | ErrorKind::Conflict => Exit::Rejected,
        ErrorKind::RateLimited
        | ErrorKind::Server
        | ErrorKind::Network
        | ErrorKind::Timeout
        | ErrorKind::BadResponse => Exit::Unavailable,
        ErrorKind::Redirect | ErrorKind::Other => Exit::Other,
        ErrorKind::NotJournaled => Exit::NotJournaled,
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_kinds_map_onto_documented_codes() {
        let code = |k| exit_for_api(&ApiError::new(k, "x")) as u8;
        assert_eq!(code(ErrorKind::Unauthorized), 3);
        assert_eq!(code(ErrorKind::Forbidden), 3);
        assert_eq!(code(ErrorKind::NotFound), 4);
        assert_eq!(code(ErrorKind::Validation), 5);
        assert_eq!(code(ErrorKind::Conflict), 5);
        assert_eq!(code(ErrorKind::InvalidRequest), 5);
        assert_eq!(code(ErrorKind::RateLimited), 6);
        assert_eq!(code(ErrorKind::Server), 6);
        assert_eq!(code(ErrorKind::Network), 6);
        assert_eq!(code(ErrorKind::Timeout), 6);
        assert_eq!(code(ErrorKind::BadResponse), 6);
        assert_eq!(code(ErrorKind::Other), 1);
    }

    #[test]
    fn a_bad_ca_file_is_a_setup_error_not_rejected_input() {
        let e = ApiError::invalid_request("ca_file", "cannot read CA file");
        assert_eq!(exit_for_api(&e), Exit::Other);
        let e = ApiError::invalid_request("per_page", "per_page must be between 1 and 100");
        assert_eq!(exit_for_api(&e), Exit::Rejected);
    }

    #[test]
    fn a_field_error_repeating_the_message_is_not_printed_twice() {
        let e = CliError::Api(ApiError::invalid_request("per_page", "too big"));
        assert!(e.field_errors().is_empty());
        let e = CliError::Invalid {
            message: "the contact is not valid".into(),
            fields: vec![("email".to_string(), "is not valid".to_string())],
        };
        assert_eq!(
            e.field_errors(),
            vec![("email".to_string(), "is not valid".to_string())]
        );
    }
}
