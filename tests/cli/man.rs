//! `crmdash man DIR`: one man page per command, generated from the clap tree by the real binary.

use std::collections::BTreeSet;

use clap::CommandFactory;
use crmdash::cli::Cli;

use crate::cli_support::{Env, run};

/// The page names the clap tree calls for: the root and every visible command below it, named
/// by their path (`crmdash-deals-list`), without clap's own `help`.
fn expected_pages() -> BTreeSet<String> {
    fn walk(cmd: &clap::Command, name: &str, out: &mut BTreeSet<String>) {
        out.insert(format!("{name}.1"));
        for sub in cmd.get_subcommands() {
            if !sub.is_hide_set() && sub.get_name() != "help" {
                walk(sub, &format!("{name}-{}", sub.get_name()), out);
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(&Cli::command(), "crmdash", &mut out);
    out
}

/// A page's roff with its escaped hyphens (`\-`) plain, so it reads like the help text.
/// (A page starts with a few lines defining the apostrophe, then its `.TH` title line.)
fn page(dir: &std::path::Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .replace("\\-", "-")
}

#[test]
fn man_writes_one_page_per_command_into_a_new_directory() {
    let env = Env::new();
    let dir = env.dir.path().join("share/man/man1");
    let out = run(env.bare().arg("man").arg(&dir)).code(0);

    let written: BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("the directory was created")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let expected = expected_pages();
    assert_eq!(written, expected, "one page per command, nothing else");
    assert!(expected.len() >= 15, "{expected:?}");
    assert!(!written.contains("crmdash-help.1"), "{written:?}");
    // stdout names every page written, one path a line.
    let listed: BTreeSet<String> = out
        .stdout
        .lines()
        .map(|l| {
            let p = std::path::Path::new(l);
            assert_eq!(p.parent(), Some(dir.as_path()), "{l}");
            p.file_name().unwrap().to_string_lossy().into_owned()
        })
        .collect();
    assert_eq!(listed, expected);
    assert_eq!(out.stderr, "");

    let top = page(&dir, "crmdash.1");
    assert!(top.contains("\n.TH crmdash 1 "), "{top}");
    for sub in ["crmdash-contacts(1)", "crmdash-deals(1)", "crmdash-man(1)"] {
        assert!(top.contains(sub), "crmdash.1 lists {sub}:\n{top}");
    }
    assert!(
        top.contains("CRMDASH_TOKEN"),
        "the environment section:\n{top}"
    );

    let list = page(&dir, "crmdash-deals-list.1");
    assert!(list.contains("\n.TH crmdash-deals-list 1 "), "{list}");
    for text in [
        "--sort-by",
        "--status",
        "--format",
        // Global options, and the variable each reads, on every page.
        "--base-url",
        "CRMDASH_BASE_URL",
        "Example",
        "crmdash deals list",
    ] {
        assert!(
            list.contains(text),
            "crmdash-deals-list.1 has {text}:\n{list}"
        );
    }

    let status = page(&dir, "crmdash-auth-status.1");
    assert!(
        status.contains("crmdash auth status --profile work"),
        "{status}"
    );
}

#[test]
fn man_replaces_pages_it_wrote_before_and_refuses_a_file_as_directory() {
    let env = Env::new();
    let dir = env.dir.path().join("man");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("crmdash.1"), "stale").unwrap();
    run(env.bare().arg("man").arg(&dir)).code(0);
    assert!(page(&dir, "crmdash.1").contains("\n.TH crmdash 1 "));

    let file = env.dir.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let out = run(env.bare().arg("man").arg(&file)).code(1);
    assert!(out.error_line().contains("not-a-dir"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}
