//! The seed data: a fixed-seed generator of plausible CRM records (people and companies from
//! many countries, varied phone formats, deal values with cents, open-ended projects...) and the
//! default data set it produced, committed under `assets/sandbox/` and loaded from there.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::gen_contacts::SynthContact;
use super::gen_records::{gen_account, gen_appointment, gen_deal, gen_project, gen_user};

/// The seed of the committed data set.
pub const DEFAULT_SEED: u64 = 20_250_304;

/// How many records of each kind to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    pub users: usize,
    pub accounts: usize,
    pub contacts: usize,
    pub deals: usize,
    pub projects: usize,
    pub appointments: usize,
}

impl Default for Sizes {
    fn default() -> Self {
        Sizes {
            users: 25,
            accounts: 60,
            contacts: 1000,
            deals: 500,
            projects: 120,
            appointments: 60,
        }
    }
}

/// Records as the API serves them (relations as id fields), per kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dataset {
    pub users: Vec<Map<String, Value>>,
    pub accounts: Vec<Map<String, Value>>,
    /// Contacts as JSON (the committed files)...
    pub contacts: Vec<Map<String, Value>>,
    /// ...or generated and compact (built into JSON when served); these come after `contacts`.
    pub synthetic_contacts: Vec<SynthContact>,
    pub deals: Vec<Map<String, Value>>,
    pub projects: Vec<Map<String, Value>>,
    pub appointments: Vec<Map<String, Value>>,
}

/// The committed files, in the order `Dataset` lists them.
pub const ASSET_FILES: [&str; 6] = [
    "users.json",
    "accounts.json",
    "contacts.json",
    "deals.json",
    "projects.json",
    "appointments.json",
];

const ASSETS: [&str; 6] = [
    include_str!("../../../../assets/sandbox/users.json"),
    include_str!("../../../../assets/sandbox/accounts.json"),
    include_str!("../../../../assets/sandbox/contacts.json"),
    include_str!("../../../../assets/sandbox/deals.json"),
    include_str!("../../../../assets/sandbox/projects.json"),
    include_str!("../../../../assets/sandbox/appointments.json"),
];

/// A committed asset that does not parse: only possible if someone edits the files by hand.
#[derive(Debug, thiserror::Error)]
#[error("assets/sandbox/{file} is not a JSON array of objects: {source}")]
pub struct AssetError {
    file: &'static str,
    source: serde_json::Error,
}

impl Dataset {
    /// The data for a seed and a contact count: the committed files for the default seed and at
    /// most 1,000 contacts (fewer are a prefix), the generator otherwise. Contact `i` is the same
    /// whatever the count, so 100,000 contacts start with the committed 1,000.
    pub fn load(seed: u64, contacts: usize) -> Result<Dataset, AssetError> {
        let default = Sizes::default();
        if seed != DEFAULT_SEED || contacts > default.contacts {
            return Ok(generate_compact(
                seed,
                &Sizes {
                    contacts,
                    ..default
                },
            ));
        }
        let mut parts = Vec::with_capacity(6);
        for (file, text) in ASSET_FILES.iter().zip(ASSETS) {
            let list: Vec<Map<String, Value>> =
                serde_json::from_str(text).map_err(|source| AssetError { file, source })?;
            parts.push(list);
        }
        let mut it = parts.into_iter();
        let mut next = || it.next().unwrap_or_default();
        let mut ds = Dataset {
            users: next(),
            accounts: next(),
            contacts: next(),
            synthetic_contacts: Vec::new(),
            deals: next(),
            projects: next(),
            appointments: next(),
        };
        ds.contacts.truncate(contacts);
        Ok(ds)
    }

    /// One JSON text per kind, one record per line (readable diffs of the committed files).
    pub fn to_asset_texts(&self) -> [String; 6] {
        [
            &self.users,
            &self.accounts,
            &self.contacts,
            &self.deals,
            &self.projects,
            &self.appointments,
        ]
        .map(|list| {
            let lines: Vec<String> = list
                .iter()
                .map(|r| serde_json::to_string(r).unwrap_or_default())
                .collect();
            format!("[\n{}\n]\n", lines.join(",\n"))
        })
    }
}

/// Generates a whole data set with every contact as JSON (how the committed files are made).
pub fn generate(seed: u64, sizes: &Sizes) -> Dataset {
    let mut ds = generate_compact(seed, sizes);
    ds.contacts = ds
        .synthetic_contacts
        .drain(..)
        .map(|c| c.to_json())
        .collect();
    ds
}

