//! Generated contacts, kept compact: the fields lists sort and filter on are computed up front;
//! the rest of the record (phone, relations, extra fields) is drawn from the same random stream
//! when the contact is served. So 100,000 contacts are generated in well under a second.

use std::collections::HashSet;
use std::sync::OnceLock;

use chrono::{DateTime, Duration, TimeZone, Utc};
use serde_json::{Map, Value, json};

use super::names::{LOCALES, ascii_slug, latin, native};
use super::rng::SeedRng;
use super::timefmt::format_ts;

pub const KIND_CONTACT: u64 = 3;

/// Seed timestamps fall between `epoch()` and `SPAN_SECS` later (no wall clock: output is fixed).
pub fn epoch() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2022, 1, 3, 7, 0, 0)
        .single()
        .unwrap_or_default()
}
pub const SPAN_SECS: i64 = 118_000_000;

/// A created/updated pair: updated equals created for about a third of records.
pub fn stamp_pair(r: &mut SeedRng) -> (DateTime<Utc>, DateTime<Utc>) {
    let created = epoch()
        + Duration::seconds(r.range(0, SPAN_SECS))
        + Duration::microseconds(r.range(0, 1_000_000));
    let updated = if r.chance(33) {
        created
    } else {
        created
            + Duration::seconds(r.range(60, 200 * 86_400))
            + Duration::microseconds(r.range(0, 1_000_000))
    };
    (created, updated)
}

pub fn id(prefix: &str, i: usize) -> String {
    format!("{prefix}_{:06}", i + 1)
}

const TAGS: &[&str] = &[
    "vip",
    "newsletter",
    "lead",
    "partner",
    "trade-fair-2024",
    "churn-risk",
    "webinar",
    "enterprise",
];
const SOURCES: &[&str] = &[
    "web_form",
    "import",
    "api",
    "referral",
    "event",
    "cold_call",
];
const JOBS: &[&str] = &[
    "CEO",
    "Head of Purchasing",
    "Einkaufsleiterin",
    "Office Manager",
    "CTO",
    "Directeur commercial",
    "Project Lead",
    "Buyer",
    "営業部長",
    "Founder",
];

/// A name entry split once: native spelling, Latin spelling, e-mail slug.
struct NameParts {
    native: &'static str,
    latin: &'static str,
    slug: String,
    romanisable: bool,
}

/// Per locale: first names, last names.
type NameTable = Vec<(Vec<NameParts>, Vec<NameParts>)>;

fn names() -> &'static NameTable {
    static TABLE: OnceLock<NameTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let split = |list: &[&'static str]| {
            list.iter()
                .map(|e| NameParts {
                    native: native(e),
                    latin: latin(e),
                    slug: ascii_slug(latin(e)),
                    romanisable: e.contains('|'),
                })
                .collect()
        };
        LOCALES
            .iter()
            .map(|l| (split(l.first_names), split(l.last_names)))
            .collect()
    })
}

/// One generated contact: what lists need, plus the random stream for the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct SynthContact {
    pub index: usize,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub email: Option<String>,
    pub created: DateTime<Utc>,
    pub updated: DateTime<Utc>,
    accounts: Vec<usize>,
    locale: usize,
    users: usize,
    rest: SeedRng,
}

impl SynthContact {
    pub fn id(&self) -> String {
        id("con", self.index)
    }

    /// First and last name joined; `None` without any name.
    pub fn full_name(&self) -> Option<String> {
        match (&self.first_name, &self.last_name) {
            (Some(f), Some(l)) => Some(format!("{f} {l}")),
            (Some(n), None) | (None, Some(n)) => Some(n.clone()),
            (None, None) => None,
        }
    }

