//! The finder reads only the fields it compares, straight from the stored records, and keeps
//! them compact: it must see every contact exactly as the decoder does, and find the same
//! clusters as the finder that decoded whole records.

use crate::cli_support::run;
use crmdash::api::Contact;
use crmdash::insights::dupes::Person;
use crmdash::insights::dupes::mirrored::{self, Finder, ScanOptions, report_of};
use crmdash::mirror::{Mirror, MirrorLocation};

/// `contacts dupes --format jsonl` of the sandbox's labelled set (planted near duplicates,
/// `[ui] region = "de"`) as the finder wrote it before it read fields instead of records.
const BEFORE: &str = include_str!("data/dupes_before_compact_read.jsonl");

#[test]
fn the_quick_read_sees_every_contact_as_the_decoder_and_the_clusters_stay_the_same() {
    let env = super::dupes::synced();
    let loc = MirrorLocation::new(
        env.dir.path().join("xdg-cache/crmdash/mirror"),
        "default",
        &env.sb.base_url(),
    );
    let mirror = Mirror::open(&loc.db_path()).unwrap().mirror;
    let mut decoded = Vec::new();
    mirror
        .each_live::<Contact>(|c| decoded.push(Person::from_contact(&c)))
        .unwrap();
    let read = mirrored::people(&mirror).unwrap();
    assert_eq!(read.len(), 1050);
    assert_eq!(read, decoded);
    // The scan over the compact table and the report of the decoded people agree.
    let finder = Finder {
        region: Some("de".into()),
        ..Finder::default()
    };
    let scanned = mirrored::scan(&mirror, &finder, &ScanOptions::default()).unwrap();
    let of_decoded = report_of(decoded, &[], &finder, &ScanOptions::default());
    assert_eq!(scanned.clusters, of_decoded.clusters);
    assert_eq!(scanned.people, of_decoded.people);
    assert_eq!(scanned.compared, of_decoded.compared);
    // And the command's output is byte for byte the one from before.
    let out = run(env.cmd(&["contacts", "dupes", "--format", "jsonl"])).code(0);
    assert_eq!(out.stdout, BEFORE);
}

/// The form's check looks for a close name among the account's contacts sharing a word of
/// it: an account of hundreds of contacts (more than a blocking key's 500) still has its
/// namesake found, and a name sharing no word is not read at all.
#[test]
fn the_form_finds_a_close_name_at_an_account_of_hundreds() {
    use crmdash::api::ApiRecord;
    use crmdash::insights::dupes::mirrored::near_contacts;
    use crmdash::mirror::SyncState;
    let contact = |id: &str, first: &str, last: &str| -> Contact {
        let json = serde_json::json!({
            "id": id, "first_name": first, "last_name": last,
            "account_ids": ["acc_big"], "accounts": [{"id": "acc_big", "name": "Big GmbH"}],
        });
        Contact::from_raw(serde_json::value::RawValue::from_string(json.to_string()).unwrap())
            .unwrap()
    };
    let mut all: Vec<Contact> = (0..700)
        .map(|i| contact(&format!("con_{i:04}"), &format!("Vorname{i}"), "Beispiel"))
        .collect();
    all.push(contact("con_hz", "Hannah", "Zimmermann"));
    let dir = tempfile::tempdir().unwrap();
    let mut mirror = Mirror::open(&dir.path().join("m.sqlite3")).unwrap().mirror;
    mirror
        .apply_page(&all, None, &SyncState::default())
        .unwrap();
    let finder = Finder::default();
    let draft = |name: &str| Person {
        name: name.into(),
        accounts: vec!["acc_big".into()],
        ..Person::default()
    };
    let found = near_contacts(&mirror, &draft("Hannah Zimmremann"), &finder, 5).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].id, "con_hz");
    assert!(found[0].reasons[0].ends_with("+ same account"), "{found:?}");
    // Another account: the same name is another person.
    let elsewhere = Person {
        accounts: vec!["acc_other".into()],
        ..draft("Hannah Zimmermann")
    };
    assert!(
        near_contacts(&mirror, &elsewhere, &finder, 5)
            .unwrap()
            .is_empty()
    );
}
