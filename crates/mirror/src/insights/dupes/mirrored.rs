//! The finder over the local mirror: `contacts dupes`, `:dupes` in the dashboard and the
//! import read it. Every live contact is read once as the few facts the matcher compares;
//! only the people in a cluster are kept in the report (a dashboard holding the report of
//! 100,000 contacts keeps a few hundred). And the form's check: the near duplicates of one
//! draft, found through the mirror's indexes (email, phone digits, an account's contacts),
//! never by reading every contact.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::normalise::{email_key, fold_name, phone_e164, region};
use super::{Cluster, DupesSettings, MAX_BLOCK, Person, Table};
use crate::api::{ApiRecord, Contact, ContactQuery, ContactSort, Paging};
use crate::mirror::{ContactFields, Mirror, MirrorError, SearchQuery};
use crate::resource::Resource;

/// What the finder compares with, from the config: `[dupes]` and `[ui] region`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Finder {
    pub settings: DupesSettings,
    /// `[ui] region` (`DE`): the country of phone numbers written without a prefix.
    pub region: Option<String>,
}

impl Finder {
    pub fn of(settings: &crate::config::Settings) -> Finder {
        Finder {
            settings: settings.dupes.clone(),
            region: settings.ui.region.clone(),
        }
    }

    fn country(&self) -> Option<phonenumber::country::Id> {
        region(self.region.as_deref())
    }
}

/// Which clusters a scan reports.
#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    /// Pairs scoring at least this link contacts (`None`: the threshold).
    pub min_score: Option<f64>,
    /// Only clusters with a contact created or updated after this.
    pub since: Option<DateTime<Utc>>,
    /// Only clusters with a contact of this mailbox.
    pub email: Option<String>,
    /// Only clusters with a contact whose folded name holds these words.
    pub name: Option<String>,
}

/// What a scan of the mirror found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DupesReport {
    /// The people of the clusters (the clusters' indexes point here).
    pub people: Vec<Person>,
    pub clusters: Vec<Cluster>,
    /// Live contacts read.
    pub contacts: usize,
    /// Candidate pairs compared.
    pub compared: usize,
    /// Blocking keys left out for being shared by more than [`MAX_BLOCK`] contacts.
    pub crowded_keys: usize,
    pub min_score: f64,
    /// The last sync of the contacts.
    pub synced: Option<DateTime<Utc>>,
    /// The mirror holds every contact (a full sync finished and none is under way): a
    /// report of an incomplete mirror may miss clusters.
    pub complete: bool,
}

/// Reads every live contact (only the fields compared, straight into a [`Table`]) and
/// finds the clusters.
pub fn scan(mirror: &Mirror, finder: &Finder, o: &ScanOptions) -> Result<DupesReport, MirrorError> {
    let mut table = Table::new(finder.country());
    let mut recent = Vec::new();
    mirror.each_contact_fields(|c| {
        if let Some(t) = o.since {
            recent.push(
                [c.created_at, c.updated_at]
                    .into_iter()
                    .flatten()
                    .any(|at| at > t),
            );
        }
        let email = c.email.as_deref().filter(|e| !e.trim().is_empty());
        let phone = c.phone.as_deref().filter(|p| !p.trim().is_empty());
        let accounts = c.account_ids.iter().map(String::as_str);
        table.push(c.id, &c.name(), email, phone, accounts, c.created_at);
    })?;
    table.shrink_to_fit();
    let state = mirror.sync_state(Resource::Contacts)?;
    Ok(DupesReport {
        synced: state.last_sync_at,
        complete: state.complete_since().is_some(),
        ..report_of_table(&table, &recent, finder, o)
    })
}

/// The clusters of `people` (`recent[i]`: person `i` changed after `o.since`; empty
/// without `since`), with only their members kept.
pub fn report_of(
    people: Vec<Person>,
    recent: &[bool],
    finder: &Finder,
    o: &ScanOptions,
) -> DupesReport {
    report_of_table(&Table::of(&people, finder.country()), recent, finder, o)
}

