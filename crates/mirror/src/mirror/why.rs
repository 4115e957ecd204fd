//! Why a search hit matched: the field holding the words typed, read back from the record's
//! raw JSON, so a hit can say `assignee: Jörg Müller` or `email: j.kang@gmail.com` rather
//! than leave the user guessing. Only the hits shown are explained (a few dozen records).

use serde_json::{Map, Value};

use super::doc::skip_key;
use super::search::{fold, phone_digits};
use crate::api::{Related, value_to_string};

/// Relations a record may carry included, and what a reason calls them.
const RELATIONS: [(&str, &str); 7] = [
    ("assigned_user", "assignee"),
    ("assigned_users", "assignee"),
    ("account", "account"),
    ("accounts", "account"),
    ("contacts", "contact"),
    ("owner", "owner"),
    ("members", "member"),
];

/// The fields of the record's own name: a match there reads just `name` (the label shows it).
const NAME_FIELDS: [&str; 4] = ["name", "full_name", "first_name", "last_name"];

/// A value shown in a reason is cut to this many characters.
const MAX_SHOWN: usize = 60;

/// What a reason says when the words matched nowhere this reading can point to.
const ELSEWHERE: &str = "other text of the record";

/// One piece of text of the record and the reason a match in it gives.
struct Leaf {
    reason: String,
    text: String,
}

/// The reasons `text` matched the record `raw`, joined by `; ` in the order of the words
/// typed (`name; email: j.kang@gmail.com`). A near match (the typo fallback) is always
/// `name (near match)`: the fallback reads names only.
pub(super) fn explain(raw: &str, text: &str, near: bool) -> String {
    if near {
        return "name (near match)".to_string();
    }
    let Ok(Value::Object(record)) = serde_json::from_str::<Value>(raw) else {
        return ELSEWHERE.to_string();
    };
    let leaves = leaves(&record);
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(fold)
        .collect();
    let whole = |l: &&Leaf| words.iter().all(|w| has_prefix(&l.text, w));
    let found: Vec<&Leaf> = match phone_digits(text) {
        Some(digits) => leaves
            .iter()
            .find(|l| digits_of(&l.text).contains(&digits) || has_prefix(&l.text, &digits))
            .into_iter()
            .collect(),
        // The words in a row in one text (`j.kang@` in an email) explain best; then one text
        // holding them all; else each word where it is.
        None => match leaves
            .iter()
            .find(|l| in_a_row(&l.text, &words))
            .or_else(|| leaves.iter().find(whole))
        {
            Some(one) => vec![one],
            None => words
                .iter()
                .filter_map(|w| leaves.iter().find(|l| has_prefix(&l.text, w)))
                .collect(),
        },
    };
    let mut reasons: Vec<&str> = Vec::new();
    for leaf in found {
        if !reasons.contains(&leaf.reason.as_str()) {
            reasons.push(&leaf.reason);
        }
    }
    if reasons.is_empty() {
        ELSEWHERE.to_string()
    } else {
        reasons.join("; ")
    }
}

/// Whether a word of `text` (split and folded as the index does) starts with `word`.
fn has_prefix(text: &str, word: &str) -> bool {
    fold(text)
        .split(|c: char| !c.is_alphanumeric())
        .any(|t| t.starts_with(word))
}

/// Whether the words start consecutive words of `text`, in order.
fn in_a_row(text: &str, words: &[String]) -> bool {
    if words.is_empty() {
        return false;
    }
    let folded = fold(text);
    let tokens: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .collect();
    tokens.windows(words.len()).any(|run| {
        run.iter()
            .zip(words)
            .all(|(t, w)| t.starts_with(w.as_str()))
    })
}

fn digits_of(text: &str) -> String {
    text.chars().filter(char::is_ascii_digit).collect()
}