/// Generates a data set with compact contacts. Deterministic for a seed and sizes.
pub fn generate_compact(seed: u64, sizes: &Sizes) -> Dataset {
    let users: Vec<_> = (0..sizes.users).map(|i| gen_user(seed, i)).collect();
    let accounts: Vec<_> = (0..sizes.accounts).map(|i| gen_account(seed, i)).collect();
    let domains: Vec<String> = accounts
        .iter()
        .map(|a| {
            let site = a["website"]
                .as_str()
                .unwrap_or("https://www.example.example");
            site.trim_start_matches("https://www.").to_string()
        })
        .collect();
    let mut contacts: Vec<SynthContact> = Vec::with_capacity(sizes.contacts);
    let mut emails = HashSet::with_capacity(sizes.contacts);
    for i in 0..sizes.contacts {
        let c = SynthContact::draw(seed, i, sizes.users, &domains, &contacts, &mut emails);
        contacts.push(c);
    }
    // Relations point into the first 1,000 contacts so that larger sets keep the same deals.
    let linked = sizes.contacts.min(1000);
    let deals = (0..sizes.deals)
        .map(|i| gen_deal(seed, i, sizes, &accounts, linked))
        .collect();
    let projects = (0..sizes.projects)
        .map(|i| gen_project(seed, i, sizes, &accounts))
        .collect();
    let appointments = (0..sizes.appointments)
        .map(|i| gen_appointment(seed, i, sizes, &contacts[..linked]))
        .collect();
    Dataset {
        users,
        accounts,
        contacts: Vec::new(),
        synthetic_contacts: contacts,
        deals,
        projects,
        appointments,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regenerate with `CRMDASH_WRITE_SANDBOX_ASSETS=1 cargo test --lib sandbox::seed`.
    #[test]
    fn committed_assets_match_the_generator() {
        let ds = generate(DEFAULT_SEED, &Sizes::default());
        let texts = ds.to_asset_texts();
        if std::env::var_os("CRMDASH_WRITE_SANDBOX_ASSETS").is_some() {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/sandbox");
            for (file, text) in ASSET_FILES.iter().zip(&texts) {
                std::fs::write(dir.join(file), text).expect("write asset");
            }
        }
        for ((file, text), committed) in ASSET_FILES.iter().zip(&texts).zip(ASSETS) {
            assert!(
                text == committed,
                "assets/sandbox/{file} is stale: regenerate it"
            );
        }
        assert!(Dataset::load(DEFAULT_SEED, 1000).unwrap() == ds);
    }

    #[test]
    fn larger_sets_extend_the_committed_one() {
        let big = Dataset::load(DEFAULT_SEED, 3000).unwrap();
        let small = Dataset::load(DEFAULT_SEED, 1000).unwrap();
        assert_eq!(big.synthetic_contacts.len(), 3000);
        let first: Vec<_> = big.synthetic_contacts[..1000]
            .iter()
            .map(SynthContact::to_json)
            .collect();
        assert!(first == small.contacts);
        assert!(big.deals == small.deals);
        assert_eq!(Dataset::load(DEFAULT_SEED, 10).unwrap().contacts.len(), 10);
    }

    #[test]
    fn data_reads_like_a_real_crm() {
        let ds = Dataset::load(DEFAULT_SEED, 1000).unwrap();
        let s = Sizes::default();
        assert_eq!(
            [
                ds.users.len(),
                ds.accounts.len(),
                ds.contacts.len(),
                ds.deals.len(),
                ds.projects.len(),
                ds.appointments.len()
            ],
            [
                s.users,
                s.accounts,
                s.contacts,
                s.deals,
                s.projects,
                s.appointments
            ]
        );
        let names: HashSet<&str> = ds
            .contacts
            .iter()
            .filter_map(|c| c["full_name"].as_str())
            .collect();
        assert!(names.len() > 700, "names must not repeat a few templates");
        assert!(names.iter().any(|n| !n.is_ascii()));
        assert!(ds.deals.iter().any(|d| d["value"].is_string()));
        assert!(ds.deals.iter().any(|d| d["value"].is_number()));
        assert!(ds.projects.iter().any(|p| p["end_date"].is_null()));
        assert!(ds.projects.iter().any(|p| p["end_date"].is_string()));
        assert!(ds.contacts.iter().any(|c| c.contains_key("custom_fields")));
        let phones: Vec<&str> = ds
            .contacts
            .iter()
            .filter_map(|c| c["phone"].as_str())
            .collect();
        assert!(
            phones
                .iter()
                .all(|p| p.starts_with('+') || p.starts_with("00"))
        );
    }
}
