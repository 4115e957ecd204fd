//! The decisions an import makes in file order, the same in every run whatever order the
//! answers arrive in: each row's Idempotency-Key, and which rows an earlier row of the file
//! stands for (the same email, the same content, the same key column value). The first pass
//! (`check_file`) reads and decides every row before anything is sent.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use super::layout::Layout;
use super::read::{MAX_LISTED_PROBLEMS, Parsed, Rows};
use crate::api::{IdempotencyKey, NewContact};
use crate::cli::exit::CliError;

/// A 128-bit digest (collisions are out of reach for any file): memory per row stays small.
fn digest(parts: &[&str]) -> u128 {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_be_bytes());
        h.update(p.as_bytes());
    }
    let out = h.finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(&out[..16]);
    u128::from_be_bytes(b)
}

/// The form under which two emails are the same address.
pub fn email_id(email: &str) -> u128 {
    digest(&["email", &email.trim().to_lowercase()])
}

/// Why a row is not sent: an earlier row of the file stands for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SameAs {
    Email(u64),
    Content(u64),
    Key(u64),
}

/// A row ready to send (or to skip as a duplicate inside the file).
pub struct Planned {
    pub line: u64,
    pub contact: NewContact,
    pub key: IdempotencyKey,
    pub email: Option<String>,
    pub duplicate_of: Option<SameAs>,
}

/// The decisions that depend on earlier rows, made in file order (so the same in every run
/// and whatever the order answers arrive in).
pub struct Decider {
    allow_duplicate: bool,
    by_email: HashMap<u128, u64>,
    /// Content (or external id) -> first line, its content, how many rows so far.
    by_key: HashMap<u128, (u64, u128, u32)>,
}

impl Decider {
    pub fn new(allow_duplicate: bool) -> Decider {
        Decider {
            allow_duplicate,
            by_email: HashMap::new(),
            by_key: HashMap::new(),
        }
    }

    /// The row's key and whether an earlier row stands for it; `Err` when a key column value
    /// comes back with other values.
    pub fn decide(&mut self, line: u64, row: Parsed) -> Result<Planned, String> {
        let content = digest(&["content", &row.body]);
        let material = match &row.external {
            Some(x) => digest(&["key", x]),
            None => content,
        };
        let slot = self.by_key.entry(material).or_insert((line, content, 0));
        let (first, first_content, seen) = *slot;
        slot.2 += 1;
        if first != line && first_content != content {
            return Err(format!(
                "key '{}' is also on line {first} with other values",
                row.external.as_deref().unwrap_or_default()
            ));
        }
        let key = match &row.external {
            Some(x) => IdempotencyKey::derived(&["crmdash-import-key", x]),
            // The first of identical rows keeps the key earlier versions gave it.
            None if seen == 0 => IdempotencyKey::derived(&["crmdash-import-row", &row.body]),
            None => IdempotencyKey::derived(&["crmdash-import-row", &row.body, &seen.to_string()]),
        };
        let email = row.contact.email.clone();
        let mut duplicate_of = None;
        if !self.allow_duplicate
            && let Some(e) = &email
        {
            let first_email = *self.by_email.entry(email_id(e)).or_insert(line);
            if first_email != line {
                duplicate_of = Some(SameAs::Email(first_email));
            }
        }
        if duplicate_of.is_none() && first != line {
            if row.external.is_some() {
                duplicate_of = Some(SameAs::Key(first));
            } else if !self.allow_duplicate {
                duplicate_of = Some(SameAs::Content(first));
            }
        }
        Ok(Planned {
            line,
            contact: row.contact,
            key,
            email,
            duplicate_of,
        })
    }
}

/// What the first pass learnt: how many rows, the emails the rows to send carry, and those
/// rows as the near-duplicate finder sees them.
#[derive(Debug)]
pub struct Checked {
    pub rows: u64,
    pub emails: std::collections::HashSet<u128>,
    pub people: Vec<crate::insights::dupes::Person>,
}

