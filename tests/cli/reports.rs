//! `crmdash deals report KIND` against the sandbox over HTTP: a first sync (the baseline), the
//! sandbox's churn, a full sync (changes and deletions recorded), then each report checked
//! against figures computed here, independently, from the deals before (the seed file) and
//! after (the service's own list), in every format.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use rust_decimal::Decimal;
use serde_json::Value;

use crate::cli_support::{Env, run};

fn seed_deals() -> Vec<Value> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/sandbox/deals.json"
    ))
    .expect("seed file");
    serde_json::from_str(&text).expect("seed json")
}

/// Every deal the service lists now, read straight from it.
fn service_deals(env: &Env) -> Vec<Value> {
    let mut out = Vec::new();
    for page in 1.. {
        let body: Value =
            serde_json::from_str(&env.raw_get(&format!("deals?per_page=100&page={page}")))
                .expect("page");
        let data = body["data"].as_array().expect("data").clone();
        if data.is_empty() {
            break;
        }
        out.extend(data);
    }
    out
}

fn amount(v: &Value) -> Decimal {
    match v {
        Value::String(s) => Decimal::from_str(s).unwrap_or_default(),
        Value::Number(n) => Decimal::from_str(&n.to_string()).unwrap_or_default(),
        _ => Decimal::ZERO,
    }
}

/// (open, status, value, currency) of a deal as sent.
fn state(d: &Value) -> (bool, String, Decimal, String) {
    let status = d["status"].as_str().unwrap_or("").to_lowercase();
    let open = !matches!(status.as_str(), "won" | "lost" | "cancelled" | "closed");
    let cur = d["currency"].as_str().unwrap_or("(none)").to_uppercase();
    (open, status, amount(&d["value"]), cur)
}

fn by_id(deals: Vec<Value>) -> BTreeMap<String, Value> {
    deals
        .into_iter()
        .map(|d| (d["id"].as_str().expect("id").to_string(), d))
        .collect()
}

/// A mirror synced before and after churn (deals and projects moved, some records deleted).
fn churned() -> (Env, BTreeMap<String, Value>, BTreeMap<String, Value>) {
    let env = Env::new();
    run(env.cmd(&["sync"])).code(0);
    env.sb.churn_deals_and_projects(150);
    env.sb.churn(60);
    run(env.cmd(&["sync", "--full"])).code(0);
    let after = by_id(service_deals(&env));
    (env, by_id(seed_deals()), after)
}

/// The waterfall per currency as this test reads it: each deal's seed state against its
/// state now (every change between two syncs collapses into one).
fn expected_waterfall(
    before: &BTreeMap<String, Value>,
    after: &BTreeMap<String, Value>,
) -> BTreeMap<String, [Decimal; 8]> {
    let mut out: BTreeMap<String, [Decimal; 8]> = BTreeMap::new();
    let mut add = |c: &str, i: usize, v: Decimal| out.entry(c.to_string()).or_default()[i] += v;
    for (id, b) in before {
        let (open_b, _, vb, cb) = state(b);
        if open_b {
            add(&cb, 0, vb);
        }
        match after.get(id).map(state) {
            None if open_b => add(&cb, 6, vb),
            None => {}
            Some((open_a, st, va, ca)) => {
                if open_a {
                    add(&ca, 7, va);
                }
                if !open_b {
                    if open_a {
                        add(&ca, 1, va);
                    }
                    continue;
                }
                if ca != cb {
                    add(&cb, 3, vb);
                    add(&ca, 2, va);
                } else if va >= vb {
                    add(&ca, 2, va - vb);
                } else {
                    add(&ca, 3, vb - va);
                }
                match st.as_str() {
                    "won" => add(&ca, 4, va),
                    "lost" | "cancelled" | "closed" => add(&ca, 5, va),
                    _ => {}
                }
            }
        }
    }
    out
}

const KEYS: [&str; 8] = [
    "start",
    "created",
    "increased",
    "decreased",
    "won",
    "lost",
    "gone",
    "end",
];

fn dec(v: &Value) -> Decimal {
    Decimal::from_str(v.as_str().expect("amounts are strings")).expect("decimal")
}

