//! Near duplicates while typing: after each edit of a name, the email, the phone or an extra
//! line, the draft is compared with the local mirror (`MirrorEffect::NearContacts`: a few
//! indexed reads, never a scan) and the contacts like it (same phone, close name with the same
//! account, same email in another case) are listed under the fields with their reasons. The
//! exact email duplicate the service found comes first; `open_duplicate` (Ctrl-O) opens them
//! in turn.

use std::sync::Arc;

use super::ContactForm;
use crate::app::dialogs::{ContactRef, DialogCx, Outcome};
use crate::app::effects::Effect;
use crate::app::mirror::{MirrorEffect, MirrorMessage};
use crate::insights::dupes::Person;
use crate::insights::dupes::mirrored::NearContact;

/// One contact the draft looks like, as listed and opened.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    pub id: String,
    pub name: String,
    pub created: Option<String>,
    /// `same email`, `same phone, name 0.94`.
    pub why: String,
    pub raw: Arc<str>,
}

impl ContactForm {
    /// The draft as the finder sees it: the names, email and phone typed, and the accounts of
    /// an `account_ids = [...]` (or `account_id = ...`) extra line.
    pub fn draft_person(&self) -> Person {
        let input = self.input();
        let name = format!("{} {}", input.first_name.trim(), input.last_name.trim());
        let mut accounts = Vec::new();
        for line in input.extra.lines() {
            let Ok((key, value)) = crate::validate::parse_pair(line) else {
                continue;
            };
            if key != "account_ids" && key != "account_id" {
                continue;
            }
            match value {
                serde_json::Value::Array(a) => {
                    accounts.extend(a.iter().filter_map(crate::api::value_to_string))
                }
                v => accounts.extend(crate::api::value_to_string(&v)),
            }
        }
        let opt = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
        Person {
            id: String::new(),
            name: name.trim().to_string(),
            email: opt(&input.email),
            phone: opt(&input.phone),
            accounts,
            created_at: None,
        }
    }

    /// After an edit: asks the mirror about the draft when what the finder compares changed.
    pub(super) fn check_near(&mut self, cx: &mut DialogCx) -> Outcome {
        self.near_due = false;
        let Some(finder) = self.finder.clone() else {
            return Outcome::Handled;
        };
        let draft = self.draft_person();
        if self.near_for.as_ref() == Some(&draft) {
            return Outcome::Handled;
        }
        self.near_for = Some(draft.clone());
        let checkable =
            draft.email.is_some() || draft.phone.is_some() || !draft.accounts.is_empty();
        if !checkable {
            self.near.clear();
            self.near_request = None;
            return Outcome::Handled;
        }
        let id = cx.request_id();
        self.near_request = Some(id);
        Outcome::Effects(vec![Effect::Mirror(MirrorEffect::NearContacts {
            id,
            draft,
            finder,
        })])
    }

    /// The mirror's answer for the latest draft (older ones are dropped).
    pub(super) fn on_near(&mut self, msg: &MirrorMessage) -> Outcome {
        let MirrorMessage::NearContacts { id, result } = msg else {
            return Outcome::Ignored;
        };
        if self.near_request != Some(*id) {
            return if self.near_request.is_some_and(|p| p.0 > id.0) {
                Outcome::Handled
            } else {
                Outcome::Ignored
            };
        }
        self.near_request = None;
        // No mirror, or a failed read: the check did not happen (nothing to block on).
        self.near = match result {
            Ok(Some(found)) => found.clone(),
            Ok(None) | Err(_) => Vec::new(),
        };
        Outcome::Handled
    }

    /// The exact email duplicate first, then the mirror's near ones (each once).
    pub fn matches(&self) -> Vec<Match> {
        let mut out: Vec<Match> = self
            .duplicate
            .iter()
            .map(|d| Match {
                id: d.id.clone(),
                name: d.name.clone(),
                created: d.created.clone(),
                why: "same email".into(),
                raw: d.raw.clone(),
            })
            .collect();
        for n in &self.near {
            if out.iter().any(|m| m.id == n.id) {
                continue;
            }
            out.push(of_near(n));
        }
        out
    }

    /// `open_duplicate`: the next match, in turn.
    pub(super) fn next_match(&mut self) -> Option<ContactRef> {
        let all = self.matches();
        if all.is_empty() {
            return None;
        }
        let m = &all[self.opened % all.len()];
        self.opened = (self.opened + 1) % all.len();
        Some(ContactRef {
            id: m.id.clone(),
            label: m.name.clone(),
            raw: m.raw.clone(),
        })
    }
}

fn of_near(n: &NearContact) -> Match {
    Match {
        id: n.id.clone(),
        name: n.name.clone(),
        created: n.created.clone(),
        why: n.reasons.join(", "),
        raw: n.raw.clone(),
    }
}
