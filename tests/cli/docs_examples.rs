//! Every `crmdash …` example in README.md and docs/*.md goes through the real argument parser
//! (`Cli::try_parse_from`), so the documentation cannot drift from the command line.
//!
//! What counts as an example: a line of a fenced code block that runs `crmdash` (after
//! environment assignments, a wrapper such as `time -v`, or a pipe), `cargo run … -- ARGS`
//! (the binary's arguments), and an inline code span that starts with `crmdash`. Words are
//! split as a POSIX shell would (`shell-words`); `#` comments, redirections and what follows
//! `|`, `&&`, `;` or `&` are not the command's. The one exception is explicit: a code-block line
//! whose comment contains `# usage error` shows a command the parser refuses, and the test
//! checks that it is refused.

use std::path::{Path, PathBuf};

use clap::Parser;
use clap::error::ErrorKind;
use crmdash::cli::Cli;

const USAGE_ERROR_MARK: &str = "# usage error";

/// Where an example was found, and its text.
#[derive(Debug)]
struct Example {
    place: String,
    text: String,
}

fn doc_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    files.insert(0, root.join("README.md"));
    files
}

/// The examples of one Markdown text: code-block lines naming `crmdash` or `cargo run`, and
/// inline spans starting with `crmdash` (a span may run over a line break, as Markdown allows).
fn examples(name: &str, text: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut in_block = false;
    let mut paragraph = String::new();
    let mut paragraph_line = 0;
    let flush = |paragraph: &mut String, line: usize, out: &mut Vec<Example>| {
        for span in inline_spans(paragraph) {
            if span == "crmdash" || span.starts_with("crmdash ") {
                out.push(Example {
                    place: format!("{name}:{line} (inline)"),
                    text: span,
                });
            }
        }
        paragraph.clear();
    };
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim_start().starts_with("```") {
            flush(&mut paragraph, paragraph_line, &mut out);
            in_block = !in_block;
            continue;
        }
        if in_block {
            let runs_it = line
                .split(|c: char| c.is_whitespace() || "|;&".contains(c))
                .any(|w| w == "crmdash")
                || line.trim_start().starts_with("cargo run");
            if runs_it {
                out.push(Example {
                    place: format!("{name}:{n}"),
                    text: line.to_string(),
                });
            }
        } else if line.trim().is_empty() {
            flush(&mut paragraph, paragraph_line, &mut out);
        } else {
            if paragraph.is_empty() {
                paragraph_line = n;
            }
            paragraph.push_str(line);
            paragraph.push(' ');
        }
    }
    flush(&mut paragraph, paragraph_line, &mut out);
    out
}

/// The text of each single-backtick code span, with a table's escaped pipes (`\|`) plain.
fn inline_spans(paragraph: &str) -> Vec<String> {
    paragraph
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|s| s.trim().replace("\\|", "|"))
        .collect()
}

/// The argument lists of the crmdash commands in one shell line (without the program name).
fn commands(line: &str) -> Result<Vec<Vec<String>>, String> {
    let words = shell_words::split(line).map_err(|e| format!("not shell words: {e}"))?;
    let mut segments: Vec<Vec<String>> = vec![Vec::new()];
    let mut words = words.into_iter();
    while let Some(w) = words.next() {
        match w.as_str() {
            "|" | "||" | "&&" | ";" | "&" => segments.push(Vec::new()),
            // A redirection and, when apart, its file.
            ">" | ">>" | "<" | "2>" | "2>>" | "&>" => {
                words.next();
            }
            _ if w.starts_with('>') || w.starts_with('<') || w.starts_with("2>") => {}
            _ => segments.last_mut().unwrap().push(w),
        }
    }
    Ok(segments
        .into_iter()
        .filter_map(|seg| {
            if let Some(at) = seg.iter().position(|w| w == "crmdash") {
                return Some(seg[at + 1..].to_vec());
            }
            if seg.first().map(String::as_str) == Some("cargo")
                && seg.get(1).map(String::as_str) == Some("run")
            {
                let at = seg.iter().position(|w| w == "--")?;
                // `--example NAME` or `--bin NAME` run another program.
                let other = seg[..at]
                    .iter()
                    .any(|w| w.starts_with("--example") || w.starts_with("--bin"));
                return (!other).then(|| seg[at + 1..].to_vec());
            }
            None
        })
        .collect())
}

/// How the real parser takes these arguments: `Ok` when it accepts them (help and version
/// included), else its error.
fn parse(args: &[String]) -> Result<(), String> {
    let argv = std::iter::once("crmdash".to_string()).chain(args.iter().cloned());
    match Cli::try_parse_from(argv) {
        Ok(_) => Ok(()),
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => Ok(()),
        Err(e) => Err(e.render().to_string()),
    }
}

#[test]
fn every_crmdash_example_in_the_docs_parses() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for file in doc_files() {
        let name = file
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap()
            .display()
            .to_string();
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
        for ex in examples(&name, &text) {
            let expect_error = ex.text.contains(USAGE_ERROR_MARK);
            let cmds = match commands(&ex.text) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("{}: `{}`: {e}", ex.place, ex.text));
                    continue;
                }
            };
            for args in cmds {
                checked += 1;
                match (parse(&args), expect_error) {
                    (Ok(()), false) | (Err(_), true) => {}
                    (Err(e), false) => {
                        failures.push(format!("{}: `{}`\n{e}", ex.place, ex.text.trim()))
                    }
                    (Ok(()), true) => failures.push(format!(
                        "{}: `{}` is marked `{USAGE_ERROR_MARK}` but parses",
                        ex.place,
                        ex.text.trim()
                    )),
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} examples do not match the command line:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // The extraction itself is checked below; this guards against it finding nothing.
    assert!(checked >= 60, "only {checked} examples found");
}

#[test]
fn examples_are_found_in_blocks_spans_and_cargo_run_lines() {
    let md = "\
Run `crmdash deals list --status won` or `crmdash
sync --full`; not `cargo test` nor `crmdashboard`.

```sh
cargo run --release -- --demo    # the dashboard
crmdash contacts list --all --format csv > contacts.csv
CRMDASH_TOKEN=t /usr/bin/time -v crmdash sync | tail -1
cargo test
crmdash deals list --sort-by nothing   # usage error: not a sort key
```
";
    let found: Vec<String> = examples("x.md", md).into_iter().map(|e| e.text).collect();
    assert_eq!(
        found,
        [
            "crmdash deals list --status won",
            "crmdash sync --full",
            "cargo run --release -- --demo    # the dashboard",
            "crmdash contacts list --all --format csv > contacts.csv",
            "CRMDASH_TOKEN=t /usr/bin/time -v crmdash sync | tail -1",
            "crmdash deals list --sort-by nothing   # usage error: not a sort key",
        ]
    );
    let args = |line: &str| commands(line).unwrap();
    assert!(parse(&args(&found[0])[0]).is_ok());
    assert_eq!(args(&found[1]), [vec!["sync", "--full"]]);
    assert_eq!(args(&found[2]), [vec!["--demo"]]);
    assert_eq!(
        args(&found[3]),
        [vec!["contacts", "list", "--all", "--format", "csv"]]
    );
    assert_eq!(args(&found[4]), [vec!["sync"]]);
    assert!(parse(&args(&found[5])[0]).is_err());
    // Another binary run through cargo is not crmdash.
    assert!(args("cargo run --release --example latency_probe -- 200 0").is_empty());
    // The parser is the real one: a misspelt option or value is caught.
    assert!(parse(&args("crmdash deals list --statuss won")[0]).is_err());
    assert!(parse(&args("crmdash contacts list --format xml")[0]).is_err());
}
