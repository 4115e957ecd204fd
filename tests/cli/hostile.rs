//! A hostile service (issue 43): records that carry spreadsheet formulas, nesting deeper than
//! any real record, paths that try to leave `/public/v1`, pages that never end, a token echoed
//! back. Each test drives the real binary against the sandbox's `hostile` faults.

use crmdash::sandbox::{FaultKind, HOSTILE_FORMULA, HostileShape};

use crate::cli_support::{Env, fault, run};

fn hostile(shape: HostileShape) -> FaultKind {
    FaultKind::Hostile { shape, depth: 0 }
}

#[test]
fn csv_cells_that_are_formulas_are_written_as_text_unless_csv_raw() {
    let env = Env::new();
    env.fault(fault(hostile(HostileShape::Formulas)).on("GET", "/contacts"));
    let out = run(env.cmd(&["contacts", "list", "--per-page", "3", "--format", "csv"])).code(0);
    let mut rows = csv::Reader::from_reader(out.stdout.as_bytes());
    let first_names: Vec<String> = rows
        .records()
        .map(|r| r.unwrap().get(3).unwrap().to_string())
        .collect();
    assert_eq!(first_names.len(), 3, "{}", out.stdout);
    for n in &first_names {
        assert_eq!(n, &format!("'{HOSTILE_FORMULA}"), "{}", out.stdout);
    }
    // Phones such as +49 … start like a formula too; plain numbers are data.
    assert!(!out.stdout.contains("\n="), "{}", out.stdout);

    env.fault(fault(hostile(HostileShape::Formulas)).on("GET", "/contacts"));
    let raw = run(env.cmd(&[
        "--csv-raw",
        "contacts",
        "list",
        "--per-page",
        "3",
        "--format",
        "csv",
    ]))
    .code(0);
    let mut rows = csv::Reader::from_reader(raw.stdout.as_bytes());
    let first = rows.records().next().unwrap().unwrap();
    assert_eq!(first.get(3), Some(HOSTILE_FORMULA), "{}", raw.stdout);
}

#[test]
fn a_negative_amount_stays_a_number_in_csv() {
    // A negative value (a credit note) is data; text that starts with a sign is not.
    let mut w = crmdash::output::csv_writer(Vec::new());
    w.write_record(["-12.5", "-12.5 EUR", "=1+1"]).unwrap();
    assert_eq!(
        String::from_utf8(w.into_inner().unwrap()).unwrap(),
        "-12.5,'-12.5 EUR,'=1+1\r\n"
    );
}

fn deep() -> FaultKind {
    FaultKind::Hostile {
        shape: HostileShape::Deep,
        depth: crmdash::sandbox::HOSTILE_DEFAULT_DEPTH,
    }
}

#[test]
fn json_nested_past_the_limit_is_refused_before_jq_a_template_or_a_list() {
    let env = Env::new();
    for (flag, program) in [("--jq", ".data[0].id"), ("--template", "{{ data[0].id }}")] {
        env.fault(fault(deep()).on("GET", "/contacts"));
        let out = run(env.cmd(&["api", "GET", "contacts", flag, program])).code(1);
        assert_eq!(
            out.error_line(),
            format!(
                "error: {flag}: the JSON is nested more than 100 levels deep (crmdash's limit for server data); refused"
            )
        );
        assert_eq!(out.stdout, "");
    }
    env.fault(fault(deep()).on("GET", "/contacts"));
    let out = run(env.cmd(&["api", "GET", "contacts", "--paginate", "--jq", ".[0].id"]));
    assert_ne!(out.code, 0);
    assert!(out.error_line().contains("levels deep"), "{}", out.stderr);
    env.fault(fault(deep()).on("GET", "/contacts"));
    let out = run(env.cmd(&["contacts", "list", "--format", "json"]));
    assert_ne!(out.code, 0);
    assert!(
        out.error_line()
            .contains("nested more than 100 levels deep"),
        "{}",
        out.stderr
    );
}

