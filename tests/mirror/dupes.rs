//! Near duplicates through the real binary: `contacts dupes` over a mirror synced from a
//! sandbox with planted near duplicates (real HTTP on 127.0.0.1), and the import's dry run
//! naming the rows that look like a row before them or a mirrored contact.

use std::collections::HashMap;

use crate::cli_support::{Env, run};
use crmdash::api::Contact;
use crmdash::mirror::{Mirror, MirrorLocation};
use crmdash::sandbox::{PlantKind, SandboxConfig};
use serde_json::Value;

/// A sandbox with near duplicates planted, `[ui] region = "DE"`, synced.
pub(crate) fn synced() -> Env {
    let env = Env::with(SandboxConfig {
        near_duplicates: true,
        ..SandboxConfig::default()
    });
    env.write_config("[ui]\nregion = \"de\"\n");
    run(env.cmd(&["sync"])).code(0);
    env
}

/// Contact id -> the number of its cluster.
fn clusters_of(json: &Value) -> HashMap<String, u64> {
    let mut out = HashMap::new();
    for c in json["clusters"].as_array().unwrap() {
        for m in c["members"].as_array().unwrap() {
            out.insert(
                m["id"].as_str().unwrap().to_string(),
                c["cluster"].as_u64().unwrap(),
            );
        }
    }
    out
}