/// [`report_of`] people in a [`Table`].
pub fn report_of_table(
    table: &Table,
    recent: &[bool],
    finder: &Finder,
    o: &ScanOptions,
) -> DupesReport {
    let min_score = o.min_score.unwrap_or(finder.settings.threshold);
    let found = super::find_in(table, &finder.settings, min_score);
    let wanted_email = o.email.as_deref().and_then(email_key);
    let wanted_name = o.name.as_deref().map(|n| fold_name(n).join(" "));
    let keep = |i: usize| {
        (o.since.is_none() || recent.get(i).copied().unwrap_or(false))
            && wanted_email
                .as_deref()
                .is_none_or(|w| table.email_key(i) == Some(w))
            && wanted_name
                .as_ref()
                .is_none_or(|w| table.folded(i).contains(w.as_str()))
    };
    let linked: Vec<_> = found
        .pairs
        .into_iter()
        .filter(|p| p.score >= min_score)
        .collect();
    let mut clusters: Vec<Cluster> = super::clusters_of(table, linked)
        .into_iter()
        .filter(|c| c.members.iter().any(|&i| keep(i)))
        .collect();
    DupesReport {
        people: keep_members(table, &mut clusters),
        clusters,
        contacts: table.len(),
        compared: found.compared,
        crowded_keys: found.crowded_keys,
        min_score,
        synced: None,
        complete: true,
    }
}

/// Only the people of `clusters`, their indexes renumbered.
fn keep_members(table: &Table, clusters: &mut [Cluster]) -> Vec<Person> {
    let mut renumbered: HashMap<usize, usize> = HashMap::new();
    let mut kept = Vec::new();
    for c in clusters.iter_mut() {
        for m in c.members.iter_mut() {
            *m = *renumbered.entry(*m).or_insert_with(|| {
                kept.push(table.person(*m));
                kept.len() - 1
            });
        }
        for p in c.pairs.iter_mut() {
            p.a = renumbered[&p.a];
            p.b = renumbered[&p.b];
        }
    }
    kept
}

/// These contacts' records as stored (`None` for one not in the mirror), in the order asked.
pub fn records(mirror: &Mirror, ids: &[String]) -> Result<Vec<Option<Arc<str>>>, MirrorError> {
    ids.iter()
        .map(|id| {
            mirror
                .get::<Contact>(id)
                .map(|c| c.map(|c| Arc::from(c.raw.get())))
        })
        .collect()
}

/// Every live mirrored contact as the finder sees it (the import compares its rows with them).
pub fn people(mirror: &Mirror) -> Result<Vec<Person>, MirrorError> {
    let mut people = Vec::new();
    mirror.each_contact_fields(|c| people.push(person_of(c)))?;
    Ok(people)
}

/// A contact's fields as the finder's [`Person`] (as [`Person::from_contact`] makes it).
pub fn person_of(c: &ContactFields<'_>) -> Person {
    let present = |v: &Option<std::borrow::Cow<'_, str>>| {
        v.as_deref()
            .filter(|t| !t.trim().is_empty())
            .map(str::to_string)
    };
    Person {
        id: c.id.to_string(),
        name: c.name(),
        email: present(&c.email),
        phone: present(&c.phone),
        accounts: c.account_ids.to_vec(),
        created_at: c.created_at,
    }
}

/// A contact like the draft, with why.
#[derive(Debug, Clone, PartialEq)]
pub struct NearContact {
    pub id: String,
    pub name: String,
    pub score: f64,
    pub reasons: Vec<String>,
    /// `YYYY-MM-DD`, when the record says.
    pub created: Option<String>,
    pub raw: Arc<str>,
}

/// Candidates a phone's digits may bring (a common number's suffix matches many).
const PHONE_CANDIDATES: usize = 50;
/// Candidates an account's namesakes may bring (the finder leaves out a key shared by more
/// than [`MAX_BLOCK`]).
const NAMED_CANDIDATES: usize = 2 * MAX_BLOCK;

