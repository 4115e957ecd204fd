//! `crmdash deals summary` against the sandbox, checked to the cent against sums computed here,
//! independently, from the sandbox's seed file (`assets/sandbox/deals.json`).

use std::collections::BTreeMap;
use std::str::FromStr;

use chrono::{DateTime, Datelike, Months, NaiveDate, Utc};
use rust_decimal::Decimal;
use serde_json::Value;

use crate::cli_support::{Env, run};

/// (status, currency) -> (count, total) from the seed file.
fn seed_deals() -> Vec<Value> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/sandbox/deals.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn value_of(d: &Value) -> Decimal {
    match &d["value"] {
        Value::String(s) => Decimal::from_str(s).unwrap(),
        Value::Number(n) => Decimal::from_str(&n.to_string()).unwrap(),
        other => panic!("seed deal without a value: {other}"),
    }
}

fn s(v: &Value) -> String {
    v.as_str().unwrap().to_string()
}

fn dec(v: &Value) -> Decimal {
    Decimal::from_str(v.as_str().expect("amounts are strings")).unwrap()
}

#[test]
fn totals_by_status_and_currency_equal_the_seed_to_the_cent() {
    let env = Env::new();
    let mut expected: BTreeMap<(String, String), (u64, Decimal)> = BTreeMap::new();
    for d in seed_deals() {
        let e = expected
            .entry((s(&d["status"]), s(&d["currency"]).to_uppercase()))
            .or_default();
        e.0 += 1;
        e.1 += value_of(&d);
    }
    let out = run(env.cmd(&["deals", "summary", "--format", "json"])).code(0);
    let doc = out.json();
    assert_eq!(doc["deals"], 500);
    assert_eq!(doc["partial"], false);
    assert_eq!(doc["pages"], 5);
    let got: BTreeMap<(String, String), (u64, Decimal)> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["without_value"], 0);
            (
                (s(&r["status"]), s(&r["currency"])),
                (r["count"].as_u64().unwrap(), dec(&r["total"])),
            )
        })
        .collect();
    assert_eq!(got, expected);
    // Pipeline order: open before won before lost.
    let statuses: Vec<String> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| s(&r["status"]))
        .collect();
    let first = |st: &str| statuses.iter().position(|x| x == st).unwrap();
    assert!(first("open") < first("on_hold") && first("won") < first("lost"));
}

#[test]
fn a_status_filter_and_totals_per_currency_in_csv() {
    let env = Env::new();
    let mut expected: BTreeMap<String, (u64, Decimal)> = BTreeMap::new();
    for d in seed_deals().iter().filter(|d| d["status"] == "won") {
        let e = expected.entry(s(&d["currency"])).or_default();
        e.0 += 1;
        e.1 += value_of(d);
    }
    let out = run(env.cmd(&[
        "deals", "summary", "--status", "won", "--by", "currency", "--format", "csv",
    ]))
    .code(0);
    let mut lines = out.stdout.lines();
    assert_eq!(lines.next(), Some("currency,count,total,without_value"));
    let got: BTreeMap<String, (u64, Decimal)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].to_string(),
                (f[1].parse().unwrap(), Decimal::from_str(f[2]).unwrap()),
            )
        })
        .collect();
    assert_eq!(got, expected);
    // The filter went to the server, not applied here after reading everything.
    let reqs = env.requests_to("GET", "deals");
    assert_eq!(reqs.len(), 2, "103 won deals are two pages of 100");
    assert!(
        reqs.iter()
            .all(|r| r.query.as_deref().unwrap_or("").contains("status=won")),
        "{} requests",
        reqs.len()
    );
}

#[test]
fn won_and_lost_per_month_by_updated_at() {
    let env = Env::new();
    env.write_config("[reschedule]\ntimezone = \"UTC\"\n");
    let today = Utc::now().date_naive();
    let first = NaiveDate::from_ymd_opt(today.year(), today.month(), 1).unwrap() - Months::new(119);
    let mut expected: BTreeMap<(String, String), (u64, Decimal, u64, Decimal)> = BTreeMap::new();
    for d in seed_deals() {
        let won = d["status"] == "won";
        if !won && d["status"] != "lost" {
            continue;
        }
        let t: DateTime<Utc> = s(&d["updated_at"]).parse().unwrap();
        if t.date_naive() < first {
            continue;
        }
        let e = expected
            .entry((t.format("%Y-%m").to_string(), s(&d["currency"])))
            .or_default();
        if won {
            e.0 += 1;
            e.1 += value_of(&d);
        } else {
            e.2 += 1;
            e.3 += value_of(&d);
        }
    }
    assert!(expected.len() > 20, "the seed spreads over many months");
    let out = run(env.cmd(&[
        "deals",
        "summary",
        "--by",
        "month",
        "--month-by",
        "updated_at",
        "--months",
        "120",
        "--format",
        "json",
    ]))
    .code(0);
    let doc = out.json();
    assert_eq!(doc["month_by"], "updated_at");
    let dated: u64 = expected.values().map(|e| e.0 + e.2).sum();
    assert_eq!(
        doc["month_fields"],
        serde_json::json!({ "updated_at": dated })
    );
    assert_eq!(month_rows(&doc), expected);
}

