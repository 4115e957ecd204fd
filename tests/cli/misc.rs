//! Help texts, completions and usage errors of the `crmdash` binary (no service needed).

use crate::cli_support;

use cli_support::{Env, run};

const COMMANDS: &[&[&str]] = &[
    &[],
    &["contacts"],
    &["contacts", "list"],
    &["contacts", "create"],
    &["contacts", "import"],
    &["deals"],
    &["deals", "list"],
    &["projects"],
    &["projects", "list"],
    &["appointments"],
    &["appointments", "reschedule"],
    &["completions"],
    &["man"],
    &["sandbox"],
    &["login"],
    &["logout"],
    &["auth"],
    &["auth", "status"],
];

#[test]
fn every_help_shows_an_example() {
    let env = Env::new();
    for path in COMMANDS {
        let mut args: Vec<&str> = path.to_vec();
        args.push("--help");
        let out = run(env.bare().args(&args)).code(0);
        assert!(
            out.stdout.contains("Example"),
            "crmdash {}: {}",
            path.join(" "),
            out.stdout
        );
        assert!(out.stdout.contains("crmdash "), "{}", out.stdout);
    }
}

#[test]
fn top_level_help_documents_the_exit_codes() {
    let env = Env::new();
    let out = run(env.bare().arg("--help")).code(0);
    assert!(
        out.stdout.contains(crmdash::cli::EXIT_CODES_HELP),
        "{}",
        out.stdout
    );
}

#[test]
fn time_options_document_the_grammar() {
    let env = Env::new();
    let out = run(env.bare().args(["contacts", "list", "--help"])).code(0);
    assert!(out.stdout.contains("tomorrow 09:30"), "{}", out.stdout);
    let out = run(env.bare().args(["appointments", "reschedule", "--help"])).code(0);
    assert!(out.stdout.contains("start_field"), "{}", out.stdout);
}

#[test]
fn completions_are_generated_for_bash_zsh_and_fish() {
    let env = Env::new();
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef crmdash"),
        ("fish", "complete -c crmdash"),
    ] {
        let out = run(env.bare().args(["completions", shell])).code(0);
        assert!(
            out.stdout.contains(marker),
            "{shell}: {}",
            &out.stdout[..out.stdout.len().min(300)]
        );
        assert!(out.stdout.contains("reschedule"), "{shell}");
    }
    run(env.bare().args(["completions", "tcsh"])).code(2);
}

#[test]
fn usage_errors_exit_2() {
    let env = Env::new();
    run(env.bare().args(["contacts", "frobnicate"])).code(2);
    run(env.bare().args(["deals", "list", "--all", "--page", "2"])).code(2);
    run(env.bare().args(["contacts", "import"])).code(2);
}

#[test]
fn demo_runs_a_command_against_an_in_process_sandbox() {
    let env = Env::new();
    let out = run(env
        .bare()
        .args(["--demo", "deals", "list", "--per-page", "2"]))
    .code(0);
    assert_eq!(out.json().as_array().map(Vec::len), Some(2));
}
