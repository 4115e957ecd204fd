//! The `crmdash` binary's commands against the sandbox: lists, writes, setup, credentials, output,
//! bad input and the fault matrix.

mod appointments;
mod cli_support;
mod contacts;
mod credentials;
mod docs_examples;
mod hostile;
mod import;
mod input;
mod kit;
mod lists;
mod man;
mod misc;
mod output;
mod plan;
mod reliability;
mod reports;
mod safety;
mod scripting;
mod setup;
mod summary;
mod terminal;
mod trust;
mod tryout;
mod views;