#[test]
fn an_api_path_that_a_server_would_read_as_leaving_public_v1_is_refused_and_nothing_is_sent() {
    let env = Env::new();
    for path in [
        "contacts/.%2e/.%2e/.%2e/admin/users",
        "contacts%2f..%2f..%2fadmin/users",
        "contacts/%252e%252e/%252e%252e/admin/users",
        "contacts\\..\\..\\..\\admin\\users",
        "contacts/.\t./.\n./admin/users",
    ] {
        let out = run(env.cmd(&["api", "GET", path])).code(5);
        assert!(
            out.error_line().contains("path"),
            "{path:?}: {}",
            out.stderr
        );
    }
    assert_eq!(env.sb.requests().len(), 0, "{:?}", env.sb.requests());
    // What a server reads as a plain path still reaches it, under /public/v1/.
    let out = run(env.cmd(&["api", "GET", "%63ontacts?per_page=1"])).code(0);
    assert!(out.stdout.contains("\"data\""), "{}", out.stdout);
    let paths: Vec<String> = env.sb.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/public/v1/contacts"]);
}

#[test]
fn paginate_stops_on_a_repeated_page_and_at_its_page_cap() {
    let env = Env::new();
    env.fault(
        fault(FaultKind::EndlessPages)
            .on("GET", "/contacts")
            .always(),
    );
    let mut cmd = env.cmd(&["api", "GET", "contacts?per_page=2", "--paginate"]);
    cmd.timeout(std::time::Duration::from_secs(60));
    let out = run(cmd).code(0);
    assert_eq!(out.json().as_array().unwrap().len(), 2, "{}", out.stdout);
    assert!(
        out.stderr.contains("page 2 repeats page 1"),
        "{}",
        out.stderr
    );
    assert_eq!(env.requests_to("GET", "contacts").len(), 2);

    env.sb.faults().clear();
    env.sb.clear_requests();
    let out = run(env.cmd(&[
        "api",
        "GET",
        "contacts?per_page=1",
        "--paginate",
        "--max-pages",
        "3",
        "--format",
        "jsonl",
    ]))
    .code(1);
    assert_eq!(out.stdout.lines().count(), 3, "what came is printed");
    assert_eq!(
        out.error_line(),
        "error: --paginate: stopped after 3 pages (--max-pages); the list goes on"
    );
    assert_eq!(env.requests_to("GET", "contacts").len(), 3);
}

#[test]
fn a_token_the_service_echoes_back_is_masked_in_messages_output_and_logs() {
    let env = Env::new();
    let token = env.sb.token();
    env.fault(fault(FaultKind::EchoToken).on("GET", "/contacts"));
    let list = run(env.cmd(&["contacts", "list", "-vv"])).code(3);
    env.fault(fault(FaultKind::EchoToken).on("GET", "/contacts"));
    let api = run(env.cmd(&["api", "GET", "contacts", "--include"])).code(3);
    for out in [&list, &api] {
        assert!(!out.stderr.contains(&token), "{}", out.stderr);
        assert!(!out.stdout.contains(&token), "{}", out.stdout);
    }
    assert!(
        list.stderr.contains("error: Unauthorized (401)")
            && list.stderr.contains("the token **** has expired"),
        "{}",
        list.stderr
    );
    assert!(
        api.stdout.contains("the token **** has expired"),
        "{}",
        api.stdout
    );
    // Nor in any file crmdash wrote (logs, state).
    let mut stack = vec![env.dir.path().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                let text = String::from_utf8_lossy(&bytes);
                assert!(!text.contains(&token), "{} holds the token", p.display());
            }
        }
    }
}

/// Every message and line crmdash prints goes through the one terminal filter
/// (`crmdash_domain::say!` and `show!`, `output::stdout()` and `stderr()`): no `println!` or
/// `eprintln!` in the program's sources outside their tests, where a name, a path or a
/// service's words could reach a terminal raw.
#[test]
fn no_output_bypasses_the_terminal_filter() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("src")];
    for c in std::fs::read_dir(root.join("crates")).unwrap() {
        dirs.push(c.unwrap().path().join("src"));
    }
    let mut bad = Vec::new();
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                if name != "tests" {
                    dirs.push(p);
                }
                continue;
            }
            if !name.ends_with(".rs") || name == "tests.rs" || name.ends_with("_tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            // A file's own tests come last, after `#[cfg(test)]`.
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for (i, line) in code.lines().enumerate() {
                let l = line.trim_start();
                if l.starts_with("//") {
                    continue;
                }
                if ["println!(", "eprintln!(", "print!(", "eprint!("]
                    .iter()
                    .any(|m| {
                        l.match_indices(m).any(|(at, _)| {
                            at == 0
                                || !l.as_bytes()[at - 1].is_ascii_alphanumeric()
                                    && l.as_bytes()[at - 1] != b'_'
                        })
                    })
                {
                    bad.push(format!("{}:{}: {l}", p.display(), i + 1));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "output past the filter:\n{}",
        bad.join("\n")
    );
}
