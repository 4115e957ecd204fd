//! `crmdash man DIR`: one man page per command and subcommand, generated from the clap tree, so
//! the pages say exactly what `--help` says and cannot drift from the program.

use std::path::{Path, PathBuf};

use clap::Args;

use super::CliError;

/// `crmdash man`.
#[derive(Debug, Clone, Args)]
#[command(after_help = MAN_EXAMPLES)]
pub struct ManArgs {
    /// The directory to write the pages into (created if missing; pages of the same name are
    /// replaced).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

const MAN_EXAMPLES: &str = "\
Examples:
  crmdash man ~/.local/share/man/man1     # then: man crmdash-deals-list
  crmdash man /tmp/crmdash-man && man -l /tmp/crmdash-man/crmdash.1";

/// Writes `crmdash.1` and one `crmdash-<command>[-<subcommand>].1` per visible command of `cmd`
/// into `dir`, and returns their paths, parents before children.
pub fn write_pages(cmd: clap::Command, dir: &Path) -> Result<Vec<PathBuf>, CliError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::other(format!("cannot create {}: {e}", dir.display())))?;
    // Built once from the root so every subcommand's display name is the whole path
    // (`crmdash-deals-list`), which is the page's name and its file name.
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let mut written = Vec::new();
    write_tree(cmd, dir, &mut written)?;
    Ok(written)
}

fn write_tree(cmd: clap::Command, dir: &Path, written: &mut Vec<PathBuf>) -> Result<(), CliError> {
    let subs: Vec<clap::Command> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .cloned()
        .collect();
    let page = clap_mangen::Man::new(cmd);
    let path = page
        .generate_to(dir)
        .map_err(|e| CliError::other(format!("cannot write {}: {e}", page.get_filename())))?;
    written.push(path);
    for sub in subs {
        write_tree(sub, dir, written)?;
    }
    Ok(())
}