/// The record's texts in the order a reason prefers them: its name, its own fields, the
/// included relations, then nested values (custom fields...).
fn leaves(record: &Map<String, Value>) -> Vec<Leaf> {
    let mut name: Vec<String> = Vec::new();
    let mut own = Vec::new();
    let mut related = Vec::new();
    let mut nested = Vec::new();
    for (key, value) in record {
        if skip_key(key) {
            continue;
        }
        if NAME_FIELDS.contains(&key.as_str()) {
            texts(value, &mut |t| name.push(t));
        } else if let Some((_, called)) = RELATIONS.iter().find(|(k, _)| k == key) {
            let items: Vec<&Value> = match value {
                Value::Array(items) => items.iter().collect(),
                one => vec![one],
            };
            for item in items {
                let label = relation_label(item);
                texts(item, &mut |t| {
                    related.push(Leaf {
                        reason: format!("{called}: {}", shorten(&label)),
                        text: t,
                    })
                });
            }
        } else {
            match value {
                Value::Object(fields) => {
                    for (sub, v) in fields {
                        if skip_key(sub) {
                            continue;
                        }
                        texts(v, &mut |t| {
                            nested.push(Leaf {
                                reason: format!("{key}.{sub}: {}", shorten(&t)),
                                text: t,
                            })
                        });
                    }
                }
                other => texts(other, &mut |t| {
                    own.push(Leaf {
                        reason: format!("{key}: {}", shorten(&t)),
                        text: t,
                    })
                }),
            }
        }
    }
    let name = (!name.is_empty()).then(|| Leaf {
        reason: "name".to_string(),
        text: name.join(" "),
    });
    name.into_iter()
        .chain(own)
        .chain(related)
        .chain(nested)
        .collect()
}

/// Every string and number in `v` (ids and bookkeeping times skipped, as the index does).
fn texts(v: &Value, out: &mut impl FnMut(String)) {
    match v {
        Value::String(s) if !s.trim().is_empty() => out(s.clone()),
        Value::Number(n) => out(n.to_string()),
        Value::Array(items) => items.iter().for_each(|i| texts(i, out)),
        Value::Object(m) => {
            for (k, v) in m {
                if !skip_key(k) {
                    texts(v, out);
                }
            }
        }
        _ => {}
    }
}

/// What a related record is called (as its cells call it): name, full name, first and last
/// name, email, else id.
fn relation_label(v: &Value) -> String {
    match v {
        Value::Object(fields) => Related {
            id: fields.get("id").and_then(value_to_string),
            fields: fields.clone(),
        }
        .label(),
        other => value_to_string(other).unwrap_or_default(),
    }
}

fn shorten(s: &str) -> String {
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MAX_SHOWN {
        return one_line;
    }
    let cut: String = one_line.chars().take(MAX_SHOWN - 1).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEAL: &str = r#"{"id":"dea_1","name":"Becker GmbH renewal","status":"open","value":"1369.00",
        "currency":"SAR","account":{"id":"acc_1","name":"Becker GmbH"},
        "assigned_user":{"id":"usr_1","first_name":"Jörg","last_name":"Müller","email":"j.mueller@example.com"},
        "custom_fields":{"region":"Köln Süd"},"created_at":"2026-01-01T00:00:00Z"}"#;

    #[test]
    fn a_hit_names_the_field_that_matched() {
        assert_eq!(explain(DEAL, "muller", false), "assignee: Jörg Müller");
        assert_eq!(explain(DEAL, "renewal", false), "name");
        assert_eq!(
            explain(DEAL, "koln", false),
            "custom_fields.region: Köln Süd"
        );
        assert_eq!(explain(DEAL, "SAR", false), "currency: SAR");
        // The record's own name first: `becker` is in the name and in the account.
        assert_eq!(explain(DEAL, "becker", false), "name");
        assert_eq!(
            explain(DEAL, "renewal jörg", false),
            "name; assignee: Jörg Müller"
        );
        assert_eq!(explain(DEAL, "mueller", false), "assignee: Jörg Müller");
        assert_eq!(explain(DEAL, "renewal", true), "name (near match)");
    }

    #[test]
    fn phones_match_by_their_digits_and_bookkeeping_is_never_a_reason() {
        let contact = r#"{"id":"con_48","first_name":"Ji-woo","last_name":"Kang",
            "email":"j.kang@gmail.com","phone":"+49 30 1234567","updated_at":"2026-02-03T04:05:06Z"}"#;
        assert_eq!(explain(contact, "1234567", false), "phone: +49 30 1234567");
        assert_eq!(explain(contact, "gmail", false), "email: j.kang@gmail.com");
        // The words in a row in the email, not scattered over the name.
        assert_eq!(
            explain(contact, "j.kang@", false),
            "email: j.kang@gmail.com"
        );
        assert_eq!(explain(contact, "ji kang", false), "name");
        assert_eq!(explain(contact, "zzz", false), ELSEWHERE);
        assert_eq!(explain(contact, "2026", false), ELSEWHERE);
    }
}