#[test]
fn the_waterfall_matches_the_deals_before_and_after_and_adds_up() {
    let (env, before, after) = churned();
    let out = run(env.cmd(&[
        "deals",
        "report",
        "waterfall",
        "--since",
        "7d",
        "--format",
        "json",
    ]))
    .code(0);
    assert!(
        out.stderr
            .contains("note: amounts are not converted between currencies"),
        "{}",
        out.stderr
    );
    let doc = out.json();
    let rows = doc.as_array().expect("one object per currency");
    let want = expected_waterfall(&before, &after);
    let mut moved = Decimal::ZERO;
    let mut got = BTreeMap::new();
    for r in rows {
        let keys: Vec<&str> = r
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys.len(), 9, "{r}");
        let v: Vec<Decimal> = KEYS.iter().map(|k| dec(&r[*k])).collect();
        assert_eq!(v[0] + v[1] + v[2] - v[3] - v[4] - v[5] - v[6], v[7], "{r}");
        moved += v[1] + v[2] + v[3] + v[4] + v[5] + v[6];
        got.insert(
            r["currency"].as_str().expect("currency").to_string(),
            <[Decimal; 8]>::try_from(v).expect("8"),
        );
    }
    assert!(moved > Decimal::ZERO, "the churn moved some open value");
    assert_eq!(got, want);

    // --deals: per term, the deals behind it, their amounts adding up to the term.
    let deals = run(env.cmd(&[
        "deals",
        "report",
        "waterfall",
        "--since",
        "7d",
        "--deals",
        "--format",
        "json",
    ]))
    .code(0)
    .json();
    for r in deals.as_array().expect("array") {
        for term in &KEYS[1..7] {
            let listed: Decimal = r["deals"][*term]
                .as_array()
                .expect("a list per term")
                .iter()
                .map(|d| dec(&d["amount"]))
                .sum();
            assert_eq!(listed, dec(&r[*term]), "{term} of {}", r["currency"]);
        }
    }
}

#[test]
fn every_format_jq_and_template_print_the_same_report() {
    let (env, _, after) = churned();
    let json = run(env.cmd(&[
        "deals", "report", "stale", "--days", "30", "--format", "json",
    ]))
    .code(0)
    .json();
    let rows = json.as_array().expect("array");
    // Open deals now, not updated for 30 days by the service's own stamp, and not seen
    // changing by a sync: the seed's deals are years old, the churned ones are not.
    let now = chrono::Utc::now();
    let want: BTreeSet<String> = after
        .values()
        .filter(|d| state(d).0)
        .filter(|d| {
            d["updated_at"]
                .as_str()
                .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
                .is_some_and(|t| (now - t.with_timezone(&chrono::Utc)).num_days() >= 30)
        })
        .map(|d| d["id"].as_str().expect("id").to_string())
        .collect();
    let got: BTreeSet<String> = rows
        .iter()
        .map(|r| r["id"].as_str().expect("id").to_string())
        .collect();
    assert_eq!(got, want);
    assert!(!got.is_empty());
    for r in rows.iter().filter(|r| r["rank"] == 1) {
        let cur = &r["currency"];
        let best = rows
            .iter()
            .filter(|o| &o["currency"] == cur)
            .map(|o| dec(&o["value"]) * Decimal::from(o["days"].as_u64().expect("days")))
            .max();
        assert_eq!(
            Some(dec(&r["value"]) * Decimal::from(r["days"].as_u64().expect("days"))),
            best
        );
    }

    let jsonl = run(env.cmd(&[
        "deals", "report", "stale", "--days", "30", "--format", "jsonl",
    ]))
    .code(0);
    assert_eq!(jsonl.stdout.lines().count(), rows.len());
    let csv = run(env.cmd(&[
        "deals", "report", "stale", "--days", "30", "--format", "csv",
    ]))
    .code(0);
    let mut lines = csv.stdout.lines();
    assert_eq!(
        lines.next(),
        Some("currency,rank,id,name,status,value,last_change,days")
    );
    assert_eq!(lines.count(), rows.len());
    let jq = run(env.cmd(&[
        "deals",
        "report",
        "stale",
        "--days",
        "30",
        "--jq",
        ".[] | .id",
    ]))
    .code(0);
    assert_eq!(
        jq.stdout.lines().collect::<BTreeSet<_>>(),
        want.iter().map(String::as_str).collect()
    );
    let tmpl = run(env.cmd(&[
        "deals",
        "report",
        "waterfall",
        "--template",
        "{% for r in records %}{{ r.currency }}={{ r.end }}\n{% endfor %}",
    ]))
    .code(0);
    assert!(
        tmpl.stdout.lines().all(|l| l.contains('=')),
        "{}",
        tmpl.stdout
    );
    let table = run(env.cmd(&["deals", "report", "waterfall", "--format", "table"])).code(0);
    assert!(table.stdout.starts_with("CURRENCY"), "{}", table.stdout);
    assert!(
        table
            .stdout
            .contains("note: history starts at the first sync"),
        "{}",
        table.stdout
    );
    assert!(
        table
            .stdout
            .contains("note: changes between two syncs collapse into one")
    );
    let both = run(env.cmd(&["deals", "report", "stale", "--jq", ".", "--format", "csv"])).code(2);
    both.error_line();
}

