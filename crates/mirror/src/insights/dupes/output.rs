//! Near duplicate clusters as text (`contacts dupes` and the dashboard's export of `:dupes`
//! write the same bytes): a table for reading, one JSON document, JSON lines (a cluster a
//! line) or CSV (a contact a row).

use std::io::Write;

use serde_json::json;

use super::mirrored::DupesReport;
use super::{Cluster, MAX_BLOCK, Person};
use crate::output::{sanitize_cell, truncate_to_width};

/// One line saying what was found among how many.
pub fn summary(r: &DupesReport) -> String {
    let members: usize = r.clusters.iter().map(|c| c.members.len()).sum();
    let crowded = if r.crowded_keys > 0 {
        format!(
            "; {} email, phone or name+account key(s) shared by more than {MAX_BLOCK} contacts not compared",
            r.crowded_keys,
        )
    } else {
        String::new()
    };
    format!(
        "{} cluster(s) of {members} contacts at score {:.2} or more, among {} contacts ({} candidate pairs compared){crowded}",
        r.clusters.len(),
        r.min_score,
        r.contacts,
        r.compared
    )
}

/// A member's facts on one line: name, `<email>`, phone, accounts.
pub fn member_facts(p: &Person) -> String {
    let mut facts = vec![sanitize_cell(&p.name)];
    facts.extend(p.email.iter().map(|e| format!("<{}>", sanitize_cell(e))));
    facts.extend(p.phone.iter().map(|t| sanitize_cell(t)));
    if !p.accounts.is_empty() {
        facts.push(format!("account {}", p.accounts.join(", ")));
    }
    facts.join("  ")
}

/// The table: each cluster with its members and the pairs that link them, lines cut to
/// `width`.
pub fn write_table(r: &DupesReport, width: usize, out: &mut impl Write) -> std::io::Result<()> {
    for (n, c) in r.clusters.iter().enumerate() {
        writeln!(
            out,
            "{}. score {:.2}, {} contacts",
            n + 1,
            c.score,
            c.members.len()
        )?;
        let id_w = c
            .members
            .iter()
            .map(|&i| r.people[i].id.chars().count())
            .max()
            .unwrap_or(0);
        for &i in &c.members {
            let p = &r.people[i];
            let line = format!("   {:<id_w$}  {}", sanitize_cell(&p.id), member_facts(p));
            writeln!(out, "{}", truncate_to_width(line.trim_end(), width))?;
        }
        for p in &c.pairs {
            let line = format!(
                "   {} ~ {} {:.2}: {}",
                r.people[p.a].id,
                r.people[p.b].id,
                p.score,
                p.reasons.join(", ")
            );
            writeln!(out, "{}", truncate_to_width(&sanitize_cell(&line), width))?;
        }
    }
    if r.clusters.is_empty() {
        writeln!(out, "No near duplicates.")?;
    }
    writeln!(out, "{}", summary(r))
}

fn member_json(p: &Person) -> serde_json::Value {
    json!({
        "id": p.id,
        "name": p.name,
        "email": p.email,
        "phone": p.phone,
        "account_ids": p.accounts,
    })
}

fn cluster_json(r: &DupesReport, n: usize, c: &Cluster) -> serde_json::Value {
    json!({
        "cluster": n + 1,
        "score": round(c.score),
        "members": c.members.iter().map(|&i| member_json(&r.people[i])).collect::<Vec<_>>(),
        "pairs": c.pairs.iter().map(|p| json!({
            "a": r.people[p.a].id,
            "b": r.people[p.b].id,
            "score": round(p.score),
            "reasons": p.reasons,
        })).collect::<Vec<_>>(),
    })
}

/// Scores to three places: `0.97`, not `0.9700000000000001`.
fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// One JSON document, written a cluster at a time (100,000 contacts can make thousands of
/// clusters: they are never all held as one JSON value).
pub fn write_json(r: &DupesReport, out: &mut impl Write) -> std::io::Result<()> {
    let head = json!({
        "synced_at": r.synced.map(|t| t.to_rfc3339()),
        "min_score": r.min_score,
        "contacts": r.contacts,
        "compared": r.compared,
    });
    let head = serde_json::to_string_pretty(&head)?;
    // The head's closing brace gives way to the clusters.
    let open = head.trim_end().trim_end_matches('}').trim_end();
    write!(out, "{open},\n  \"clusters\": [")?;
    for (n, c) in r.clusters.iter().enumerate() {
        let sep = if n == 0 { "\n" } else { ",\n" };
        write!(out, "{sep}    ")?;
        serde_json::to_writer(&mut *out, &cluster_json(r, n, c))?;
    }
    let close = if r.clusters.is_empty() { "]" } else { "\n  ]" };
    writeln!(out, "{close}\n}}")
}

pub fn write_jsonl(r: &DupesReport, out: &mut impl Write) -> std::io::Result<()> {
    for (n, c) in r.clusters.iter().enumerate() {
        serde_json::to_writer(&mut *out, &cluster_json(r, n, c))?;
        writeln!(out)?;
    }
    Ok(())
}

/// The reasons of the best pair a member is in (`a; b`).
pub fn member_reasons(c: &Cluster, i: usize) -> String {
    c.pairs
        .iter()
        .find(|pair| pair.a == i || pair.b == i)
        .map(|pair| pair.reasons.join("; "))
        .unwrap_or_default()
}

/// A contact a row, with its cluster's number and score and the reasons of its best pair.
pub fn write_csv(r: &DupesReport, out: &mut impl Write) -> std::io::Result<()> {
    let mut w = crate::output::csv_writer(out);
    w.write_record([
        "cluster",
        "score",
        "id",
        "name",
        "email",
        "phone",
        "account_ids",
        "reasons",
    ])?;
    for (n, c) in r.clusters.iter().enumerate() {
        for &i in &c.members {
            let p = &r.people[i];
            w.write_record([
                (n + 1).to_string(),
                format!("{:.2}", c.score),
                p.id.clone(),
                p.name.clone(),
                p.email.clone().unwrap_or_default(),
                p.phone.clone().unwrap_or_default(),
                p.accounts.join(" "),
                member_reasons(c, i),
            ])?;
        }
    }
    w.flush()
}