/// The first pass: every row read and decided; any bad row fails the whole file (exit 5), with
/// one line per problem, so nothing is sent until the file is clean.
pub fn check_file(layout: &Layout, allow_duplicate: bool) -> Result<Checked, CliError> {
    let mut decider = Decider::new(allow_duplicate);
    let mut problems: Vec<(String, String)> = Vec::new();
    let mut bad_rows = 0u64;
    let mut rows = 0u64;
    let mut emails = std::collections::HashSet::new();
    let mut people = Vec::new();
    for raw in Rows::open(layout)? {
        let result = raw
            .parsed
            .and_then(|p| decider.decide(raw.line, p).map_err(|m| vec![m]));
        match result {
            Ok(planned) => {
                rows += 1;
                if planned.duplicate_of.is_none() {
                    if let Some(e) = &planned.email {
                        emails.insert(email_id(e));
                    }
                    people.push(super::near::person_of_row(planned.line, &planned.contact));
                }
            }
            Err(messages) => {
                bad_rows += 1;
                for m in messages {
                    if problems.len() < MAX_LISTED_PROBLEMS {
                        problems.push((format!("line {}", raw.line), m));
                    }
                }
            }
        }
    }
    let shown = layout.path.display();
    if bad_rows > 0 {
        let plural = if bad_rows == 1 { "row" } else { "rows" };
        let more = if bad_rows as usize > problems.len() {
            format!(" (the first {} problems listed)", problems.len())
        } else {
            String::new()
        };
        return Err(CliError::Invalid {
            message: format!("{shown}: {bad_rows} bad {plural}; nothing was sent{more}"),
            fields: problems,
        });
    }
    if rows == 0 {
        return Err(CliError::invalid(format!("{shown}: no rows to import")));
    }
    Ok(Checked {
        rows,
        emails,
        people,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::import::layout::split_full_name;
    use crate::cli::import::read::temp_csv;

    fn planned(text: &str, key: Option<&str>, allow: bool) -> Vec<Planned> {
        read_planned(text, key, false, allow)
    }
    /// The rows of `text` as the second pass plans them, after the first pass accepted them.
    fn read_planned(text: &str, key: Option<&str>, only_known: bool, allow: bool) -> Vec<Planned> {
        let f = temp_csv(text);
        let layout = Layout::open(f.path(), None, key, only_known).unwrap();
        check_file(&layout, allow).unwrap();
        let mut d = Decider::new(allow);
        Rows::open(&layout)
            .unwrap()
            .map(|r| d.decide(r.line, r.parsed.ok().unwrap()).unwrap())
            .collect()
    }
    #[test]
    fn duplicates_are_decided_in_file_order() {
        let rows = planned(
            "email,first_name\nada@example.com,Ada\nADA@example.com ,Ada2\nbob@example.com,Bob\n,Cy\n,Cy\n",
            None,
            false,
        );
        assert_eq!(rows[0].duplicate_of, None);
        assert_eq!(rows[1].duplicate_of, Some(SameAs::Email(2)));
        assert_eq!(rows[2].duplicate_of, None);
        assert_eq!(rows[3].duplicate_of, None);
        assert_eq!(rows[4].duplicate_of, Some(SameAs::Content(5)));
        // --allow-duplicate: every row is sent, identical ones under distinct keys.
        let all = planned("first_name\nCy\nCy\n", None, true);
        assert!(all.iter().all(|p| p.duplicate_of.is_none()));
        assert_ne!(all[0].key, all[1].key);
    }
    #[test]
    fn the_key_column_is_matched_loosely_and_conflicts_are_refused() {
        let f = temp_csv("External ID,email\n7,a@example.com\n7,b@example.com\n");
        let layout = Layout::open(f.path(), None, Some("external_id"), false).unwrap();
        assert_eq!(layout.key, Some(0));
        let err = check_file(&layout, false).unwrap_err();
        assert!(
            err.field_errors()[0].1.contains("also on line 2"),
            "{err:?}"
        );
    }
    fn checked_rows(text: &str, key: Option<&str>, only_known: bool) -> Vec<Planned> {
        read_planned(text, key, only_known, false)
    }
    #[test]
    fn rows_map_known_columns_and_keep_the_others() {
        let text = "id,first_name,email,source\n7,Ada,ada@example.com,fair\n";
        let rows = checked_rows(text, Some("id"), false);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].line, 2);
        let body = rows[0].contact.to_body();
        assert_eq!(body["first_name"], "Ada");
        assert_eq!(body["source"], "fair");
        assert_eq!(body["id"], "7");
        let known = checked_rows(text, Some("id"), true);
        assert!(!known[0].contact.to_body().contains_key("source"));
    }
    #[test]
    fn keys_are_stable_across_runs_and_follow_the_key_column() {
        let text = "id,first_name,email\n7,Ada,ada@example.com\n8,Bob,bob@example.com\n";
        let a = checked_rows(text, None, false);
        let b = checked_rows(text, None, false);
        assert_eq!(a[0].key, b[0].key);
        assert_ne!(a[0].key, a[1].key);
        // The first key of a row is the one earlier versions derived from its content.
        let body = serde_json::to_string(&a[0].contact.to_body()).unwrap();
        assert_eq!(
            a[0].key,
            IdempotencyKey::derived(&["crmdash-import-row", &body])
        );
        let by_id_1 = checked_rows(text, Some("id"), false);
        let by_id_2 = checked_rows(
            "id,first_name,email\n7,Ada,ada@other.example\n",
            Some("id"),
            false,
        );
        assert_eq!(by_id_1[0].key, by_id_2[0].key);
    }
    #[test]
    fn every_bad_row_is_reported_with_its_line() {
        let f = temp_csv(
            "first_name,email,phone\nAda,not-an-email,\n,,\nBob,bob@example.com,12345\nCy,cy@example.com,+1 555 0100\n",
        );
        let layout = Layout::open(f.path(), None, None, false).unwrap();
        let err = check_file(&layout, false).unwrap_err();
        let lines: Vec<String> = err.field_errors().into_iter().map(|(l, _)| l).collect();
        assert!(lines.contains(&"line 2".to_string()), "{lines:?}");
        assert!(lines.contains(&"line 4".to_string()), "{lines:?}");
        assert!(!lines.contains(&"line 5".to_string()), "{lines:?}");
        assert_eq!(err.exit() as u8, 5);
    }

    #[test]
    fn a_full_name_is_split_at_the_first_space() {
        assert_eq!(
            split_full_name(" Ada King Lovelace "),
            ("Ada".into(), "King Lovelace".into())
        );
        assert_eq!(
            split_full_name("Madonna"),
            ("Madonna".into(), String::new())
        );
        let rows = planned(
            "Full Name,Email Address\nAda King Lovelace,ada@example.com\n",
            None,
            false,
        );
        assert_eq!(rows[0].contact.first_name.as_deref(), Some("Ada"));
        assert_eq!(rows[0].contact.last_name.as_deref(), Some("King Lovelace"));
    }
    /// Issue 27: an unclosed quote swallowed the rest of the file without a word.
    #[test]
    fn an_unclosed_quote_is_reported_with_its_line() {
        let f = temp_csv(
            "first_name,last_name,email\nAda,Lovelace,ada@example.com\nBob,\"Smith,bob@example.com\nCy,C,cy@example.com\nDi,D,di@example.com\n",
        );
        let layout = Layout::open(f.path(), None, None, false).unwrap();
        let err = check_file(&layout, false).unwrap_err();
        let CliError::Invalid { fields, .. } = err else {
            panic!("{err:?}")
        };
        assert_eq!(fields.len(), 1, "{fields:?}");
        assert_eq!(fields[0].0, "line 3");
        assert!(
            fields[0].1.contains("opened on line 3 is never closed"),
            "{fields:?}"
        );
        // Quotes closed, doubled, or inside an unquoted field are fine.
        let ok = temp_csv(
            "first_name,last_name,email\n\"Ada \"\"A\"\"\",Love\"lace,ada@example.com\n\"Bo, b\",B,b@example.com\n",
        );
        let layout = Layout::open(ok.path(), None, None, false).unwrap();
        assert_eq!(check_file(&layout, false).unwrap().rows, 2);
    }
}
