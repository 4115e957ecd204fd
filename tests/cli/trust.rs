//! Issue 27 ("Trust"), the command line's part, through the real binary against the sandbox:
//! an End of `10:00` is a time, lists say when they are partial, deals carry their currency,
//! the email filter's refusal points to search, search hits say why, the reschedule log, and
//! import headers.

use crate::cli_support;

use cli_support::{Env, run};
use serde_json::{Value, json};

fn appointment(env: &Env) -> String {
    env.sb.ids("appointments").into_iter().next().unwrap()
}

fn berlin(env: &Env) {
    env.write_config(
        "[ui]\ntimezone = \"Europe/Berlin\"\n[reschedule]\nstart_field = \"start_time\"\nend_field = \"end_time\"\n",
    );
}

fn reschedule(env: &Env, id: &str, start: &str, end: &str) -> cli_support::Run {
    run(env.cmd(&[
        "appointments",
        "reschedule",
        id,
        "--start",
        start,
        "--end",
        end,
        "--yes",
    ]))
}

fn sent(env: &Env) -> Vec<Value> {
    env.requests_to("POST", "appointments")
        .iter()
        .map(|r| serde_json::from_str(r.body.as_deref().unwrap()).unwrap())
        .collect()
}

/// The steps: `--start 'tomorrow 09:30' --end '10:00' --yes` sent 19:30.
#[test]
fn an_end_of_ten_oclock_is_ten_oclock_on_the_start_day() {
    let env = Env::new();
    berlin(&env);
    let id = appointment(&env);
    reschedule(&env, &id, "2030-06-03 09:30", "10:00").code(0);
    // Berlin is UTC+2 in June.
    assert_eq!(
        sent(&env),
        [json!({"start_time": "2030-06-03T07:30:00Z", "end_time": "2030-06-03T08:00:00Z"})]
    );
    // The issue's own words: tomorrow, half an hour.
    env.sb.clear_requests();
    reschedule(&env, &id, "tomorrow 09:30", "10:00").code(0);
    let body = &sent(&env)[0];
    let at = |k: &str| chrono::DateTime::parse_from_rfc3339(body[k].as_str().unwrap()).unwrap();
    assert_eq!(
        at("end_time") - at("start_time"),
        chrono::TimeDelta::minutes(30)
    );
    // Before the start: the next day, and stderr says so.
    env.sb.clear_requests();
    let out = reschedule(&env, &id, "2030-06-03 23:00", "01:00").code(0);
    assert_eq!(sent(&env)[0]["end_time"], "2030-06-03T23:00:00Z");
    assert!(
        out.stderr
            .contains("ends the next day, Tue 4 Jun: 01:00 is before the start (23:00)"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_negative_end_or_one_not_after_the_start_is_refused_and_nothing_is_sent() {
    let env = Env::new();
    berlin(&env);
    let id = appointment(&env);
    for (end, says) in [
        ("-30m", "\"-30m\" is not an end"),
        ("09:30", "must be after the start"),
        ("2030-06-03 09:00", "must be after the start"),
        ("45", "45m is 45 minutes"),
    ] {
        let out = reschedule(&env, &id, "2030-06-03 09:30", end).code(5);
        assert!(
            out.error_line().contains(says),
            "--end {end}: {}",
            out.stderr
        );
        assert!(sent(&env).is_empty(), "--end {end} sent something");
    }
}

#[test]
fn the_log_writes_the_host_with_its_port_and_the_table_shows_start_and_end() {
    let env = Env::new();
    berlin(&env);
    let id = appointment(&env);
    reschedule(&env, &id, "2030-06-03 09:30", "10:15").code(0);
    let log = run(env.cmd(&["appointments", "log", "--format", "json"]))
        .code(0)
        .json();
    // The dashboard's spelling (its status line and dialog use the same function).
    assert_eq!(
        log[0]["host"],
        crmdash::config::host_label(&env.sb.base_url()).as_str()
    );
    assert!(log[0]["host"].as_str().unwrap().contains(':'), "{log}");
    assert_eq!(log[0]["body"]["start_time"], "2030-06-03T07:30:00Z");
    let table = run(env.cmd(&["appointments", "log", "--format", "table"])).code(0);
    let mut lines = table.stdout.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "SENT",
            "(Europe/Berlin)",
            "ID",
            "START",
            "END",
            "HOST",
            "PROFILE",
            "OTHER"
        ]
    );
    let row = lines.next().unwrap();
    let words: Vec<&str> = row.split_whitespace().collect();
    assert!(
        words
            .windows(3)
            .any(|w| w == ["2030-06-03", "09:30", "10:15"]),
        "the new start and end in the zone: {row}"
    );
    assert!(!row.contains('{'), "no body in the table: {row}");
    // Narrow: the host keeps its port (OTHER and PROFILE give way first).
    let host = crmdash::config::host_label(&env.sb.base_url());
    for cols in ["80", "72"] {
        let mut cmd = env.cmd(&["appointments", "log", "--format", "table"]);
        cmd.env("COLUMNS", cols);
        let table = run(cmd).code(0);
        let row = table.stdout.lines().nth(1).unwrap().to_string();
        assert!(row.contains(&host), "{cols} columns: {}", table.stdout);
    }
}

#[test]
fn a_piped_list_keeps_stderr_quiet_and_a_page_past_the_end_prints_the_header_only() {
    let env = Env::new();
    let out = run(env.cmd(&["deals", "list", "--format", "csv"])).code(0);
    assert_eq!(out.stderr, "", "scripts are told nothing");
    let out = run(env.cmd(&["deals", "list", "--page", "99", "--format", "csv"])).code(0);
    assert_eq!(out.stdout.lines().count(), 1, "{}", out.stdout);
    assert_eq!(out.stderr, "");
}

/// Issue 27: `--format table` showed `4609.67` across 11 currencies; the CSV had no currency.
#[test]
fn deals_carry_their_currency_in_csv_and_grouped_amounts_in_the_table() {
    let env = Env::new();
    let json = run(env.cmd(&["deals", "list", "--per-page", "100", "--format", "json"]))
        .code(0)
        .json();
    let deals = json.as_array().unwrap();
    let big = deals
        .iter()
        .find(|d| {
            d["currency"].is_string()
                && d["value"]
                    .to_string()
                    .trim_matches('"')
                    .parse::<f64>()
                    .is_ok_and(|v| v >= 1000.0)
        })
        .expect("a deal of 1,000 or more with a currency");
    let id = big["id"].as_str().unwrap();
    let currency = big["currency"].as_str().unwrap();

    let csv = run(env.cmd(&["deals", "list", "--per-page", "100", "--format", "csv"])).code(0);
    let mut reader = csv::Reader::from_reader(csv.stdout.as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    assert_eq!(headers[5..7], ["value", "currency"]);
    let row = reader
        .records()
        .map(Result::unwrap)
        .find(|r| &r[0] == id)
        .unwrap();
    assert_eq!(&row[6], currency);

    let table = run(env.cmd(&["deals", "list", "--per-page", "100", "--format", "table"])).code(0);
    let line = table.stdout.lines().find(|l| l.contains(id)).unwrap();
    let value = big["value"].to_string();
    let d = rust_decimal::Decimal::from_str_exact(value.trim_matches('"')).unwrap();
    let shown = crmdash::insights::pipeline::format_amount(d, true);
    assert!(shown.contains(','), "{shown}");
    assert!(
        line.contains(&format!("{shown} {currency}")),
        "grouped, with the currency: {line}"
    );
}

#[test]
fn a_part_of_an_email_is_refused_with_where_parts_are_found() {
    let env = Env::new();
    let out = run(env.cmd(&["contacts", "list", "--email", "j.kang@"])).code(5);
    let e = out.error_line();
    assert!(
        e.contains("--email matches whole addresses")
            && e.contains("`crmdash search j.kang@`")
            && e.contains("Ctrl-F"),
        "{e}"
    );
    assert!(env.sb.requests().is_empty());
}

/// Issue 27: `search --help` described a JSON array; a hit did not say why it matched.
#[test]
fn search_help_says_what_is_printed_and_each_hit_says_why_it_matched() {
    let env = Env::new();
    let help = run(env.cmd(&["search", "--help"])).code(0).stdout;
    for said in [
        "{\"query\", \"synced_at\", \"groups\"",
        "type,id,label,detail,near,why",
        "\"why\"",
    ] {
        assert!(help.contains(said), "{said}: {help}");
    }
    // The format's possible values are search's own, not the record lists' (a JSON array,
    // nested values as JSON text).
    let values = &help[help.find("Possible values").expect(&help)..];
    for wrong in [
        "as one JSON array",
        "exactly as the server sent them",
        "nested values",
    ] {
        assert!(!values.contains(wrong), "{wrong}: {values}");
    }
    for said in [
        "json:  One object {query, synced_at, groups}",
        "csv:   The header type,id,label,detail,near,why",
    ] {
        assert!(values.contains(said), "{said}: {values}");
    }
    run(env.cmd(&["sync"])).code(0);
    let json = run(env.cmd(&["search", "muller", "--format", "json"]))
        .code(0)
        .json();
    let hits: Vec<&Value> = json["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["hits"].as_array().unwrap())
        .collect();
    assert!(!hits.is_empty());
    let mut outside_label = 0;
    for h in &hits {
        let why = h["why"].as_str().unwrap();
        assert!(!why.is_empty() && why != "other text of the record", "{h}");
        if !h["label"].as_str().unwrap().contains("Müller") {
            outside_label += 1;
            assert!(why.contains("Müller"), "the field that holds it: {why}");
        }
    }
    // The sandbox's deals assigned to Jörg Müller are hits whose label lacks the name: the
    // check above must have run for them.
    assert!(
        outside_label > 0,
        "no hit matched outside its label: {hits:?}"
    );
    let csv = run(env.cmd(&["search", "muller", "--format", "csv"])).code(0);
    let mut reader = csv::Reader::from_reader(csv.stdout.as_bytes());
    assert_eq!(
        reader.headers().unwrap().iter().collect::<Vec<_>>(),
        ["type", "id", "label", "detail", "near", "why"]
    );
    assert!(reader.records().all(|r| !r.unwrap()[5].is_empty()));
    let table = run(env.cmd(&["search", "muller", "--format", "table"])).code(0);
    let why = hits[0]["why"].as_str().unwrap();
    assert!(table.stdout.contains(why), "{}", table.stdout);
}

fn import_file(env: &Env, name: &str, text: &str) -> cli_support::Run {
    let p = env.dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    run(env.cmd(&["contacts", "import", p.to_str().unwrap()]))
}

/// Issue 27: `Full Name`, `Email Address`, `Mobile`... were sent as extra attributes.
#[test]
fn common_header_names_map_by_themselves_and_map_names_the_rest() {
    let env = Env::new();
    let out = import_file(
        &env,
        "people.csv",
        "Full Name,Email Address,Mobile,Lead Source\nAda King Lovelace,ada@trust.example,+44 20 7946 0000,fair\n",
    )
    .code(0);
    assert!(
        out.stderr.contains("'Full Name' → first_name + last_name")
            && out.stderr.contains("'Mobile' → phone"),
        "{}",
        out.stderr
    );
    let posts = env.requests_to("POST", "contacts");
    let body: Value = serde_json::from_str(posts[0].body.as_deref().unwrap()).unwrap();
    assert_eq!(
        body,
        json!({"first_name": "Ada", "last_name": "King Lovelace", "email": "ada@trust.example",
               "phone": "+44 20 7946 0000", "Lead Source": "fair"})
    );
    env.sb.clear_requests();
    let p = env.dir.path().join("de.csv");
    std::fs::write(
        &p,
        "Vorname,Nachname,E-mail,Handy\nGrace,Hopper,grace@trust.example,+1 555 0100\n",
    )
    .unwrap();
    run(env.cmd(&[
        "contacts",
        "import",
        p.to_str().unwrap(),
        "--map",
        "Vorname=first_name",
        "--map",
        "Nachname=last_name",
        "--map",
        "Handy=phone",
    ]))
    .code(0);
    let posts = env.requests_to("POST", "contacts");
    let body: Value = serde_json::from_str(posts[0].body.as_deref().unwrap()).unwrap();
    assert_eq!(
        body,
        json!({"first_name": "Grace", "last_name": "Hopper", "email": "grace@trust.example",
               "phone": "+1 555 0100"})
    );
}

#[test]
fn an_unclosed_quote_is_reported_as_such_with_its_line_and_nothing_is_sent() {
    let env = Env::new();
    let out = import_file(
        &env,
        "quote.csv",
        "first_name,last_name,email\nAda,Lovelace,ada@q.example\nBob,\"Smith,bob@q.example\nCy,C,cy@q.example\n",
    )
    .code(5);
    assert!(
        out.stderr.contains("line 3") && out.stderr.contains("opened on line 3 is never closed"),
        "{}",
        out.stderr
    );
    assert!(env.requests_to("POST", "contacts").is_empty());
}

/// Issue 27.5: a reschedule sent in `--demo` stays in the demo's folder: the real log (and
/// so `appointments log` and the dashboard's dialog of real profiles) never shows it.
#[test]
fn a_demo_reschedule_never_reaches_the_real_log() {
    let env = Env::new();
    berlin(&env);
    let out = run(env.cmd(&[
        "--demo",
        "appointments",
        "reschedule",
        "apt_000001",
        "--start",
        "2030-06-03 09:30",
        "--end",
        "10:00",
        "--yes",
    ]));
    let out = out.code(0);
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
    let log = run(env.cmd(&["appointments", "log", "--format", "json"]))
        .code(0)
        .json();
    assert_eq!(log, serde_json::json!([]), "{log}");
}

/// Issue 44, one display clock: with `[ui] timezone` a zone that is not the machine's (the
/// harness runs with `TZ=UTC`), a contact's creation time reads the same in `contacts list` as
/// its JSON says converted to that zone, `log` and `appointments log` show one write at the
/// same minute, and every table says the zone in its time columns' headers. JSON keeps UTC.
#[test]
fn every_table_reads_times_on_the_one_display_clock_and_says_its_zone() {
    let env = Env::new();
    env.write_config("[ui]\ntimezone = \"Asia/Kolkata\"\n");
    let kolkata = |utc: &str| {
        utc.parse::<chrono::DateTime<chrono::Utc>>()
            .unwrap()
            .with_timezone(&chrono_tz::Asia::Kolkata)
            .format("%Y-%m-%d %H:%M")
            .to_string()
    };
    let json = run(env.cmd(&["contacts", "list", "--per-page", "1", "--format", "json"]))
        .code(0)
        .json();
    let created = json[0]["created_at"].as_str().unwrap().to_string();
    assert!(
        created.ends_with('Z') || created.contains("+00:00"),
        "{created}"
    );
    let mut cmd = env.cmd(&["contacts", "list", "--per-page", "1", "--format", "table"]);
    cmd.env("COLUMNS", "240");
    let table = run(cmd).code(0);
    let header = table.stdout.lines().next().unwrap().to_string();
    assert!(header.contains("CREATED (Asia/Kolkata)"), "{header}");
    assert!(
        table.stdout.contains(&kolkata(&created)),
        "{} in {}",
        kolkata(&created),
        table.stdout
    );

    let id = appointment(&env);
    run(env.cmd(&[
        "appointments",
        "reschedule",
        &id,
        "--start",
        "2030-06-03 09:30",
        "--yes",
    ]))
    .code(0);
    let sent = run(env.cmd(&["log", "--format", "json"])).code(0).json();
    let at = kolkata(sent[0]["at"].as_str().unwrap());
    let runs: [&[&str]; 2] = [
        &["log", "--format", "table"],
        &["appointments", "log", "--format", "table"],
    ];
    for args in runs {
        let mut cmd = env.cmd(args);
        cmd.env("COLUMNS", "240");
        let out = run(cmd).code(0);
        let mut lines = out.stdout.lines();
        let header = lines.next().unwrap();
        assert!(
            header.starts_with("SENT (Asia/Kolkata)"),
            "{args:?}: {header}"
        );
        let row = lines.next().unwrap();
        assert!(
            row.starts_with(&at),
            "{args:?}: {row} does not start with {at}"
        );
    }
    // Typed times follow the same zone unless [reschedule] timezone sets one apart.
    let log = run(env.cmd(&["appointments", "log", "--format", "json"]))
        .code(0)
        .json();
    assert_eq!(log[0]["body"]["start_time"], "2030-06-03T04:00:00Z");
}
