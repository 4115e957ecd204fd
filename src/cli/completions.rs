//! `crmdash completions bash|zsh|fish`: shell completion scripts generated from the clap tree.

use clap::Args;
use clap_complete::Shell;

/// `crmdash completions`.
#[derive(Debug, Clone, Args)]
#[command(after_help = COMPLETIONS_EXAMPLES)]
pub struct CompletionsArgs {
    /// The shell to generate for.
    #[arg(value_enum)]
    pub shell: Shell,
}

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  crmdash completions bash > ~/.local/share/bash-completion/completions/crmdash
  crmdash completions zsh > \"${fpath[1]}/_crmdash\"
  crmdash completions fish > ~/.config/fish/completions/crmdash.fish";

/// Writes the script for `shell` describing `cmd` to `out`.
pub fn write(shell: Shell, cmd: &mut clap::Command, out: &mut dyn std::io::Write) {
    let name = cmd.get_name().to_string();
    clap_complete::generate(shell, cmd, name, out);
}
