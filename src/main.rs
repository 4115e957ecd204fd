//! The `crmdash` binary: everything happens in `crmdash::cli::main`.

fn main() -> std::process::ExitCode {
    crmdash::cli::main()
}
