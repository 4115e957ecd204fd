//! The real binary in a terminal (tmux or a pseudo-terminal): the demo end to end, terminal
//! restore on signals and panics, and a whole session that never leaks the token.

#[path = "../cli/cli_support.rs"]
mod cli_support;
mod e2e;
mod exit;
mod first_run;
mod reliability_support;
mod restore;
mod scripts;
mod secrets;