    /// Draws contact `i`. `account_domains[k]` is account `k`'s web domain; `earlier` are the
    /// contacts before it and `emails` their addresses (kept unique but for a few deliberate
    /// duplicates: the same person arriving twice).
    pub fn draw(
        seed: u64,
        i: usize,
        users: usize,
        account_domains: &[String],
        earlier: &[SynthContact],
        emails: &mut HashSet<String>,
    ) -> SynthContact {
        let mut r = SeedRng::for_record(seed, KIND_CONTACT, i as u64);
        let locale = r.below(LOCALES.len() as u64) as usize;
        let loc = &LOCALES[locale];
        let (firsts, lasts) = &names()[locale];
        let f = &firsts[r.below(firsts.len() as u64) as usize];
        let l = &lasts[r.below(lasts.len() as u64) as usize];
        let romanised = f.romanisable && r.chance(35);
        let spell = |p: &NameParts| if romanised { p.latin } else { p.native }.to_string();
        let (mut first, mut last) = (spell(f), spell(l));
        let (created, updated) = stamp_pair(&mut r);

        let account_count = match r.below(100) {
            0..75 => 1,
            75..85 => 2,
            _ => 0,
        };
        let mut accounts = Vec::new();
        for _ in 0..account_count {
            if account_domains.is_empty() {
                break;
            }
            let a = r.below(account_domains.len() as u64) as usize;
            if !accounts.contains(&a) {
                accounts.push(a);
            }
        }
        let (fs, ls) = (&f.slug, &l.slug);
        let local = match r.below(5) {
            0 => format!("{fs}.{ls}"),
            1 => format!("{fs}{ls}"),
            2 => format!("{}.{ls}", fs.chars().next().unwrap_or('x')),
            3 => format!("{ls}.{fs}"),
            _ => format!("{fs}_{ls}{}", r.range(1, 99)),
        };
        let domain = if !accounts.is_empty() && r.chance(40) {
            account_domains[accounts[0]].as_str()
        } else {
            *r.pick(loc.email_domains)
        };
        let mut email = format!("{local}@{domain}");
        while emails.contains(&email) {
            email = format!("{local}{}@{domain}", r.range(2, 999));
        }
        if i % 97 == 41 {
            let d = &earlier[r.below(i as u64) as usize];
            if let Some(e) = &d.email {
                email = e.clone();
                first = d.first_name.clone().unwrap_or(first);
                last = d.last_name.clone().unwrap_or(last);
            }
        }
        emails.insert(email.clone());
        let nameless = r.chance(2);
        let email = (nameless || !r.chance(3)).then_some(email);
        let (first_name, last_name) = if nameless {
            (None, None)
        } else if r.chance(2) {
            (Some(first), None)
        } else {
            (Some(first), Some(last))
        };
        SynthContact {
            index: i,
            first_name,
            last_name,
            email,
            created,
            updated,
            accounts,
            locale,
            users: users.max(1),
            rest: r,
        }
    }

    /// The whole record as served.
    pub fn to_json(&self) -> Map<String, Value> {
        let mut r = self.rest.clone();
        let loc = &LOCALES[self.locale];
        let phone = if r.chance(85) {
            let format = *r.pick(loc.phone_formats);
            json!(r.digits(format))
        } else {
            Value::Null
        };
        let users = self.users as u64;
        let assigned = r.chance(85).then(|| id("usr", r.below(users) as usize));
        let mut assigned_ids: Vec<String> = assigned.iter().cloned().collect();
        for _ in 0..r.below(3) {
            let u = id("usr", r.below(users) as usize);
            if !assigned_ids.contains(&u) {
                assigned_ids.push(u);
            }
        }
        let account_ids: Vec<String> = self.accounts.iter().map(|a| id("acc", *a)).collect();
        let created = format_ts(self.created);
        let mut m = Map::new();
        m.insert("id".into(), json!(self.id()));
        m.insert("first_name".into(), json!(self.first_name));
        m.insert("last_name".into(), json!(self.last_name));
        m.insert("full_name".into(), json!(self.full_name()));
        m.insert("email".into(), json!(self.email));
        m.insert("phone".into(), phone);
        m.insert("account_ids".into(), json!(account_ids));
        m.insert("assigned_user_id".into(), json!(assigned));
        m.insert("assigned_user_ids".into(), json!(assigned_ids));
        m.insert("created_at".into(), json!(created));
        m.insert("updated_at".into(), json!(format_ts(self.updated)));
        if r.chance(30) {
            let n = 1 + r.below(3);
            let mut tags: Vec<&str> = (0..n).map(|_| *r.pick(TAGS)).collect();
            tags.sort_unstable();
            tags.dedup();
            m.insert("tags".into(), json!(tags));
        }
        if r.chance(50) {
            m.insert("source".into(), json!(r.pick(SOURCES)));
        }
        if r.chance(25) {
            m.insert("job_title".into(), json!(r.pick(JOBS)));
        }
        if r.chance(20) {
            m.insert(
                "custom_fields".into(),
                json!({"customer_number": r.digits("KD-#####"), "preferred_language": loc.language, "loyalty_points": r.range(0, 5000)}),
            );
        }
        if r.chance(40) {
            m.insert(
                "consent".into(),
                json!({"email": r.chance(70), "sms": r.chance(30), "recorded_at": created}),
            );
        }
        m
    }
}
