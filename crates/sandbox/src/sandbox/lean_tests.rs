//! A lean decode (the mirror's) keeps what a full one does but `extra` and relation fields,
//! over every record the sandbox serves.

use serde_json::value::RawValue;

use crate::api::{ApiRecord, Contact, Deal, Project, Related};
use crate::resource::Resource;
use crate::sandbox::{DEFAULT_SEED, Sizes, each_served, generate};

fn raw(text: &str) -> Box<RawValue> {
    RawValue::from_string(text.to_string()).unwrap()
}

/// What a full decode says that a lean one keeps: `extra` and the relations' fields
/// emptied, the rest as decoded.
fn ids(r: &[Related]) -> Vec<Option<String>> {
    r.iter().map(|r| r.id.clone()).collect()
}

fn same<T: ApiRecord>(
    text: &str,
    strip: impl Fn(T) -> T,
    rels: impl Fn(&T) -> Vec<Vec<Option<String>>>,
) {
    let full = T::from_raw(raw(text));
    let lean = T::from_raw_lean(raw(text));
    match (full, lean) {
        (Ok(full), Ok(lean)) => {
            assert!(lean.extra().is_empty(), "{text}");
            assert_eq!(rels(&full), rels(&lean), "{text}");
            assert_eq!(
                format!("{:?}", strip(full)),
                format!("{:?}", strip(lean)),
                "{text}"
            );
        }
        (Err(_), Err(_)) => {}
        (full, lean) => panic!("{text}: full {full:?}, lean {lean:?}"),
    }
}

fn contact(text: &str) {
    let strip = |mut c: Contact| {
        c.extra = Default::default();
        for r in c.accounts.iter_mut().flatten() {
            r.fields = Default::default();
        }
        for r in c.assigned_users.iter_mut().flatten() {
            r.fields = Default::default();
        }
        if let Some(r) = c.assigned_user.as_mut() {
            r.fields = Default::default();
        }
        c
    };
    same::<Contact>(text, strip, |c| {
        vec![
            ids(c.accounts.as_deref().unwrap_or_default()),
            ids(c.assigned_user.as_slice()),
            ids(c.assigned_users.as_deref().unwrap_or_default()),
            vec![Some(format!("{:?}", c.accounts.as_ref().map(Vec::len)))],
        ]
    });
}

#[test]
fn a_lean_record_is_the_full_one_without_extra_and_relation_fields() {
    let ds = generate(
        DEFAULT_SEED,
        &Sizes {
            contacts: 400,
            ..Sizes::default()
        },
    );
    let mut seen = [0usize; 3];
    each_served(ds, |r, page| {
        for m in page {
            let text = serde_json::Value::Object(m).to_string();
            match r {
                Resource::Contacts => contact(&text),
                Resource::Deals => same::<Deal>(
                    &text,
                    |mut d| {
                        d.extra = Default::default();
                        for r in d.contacts.iter_mut().flatten() {
                            r.fields = Default::default();
                        }
                        for r in d.assigned_users.iter_mut().flatten() {
                            r.fields = Default::default();
                        }
                        for r in [d.account.as_mut(), d.assigned_user.as_mut()]
                            .into_iter()
                            .flatten()
                        {
                            r.fields = Default::default();
                        }
                        d
                    },
                    |d| {
                        vec![
                            ids(d.account.as_slice()),
                            ids(d.contacts.as_deref().unwrap_or_default()),
                        ]
                    },
                ),
                Resource::Projects => same::<Project>(
                    &text,
                    |mut p| {
                        p.extra = Default::default();
                        for r in p.members.iter_mut().flatten() {
                            r.fields = Default::default();
                        }
                        if let Some(r) = p.owner.as_mut() {
                            r.fields = Default::default();
                        }
                        p
                    },
                    |p| vec![ids(p.owner.as_slice())],
                ),
            }
            seen[r as usize] += 1;
        }
    });
    assert!(seen.iter().all(|n| *n > 50), "{seen:?}");
    // Relations of every shape the parsed way knows: null, wrapped, wrapped twice, an id
    // alone (text or number), a boolean, a list where one is expected and the other way
    // round, items of every kind, ids given twice or as objects, escapes, deep nesting.
    let deep = format!("{}1{}", "[".repeat(140), "]".repeat(140));
    let shapes = [
        "null".to_string(),
        r#"{"data": null}"#.into(),
        r#"{"data": {"id": 5}}"#.into(),
        r#"{"data": {"data": {"id": "x"}}}"#.into(),
        r#"{"data": {"data": null}}"#.into(),
        r#"{"data": [1, 2]}"#.into(),
        r#""usr_1""#.into(),
        "7".into(),
        "1.50".into(),
        "-0".into(),
        "true".into(),
        r#"[{"id": "a"}, "b", 3, null, true, [1], {"data": {"id": "c"}}, {"data": null}]"#.into(),
        r#"{"id": {"a": 1}, "name": "n"}"#.into(),
        r#"{"id": "a", "id": "b"}"#.into(),
        r#"{"i\u0064": "esc", "name": "x\"y"}"#.into(),
        r#"{"name": "no id"}"#.into(),
        r#"{"id": 12345678901234567890123}"#.into(),
        format!(r#"{{"id": "d", "n": {deep}}}"#),
        format!(r#"[{{"id": "d", "n": {deep}}}]"#),
        "[]".into(),
        "{}".into(),
    ];
    for s in &shapes {
        for key in ["accounts", "assigned_user", "assigned_users"] {
            contact(&format!(
                r#"{{"id": "con_1", "{key}": {s}, "tags": ["t"]}}"#
            ));
        }
    }
}
