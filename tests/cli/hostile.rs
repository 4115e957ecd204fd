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