#[test]
fn contacts_dupes_finds_every_planted_kind_keeps_look_alikes_apart_and_is_stable() {
    let env = synced();
    let out = run(env.cmd(&["contacts", "dupes", "--format", "json"])).code(0);
    let json = out.json();
    let of = clusters_of(&json);
    let planted = env.sb.planted();
    assert_eq!(planted.len(), 50);
    let mut missed = Vec::new();
    for p in planted {
        let together = of.contains_key(&p.id) && of.get(&p.id) == of.get(&p.original);
        if p.kind.is_duplicate() && !together {
            missed.push(p.clone());
        }
        if p.kind == PlantKind::LookAlike {
            assert!(!together, "look-alike {p:?} joined to its original");
        }
    }
    // The targets: recall 0.9 at least on the planted duplicates.
    let duplicates = planted.iter().filter(|p| p.kind.is_duplicate()).count();
    assert!(
        missed.len() * 10 <= duplicates,
        "missed {missed:#?} of {duplicates}"
    );
    // Each kind's reason, with a score at or above the threshold.
    let reasons: Vec<(f64, String)> = json["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["pairs"].as_array().unwrap().clone())
        .map(|p| {
            let r: Vec<&str> = p["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            (p["score"].as_f64().unwrap(), r.join(", "))
        })
        .collect();
    for want in [
        "same email in another case",
        "same Gmail address (dots, +tag ignored)",
        "same phone",
        "+ same account",
    ] {
        assert!(
            reasons.iter().any(|(s, r)| r.contains(want) && *s >= 0.85),
            "no pair says {want}: {reasons:#?}"
        );
    }
    // Best first.
    let scores: Vec<f64> = json["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["score"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    // The same clusters, in the same order, every run.
    let again = run(env.cmd(&["contacts", "dupes", "--format", "json"])).code(0);
    assert_eq!(again.json()["clusters"], json["clusters"]);

    // --email narrows to the clusters of that mailbox (the case aside).
    let case = planted
        .iter()
        .find(|p| p.kind == PlantKind::EmailCase)
        .unwrap();
    let email = json["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["members"].as_array().unwrap().clone())
        .find(|m| m["id"] == case.original.as_str())
        .unwrap()["email"]
        .as_str()
        .unwrap()
        .to_uppercase();
    let one = run(env.cmd(&["contacts", "dupes", "--email", &email, "--format", "json"]))
        .code(0)
        .json();
    let ids: Vec<&str> = one["clusters"][0]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&case.original.as_str()) && ids.contains(&case.id.as_str()));
    assert_eq!(one["clusters"].as_array().unwrap().len(), 1, "{one}");

    // Table, CSV and JSON lines.
    let table = run(env.cmd(&["contacts", "dupes", "--format", "table"])).code(0);
    assert!(table.stdout.starts_with("1. score "), "{}", table.stdout);
    assert!(table.stdout.contains(" ~ "), "{}", table.stdout);
    let csv = run(env.cmd(&["contacts", "dupes", "--format", "csv"])).code(0);
    assert!(
        csv.stdout
            .starts_with("cluster,score,id,name,email,phone,account_ids,reasons\r\n1,"),
        "{}",
        csv.stdout
    );
    let lines = run(env.cmd(&["contacts", "dupes", "--format", "jsonl"])).code(0);
    assert_eq!(lines.stdout.lines().count(), scores.len());
    // A higher bar lists fewer.
    let strict = run(env.cmd(&[
        "contacts",
        "dupes",
        "--min-score",
        "0.99",
        "--format",
        "json",
    ]))
    .code(0)
    .json();
    assert!(strict["clusters"].as_array().unwrap().len() < scores.len());
    run(env.cmd(&["contacts", "dupes", "--min-score", "2"])).code(5);
}

#[test]
fn contacts_dupes_before_any_sync_says_what_to_do_and_the_demo_brings_its_own() {
    let env = Env::new();
    let out = run(env.cmd(&["contacts", "dupes"])).code(1);
    assert!(
        out.error_line().contains("run `crmdash sync` first"),
        "{}",
        out.stderr
    );
    // --demo: a sandbox with planted near duplicates, synced into the run's own mirror.
    let mut demo = env.bare();
    demo.args(["--demo", "contacts", "dupes", "--format", "json"]);
    let json = run(demo).code(0).json();
    assert!(json["contacts"].as_u64().unwrap() > 1000, "{json}");
    assert!(json["clusters"].as_array().unwrap().len() >= 30, "{json}");
}

fn mirrored_contacts(env: &Env) -> Vec<Contact> {
    let loc = MirrorLocation::new(
        env.dir.path().join("xdg-cache/crmdash/mirror"),
        "default",
        &env.sb.base_url(),
    );
    let mirror = Mirror::open(&loc.db_path()).unwrap().mirror;
    let mut all = Vec::new();
    mirror.each_live::<Contact>(|c| all.push(c)).unwrap();
    all
}

#[test]
fn the_import_dry_run_names_near_duplicates_in_the_file_and_in_the_mirror() {
    let env = synced();
    // A mirrored Berlin number, written another way in the file (the import, like the
    // service, wants an international prefix).
    let known = mirrored_contacts(&env)
        .into_iter()
        .find(|c| {
            c.phone.as_deref().is_some_and(|p| p.starts_with("+49 30 "))
                && c.first_name.is_some()
                && c.last_name.is_some()
        })
        .expect("a Berlin number in the seed");
    let other_way = format!(
        "0049-30-{}",
        &known.phone.as_deref().unwrap()[7..].replace(' ', "")
    );
    let csv = format!(
        "first_name,last_name,email,phone\n\
         Hannah,Zimmermann,hz@example.com,+49 40 5550001\n\
         Hannah,Zimmremann,,0049 40 5550001\n\
         {},{},,{other_way}\n\
         Ada,Lovelace,ada@example.org,\n",
        known.first_name.as_deref().unwrap(),
        known.last_name.as_deref().unwrap(),
    );
    let file = env.dir.path().join("people.csv");
    std::fs::write(&file, csv).unwrap();
    let path = file.to_str().unwrap();
    let out = run(env.cmd(&["contacts", "import", path, "--dry-run"])).code(0);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0], "line 2: would create (hz@example.com)",
        "{}",
        out.stdout
    );
    assert!(
        lines[1].starts_with("line 3: would create (no email); near duplicate of line 2 (")
            && lines[1].contains("same phone"),
        "{}",
        out.stdout
    );
    assert!(
        lines[2].contains(&format!("near duplicate of contact {} (", known.id))
            && lines[2].contains("same phone"),
        "{}",
        out.stdout
    );
    assert_eq!(lines[3], "line 5: would create (ada@example.org)");
    assert!(
        out.stdout
            .contains("2 would be created though near duplicates"),
        "{}",
        out.stdout
    );

    // --dupes skip: the same rows skipped, in the same report formats.
    let json = run(env.cmd(&[
        "contacts",
        "import",
        path,
        "--dry-run",
        "--dupes",
        "skip",
        "--format",
        "json",
    ]))
    .code(0)
    .json();
    let outcomes: Vec<&str> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(
        outcomes,
        ["create", "near_duplicate", "near_duplicate", "create"]
    );
    assert_eq!(
        json["rows"][2]["near_duplicate"]["of"],
        format!("contact {}", known.id)
    );
    assert_eq!(json["summary"]["near_duplicates_skipped"], 2);
    // --dupes create: no look.
    let plain =
        run(env.cmd(&["contacts", "import", path, "--dry-run", "--dupes", "create"])).code(0);
    assert!(!plain.stdout.contains("near duplicate"), "{}", plain.stdout);
    // Nothing was sent.
    assert!(env.requests_to("POST", "/public/v1/contacts").is_empty());
}