/// The mirrored contacts that look like `draft`, best first (at most `limit`): found through
/// the mirror's indexes (the email's lowercase form, the phone's digits in the search index,
/// the contacts of the draft's accounts) and scored by the matcher. A close name counts only
/// with a shared account, as in `contacts dupes`.
pub fn near_contacts(
    mirror: &Mirror,
    draft: &Person,
    finder: &Finder,
    limit: usize,
) -> Result<Vec<NearContact>, MirrorError> {
    let mut candidates: HashMap<String, Contact> = HashMap::new();
    if let Some(email) = draft
        .email
        .as_deref()
        .map(str::trim)
        .filter(|e| e.contains('@'))
    {
        // Sorted by email, so the list seeks the email index to the one value (sorted by
        // creation it would walk every contact to find it).
        let q = ContactQuery {
            email: Some(email.to_string()),
            sort_by: Some(ContactSort::Email),
            paging: Paging {
                page: Some(1),
                per_page: Some(PHONE_CANDIDATES as u32),
            },
            ..ContactQuery::default()
        };
        for c in mirror.list(&q)?.page.data {
            candidates.insert(c.id.clone(), c);
        }
    }
    if let Some(national) = draft
        .phone
        .as_deref()
        .and_then(|p| national_digits(p, finder.country()))
    {
        let q = SearchQuery {
            text: national,
            resources: vec![Resource::Contacts],
            limit: PHONE_CANDIDATES,
        };
        for group in mirror.search(&q)?.groups {
            for hit in group.hits.into_iter().filter(|h| !h.near) {
                if let Some(c) = decode(&hit.raw) {
                    candidates.insert(c.id.clone(), c);
                }
            }
        }
    }
    // A close name counts with a shared account: the account's contacts sharing a word of
    // the name (the finder's `account + word` keys), through the full-text index.
    let words: Vec<String> = fold_name(&draft.name)
        .into_iter()
        .filter(|w| w.chars().count() >= 2)
        .collect();
    if !words.is_empty() {
        for account in &draft.accounts {
            for c in mirror.contacts_of_account_named(account, &words, NAMED_CANDIDATES)? {
                candidates.insert(c.id.clone(), c);
            }
        }
    }
    let mut out: Vec<NearContact> = candidates
        .into_values()
        .filter_map(|c| {
            let p = Person::from_contact(&c);
            let (score, reasons) = super::compare(draft, &p, finder.country(), &finder.settings)?;
            (score >= finder.settings.threshold).then(|| NearContact {
                id: c.id.clone(),
                name: c.label(),
                score,
                reasons,
                created: c
                    .created_at
                    .as_ref()
                    .and_then(crate::api::Timestamp::instant)
                    .map(|t| t.format("%Y-%m-%d").to_string()),
                raw: Arc::from(c.raw.get()),
            })
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    out.truncate(limit);
    Ok(out)
}

/// The digits every way of writing the number ends with: its national significant number
/// (`+49 30 1234567`, `030 1234567` and `0049301234567` all end with `301234567`). `None`
/// for a number without an E.164 form or of fewer than 6 digits.
fn national_digits(phone: &str, country: Option<phonenumber::country::Id>) -> Option<String> {
    let e164 = phone_e164(phone, country)?;
    let national = match phonenumber::parse(None, &e164) {
        Ok(n) => n.national().value().to_string(),
        Err(_) => e164.trim_start_matches('+').to_string(),
    };
    (national.len() >= 6).then_some(national)
}

fn decode(raw: &str) -> Option<Contact> {
    let raw = serde_json::value::RawValue::from_string(raw.to_string()).ok()?;
    Contact::from_raw(raw).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phone_is_looked_up_by_the_digits_all_its_spellings_end_with() {
        let de = region(Some("DE"));
        for p in ["+49 30 1234567", "030 1234567", "0049 (0)30 1234567"] {
            assert_eq!(national_digits(p, de).as_deref(), Some("301234567"), "{p}");
        }
        assert_eq!(national_digits("12 34", de), None);
        assert_eq!(national_digits("030 1234567", None), None);
    }
}