/// Month rows of a `--by month` JSON document: (month, currency) -> (won, won total, lost,
/// lost total).
fn month_rows(doc: &Value) -> BTreeMap<(String, String), (u64, Decimal, u64, Decimal)> {
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                (s(&r["month"]), s(&r["currency"])),
                (
                    r["won_count"].as_u64().unwrap(),
                    dec(&r["won_total"]),
                    r["lost_count"].as_u64().unwrap(),
                    dec(&r["lost_total"]),
                ),
            )
        })
        .collect()
}

#[test]
fn by_default_months_come_from_the_close_date_the_service_sends() {
    let env = Env::new();
    env.write_config("[reschedule]\ntimezone = \"UTC\"\n");
    // The deals as served (the sandbox adds `expected_close_date` to about half of them),
    // read here page by page over raw HTTP.
    let mut served: Vec<Value> = Vec::new();
    for page in 1.. {
        let body: Value =
            serde_json::from_str(&env.raw_get(&format!("deals?per_page=100&page={page}"))).unwrap();
        let data = body["data"].as_array().unwrap().clone();
        if data.is_empty() {
            break;
        }
        served.extend(data);
    }
    let today = Utc::now().date_naive();
    let first = NaiveDate::from_ymd_opt(today.year(), today.month(), 1).unwrap() - Months::new(119);
    let mut expected: BTreeMap<(String, String), (u64, Decimal, u64, Decimal)> = BTreeMap::new();
    let mut by_field: BTreeMap<&str, u64> = BTreeMap::new();
    for d in &served {
        let won = d["status"] == "won";
        if !won && d["status"] != "lost" {
            continue;
        }
        let (field, day) = match d["expected_close_date"].as_str() {
            Some(date) => ("expected_close_date", NaiveDate::from_str(date).unwrap()),
            None => (
                "updated_at",
                s(&d["updated_at"])
                    .parse::<DateTime<Utc>>()
                    .unwrap()
                    .date_naive(),
            ),
        };
        *by_field.entry(field).or_default() += 1;
        if day < first {
            continue;
        }
        let e = expected
            .entry((day.format("%Y-%m").to_string(), s(&d["currency"])))
            .or_default();
        if won {
            e.0 += 1;
            e.1 += value_of(d);
        } else {
            e.2 += 1;
            e.3 += value_of(d);
        }
    }
    assert!(
        by_field.len() == 2,
        "both kinds of deal are served: {by_field:?}"
    );
    let out = run(env.cmd(&[
        "deals", "summary", "--by", "month", "--months", "120", "--format", "json",
    ]))
    .code(0);
    let doc = out.json();
    assert_eq!(doc["month_by"], "auto");
    assert_eq!(doc["month_fields"], serde_json::json!(by_field));
    assert_eq!(month_rows(&doc), expected);
    let table = run(env.cmd(&[
        "deals", "summary", "--by", "month", "--months", "120", "--format", "table",
    ]))
    .code(0);
    assert!(
        table.stdout.contains(&format!(
            "months by expected_close_date {}, updated_at {}",
            by_field["expected_close_date"], by_field["updated_at"]
        )),
        "{}",
        table.stdout
    );
}

#[test]
fn a_page_cap_says_the_figures_are_partial() {
    let env = Env::new();
    let doc = run(env.cmd(&["deals", "summary", "--max-pages", "2", "--format", "json"]))
        .code(0)
        .json();
    assert_eq!(doc["partial"], true);
    assert_eq!(doc["pages"], 2);
    assert_eq!(doc["deals"], 200);
    assert_eq!(doc["total"], 500);
    assert_eq!(env.requests_to("GET", "deals").len(), 2);
    let table =
        run(env.cmd(&["deals", "summary", "--max-pages", "2", "--format", "table"])).code(0);
    assert!(
        table.stdout.contains("PARTIAL: first 2 pages of 500 deals"),
        "{}",
        table.stdout
    );
    assert!(table.stdout.contains("STATUS"), "{}", table.stdout);
}

#[test]
fn no_matching_deal_still_prints_the_header() {
    let env = Env::new();
    let out = run(env.cmd(&[
        "deals",
        "summary",
        "--status",
        "no-such-status",
        "--format",
        "csv",
    ]))
    .code(0);
    assert_eq!(out.stdout, "status,currency,count,total,without_value\n");
}