/// The form's check (`near_contacts`): each kind of near duplicate of a synced contact is
/// found through the mirror's indexes with its reason; a namesake at another account with
/// another phone and email is not.
#[test]
fn the_form_check_finds_a_draft_s_near_duplicates_through_the_indexes() {
    use crmdash::insights::dupes::Person;
    use crmdash::insights::dupes::mirrored::{Finder, near_contacts};
    let env = synced();
    let loc = MirrorLocation::new(
        env.dir.path().join("xdg-cache/crmdash/mirror"),
        "default",
        &env.sb.base_url(),
    );
    let mirror = Mirror::open(&loc.db_path()).unwrap().mirror;
    let all = mirrored_contacts(&env);
    let finder = Finder {
        region: Some("DE".into()),
        ..Finder::default()
    };
    let model = all
        .iter()
        .map(Person::from_contact)
        .find(|p| {
            p.phone.as_deref().is_some_and(|t| t.starts_with("+49 "))
                && p.email.is_some()
                && !p.accounts.is_empty()
                && p.name.split(' ').count() == 2
                && p.name
                    .split(' ')
                    .nth(1)
                    .is_some_and(|l| l.chars().count() >= 5)
        })
        .expect("a German contact with email and account");
    let check = |draft: Person| -> Vec<(String, String)> {
        near_contacts(&mirror, &draft, &finder, 5)
            .unwrap()
            .into_iter()
            .map(|n| (n.id, n.reasons.join(", ")))
            .collect()
    };
    let found = |hits: &[(String, String)], why: &str| {
        hits.iter()
            .any(|(id, r)| id == &model.id && r.contains(why))
    };
    let blank = Person::default();
    // The phone written nationally (`030 …` for `+49 30 …`), typed first (no name yet).
    let national = format!("0{}", model.phone.as_deref().unwrap()[4..].trim());
    let hits = check(Person {
        phone: Some(national.clone()),
        ..blank.clone()
    });
    assert!(found(&hits, "same phone"), "{hits:?}");
    // Under a clearly other name it is a shared line (0.75), below the threshold.
    let hits = check(Person {
        name: "Zebulon Quaxworth".into(),
        phone: Some(national),
        ..blank.clone()
    });
    assert!(!hits.iter().any(|(id, _)| id == &model.id), "{hits:?}");
    // The email in capitals.
    let hits = check(Person {
        name: model.name.clone(),
        email: model.email.as_deref().map(str::to_uppercase),
        ..blank.clone()
    });
    assert!(found(&hits, "same email in another case"), "{hits:?}");
    // A typo in the family name, with the account.
    let (first, last) = model.name.split_once(' ').unwrap();
    let mut typo: Vec<char> = last.chars().collect();
    let n = typo.len();
    typo.swap(n - 2, n - 1);
    let hits = check(Person {
        name: format!("{first} {}", typo.into_iter().collect::<String>()),
        accounts: model.accounts.clone(),
        ..blank.clone()
    });
    assert!(found(&hits, "+ same account"), "{hits:?}");
    // The same name at another account, with another phone and email: another person.
    let hits = check(Person {
        name: model.name.clone(),
        email: Some("someone.else@elsewhere.example".into()),
        phone: Some("+1 555 010 9999".into()),
        accounts: vec!["acc_no_such".into()],
        ..blank
    });
    assert!(!hits.iter().any(|(id, _)| id == &model.id), "{hits:?}");
}