#[test]
fn velocity_forecast_and_time_in_status_from_the_same_history() {
    let (env, before, after) = churned();
    // Closes seen by the second sync: deals whose status became won or lost.
    let mut won = 0u64;
    let mut lost = 0u64;
    for (id, b) in &before {
        let Some(a) = after.get(id) else { continue };
        let (sb, sa) = (state(b).1, state(a).1);
        if sa != sb && sa == "won" {
            won += 1;
        } else if sa != sb && sa == "lost" && sb != "cancelled" && sb != "closed" {
            lost += 1;
        }
    }
    let v = run(env.cmd(&["deals", "report", "velocity", "--format", "json"]))
        .code(0)
        .json();
    let rows = v.as_array().expect("array");
    let sum = |k: &str| {
        rows.iter()
            .map(|r| r[k].as_u64().expect("count"))
            .sum::<u64>()
    };
    assert_eq!((sum("won"), sum("lost")), (won, lost));
    assert!(won + lost > 0);

    let f = run(env.cmd(&["deals", "report", "forecast", "--format", "json"]))
        .code(0)
        .json();
    let open_now = after.values().filter(|d| state(d).0).count() as u64;
    let rows = f.as_array().expect("array");
    assert_eq!(
        rows.iter()
            .map(|r| r["deals"].as_u64().expect("deals"))
            .sum::<u64>(),
        open_now
    );
    for r in rows {
        if r["closed_from_status"].as_u64().expect("closed") < 10 {
            assert_eq!(r["weighted"], Value::Null);
            let note = r["note"].as_str().expect("a note");
            assert!(
                note.starts_with("not enough history (need 10 closed deals from status"),
                "{note}"
            );
        }
    }

    let t = run(env.cmd(&["deals", "report", "time-in-status", "--format", "json"]))
        .code(0)
        .json();
    let statuses: BTreeSet<&str> = t["statuses"]
        .as_array()
        .expect("statuses")
        .iter()
        .map(|s| s["status"].as_str().expect("status"))
        .collect();
    assert!(
        statuses.contains("open") && statuses.contains("won"),
        "{statuses:?}"
    );
    assert!(t["longest"].as_array().expect("longest").len() <= 10);
}

#[test]
fn without_a_synced_mirror_it_says_what_to_run() {
    let env = Env::new();
    let out = run(env.cmd(&["deals", "report", "waterfall"]));
    assert_ne!(out.code, 0);
    assert!(out.error_line().contains("crmdash sync"), "{}", out.stderr);
    let bad = run(env.cmd(&["deals", "report", "velocity", "--from", "2026-11-01"])).code(2);
    bad.error_line();
}

#[test]
fn a_demo_has_months_of_history_said_to_be_demo_data() {
    let env = Env::new();
    let out = run(env.bare().args([
        "--demo", "deals", "report", "velocity", "--sync", "--format", "json",
    ]))
    .code(0);
    assert!(
        out.stderr.contains("note: demo data: the deals' history before the demo's first sync was made up by the sandbox"),
        "{}",
        out.stderr
    );
    let months: BTreeSet<String> = out
        .json()
        .as_array()
        .expect("array")
        .iter()
        .map(|r| r["month"].as_str().expect("month").to_string())
        .collect();
    assert!(months.len() >= 3, "{months:?}");
    let w = run(env.bare().args([
        "--demo",
        "deals",
        "report",
        "waterfall",
        "--sync",
        "--since",
        "60d",
        "--format",
        "json",
    ]))
    .code(0)
    .json();
    for r in w.as_array().expect("array") {
        let v: Vec<Decimal> = KEYS.iter().map(|k| dec(&r[*k])).collect();
        assert_eq!(v[0] + v[1] + v[2] - v[3] - v[4] - v[5] - v[6], v[7], "{r}");
    }
    assert!(
        w.as_array()
            .is_some_and(|a| a.iter().any(|r| dec(&r["won"]) > Decimal::ZERO))
    );
}
