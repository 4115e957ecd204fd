//! Planted near duplicates: copies of seeded contacts written the way the same person arrives
//! twice (a typo, swapped names, another phone format, another case, Gmail's dots), plus
//! look-alikes who are different people, each labelled, so the duplicate finder can be shown
//! (`--demo`) and measured (precision and recall). Appended after the seeded contacts, which
//! stay as they are.

use chrono::Duration;
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::gen_contacts::{SPAN_SECS, epoch, id};
use super::rng::SeedRng;
use super::seed::Dataset;
use super::timefmt::format_ts;
use crate::normalise::{email_key, strip_accents};

const KIND_PLANTED: u64 = 7;

/// How a planted contact differs from its original.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlantKind {
    /// The same email in another case, the same name.
    EmailCase,
    /// A Gmail address with dots moved and a `+tag`, the same name.
    GmailDots,
    /// The same phone written in another format (national `030 ...` for German numbers),
    /// the same name, no email.
    PhoneFormat,
    /// One typo in the name, the same account, no email or phone.
    NameTypo,
    /// `Last, First` or first and last name swapped, the same account.
    SwappedName,
    /// Accents and case dropped (`JURGEN MULLER`), the same account.
    Accents,
    /// A different person: the same name, another account, email and phone. Not a duplicate.
    LookAlike,
}

impl PlantKind {
    pub const ALL: [PlantKind; 7] = [
        PlantKind::EmailCase,
        PlantKind::GmailDots,
        PlantKind::PhoneFormat,
        PlantKind::NameTypo,
        PlantKind::SwappedName,
        PlantKind::Accents,
        PlantKind::LookAlike,
    ];

    /// False for the look-alike: a different person.
    pub fn is_duplicate(self) -> bool {
        self != PlantKind::LookAlike
    }
}

/// One planted contact and the seeded one it copies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Planted {
    pub id: String,
    pub original: String,
    pub kind: PlantKind,
}

fn text(c: &Map<String, Value>, key: &str) -> Option<String> {
    c.get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .filter(|s| !s.trim().is_empty())
}

fn accounts(c: &Map<String, Value>) -> Vec<Value> {
    c.get("account_ids")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// Whether `kind` can be planted from `c`.
fn fits(kind: PlantKind, c: &Map<String, Value>) -> bool {
    let named = text(c, "first_name").is_some() && text(c, "last_name").is_some();
    let latin = |s: Option<String>| {
        s.is_some_and(|s| {
            s.chars()
                .all(|ch| ch.is_alphabetic() && (ch as u32) < 0x250)
        })
    };
    let with_account = !accounts(c).is_empty();
    match kind {
        PlantKind::EmailCase => named && text(c, "email").is_some(),
        PlantKind::GmailDots => {
            named
                && text(c, "email").is_some_and(|e| {
                    e.ends_with("@gmail.com") && e.split('@').next().is_some_and(|l| l.len() > 3)
                })
        }
        PlantKind::PhoneFormat => named && text(c, "phone").is_some(),
        PlantKind::NameTypo => {
            named
                && with_account
                && latin(text(c, "last_name"))
                && text(c, "last_name").is_some_and(|l| l.chars().count() >= 5)
        }
        PlantKind::SwappedName => named && with_account,
        PlantKind::Accents => {
            named
                && with_account
                && text(c, "full_name").is_some_and(|n| {
                    n.chars()
                        .any(|ch| !ch.is_ascii() && ch.is_alphabetic() && (ch as u32) < 0x250)
                })
        }
        PlantKind::LookAlike => named,
    }
}

/// `+49 30 1234567` as `030 1234567`; other numbers with `00` for `+` and no spaces, or
/// the other way round.
fn reformat_phone(p: &str) -> String {
    let p = p.replace("(0)", "");
    let digits: String = p.chars().filter(char::is_ascii_digit).collect();
    if let Some(rest) = digits.strip_prefix("49") {
        return format!(
            "0{} {}",
            &rest[..2.min(rest.len())],
            &rest[2.min(rest.len())..]
        );
    }
    if p.starts_with("00") {
        format!("+{}", &digits[2..])
    } else {
        format!("00{digits}")
    }
}

/// Swaps two neighbouring letters inside the word (`Mueller` -> `Muelelr`).
fn typo(word: &str, r: &mut SeedRng) -> String {
    let mut chars: Vec<char> = word.chars().collect();
    let at = 1 + r.below((chars.len() - 2) as u64) as usize;
    chars.swap(at, at + 1);
    if chars.iter().collect::<String>() == word {
        chars.remove(at);
    }
    chars.into_iter().collect()
}

/// The copy of `c` of this kind.
fn copy(kind: PlantKind, c: &Map<String, Value>, r: &mut SeedRng) -> Map<String, Value> {
    let first = text(c, "first_name").unwrap_or_default();
    let last = text(c, "last_name").unwrap_or_default();
    let email = text(c, "email");
    let phone = text(c, "phone");
    let mut first_out = first.clone();
    let mut last_out = last.clone();
    let mut full = format!("{first} {last}");
    let (mut email_out, mut phone_out, mut accounts_out) = (None, None, accounts(c));
    match kind {
        PlantKind::EmailCase => {
            let e = email.unwrap_or_default();
            email_out = Some(match e.split_once('@') {
                Some((l, d)) => format!("{}@{}", capitalise(l), d.to_uppercase()),
                None => e.to_uppercase(),
            });
        }
        PlantKind::GmailDots => {
            let e = email.unwrap_or_default();
            let local = e.split('@').next().unwrap_or_default().replace('.', "");
            let cut = 1 + r.below((local.len() - 1) as u64) as usize;
            let cut = (1..=cut)
                .rev()
                .find(|&i| local.is_char_boundary(i))
                .unwrap_or(1);
            email_out = Some(format!("{}.{}+crm@gmail.com", &local[..cut], &local[cut..]));
        }
        PlantKind::PhoneFormat => {
            phone_out = phone.as_deref().map(reformat_phone);
            accounts_out = Vec::new();
        }
        PlantKind::NameTypo => {
            last_out = typo(&last, r);
            full = format!("{first_out} {last_out}");
        }
        PlantKind::SwappedName => {
            if r.chance(50) {
                full = format!("{last}, {first}");
            } else {
                first_out = last.clone();
                last_out = first.clone();
                full = format!("{first_out} {last_out}");
            }
        }
        PlantKind::Accents => {
            first_out = strip_accents(&first).to_uppercase();
            last_out = strip_accents(&last).to_uppercase();
            full = format!("{first_out} {last_out}");
        }
        PlantKind::LookAlike => {
            let slug: String = first
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .collect::<String>()
                .to_lowercase();
            email_out = Some(format!("{slug}.{}@other.example", r.range(100, 999)));
            phone_out = Some(r.digits("+1 555 ### ####"));
            accounts_out = Vec::new();
        }
    }
    let mut m = Map::new();
    m.insert("first_name".into(), json!(first_out));
    m.insert("last_name".into(), json!(last_out));
    m.insert("full_name".into(), json!(full));
    m.insert("email".into(), json!(email_out));
    m.insert("phone".into(), json!(phone_out));
    m.insert("account_ids".into(), Value::Array(accounts_out));
    m.insert(
        "assigned_user_id".into(),
        c.get("assigned_user_id").cloned().unwrap_or(Value::Null),
    );
    m.insert("assigned_user_ids".into(), json!([]));
    m.insert("source".into(), json!("import"));
    m
}

/// `j.smith` as `J.Smith`.
fn capitalise(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut up = true;
    for ch in s.chars() {
        if up {
            out.extend(ch.to_uppercase());
        } else {
            out.push(ch);
        }
        up = matches!(ch, '.' | '_' | '-');
    }
    out
}

impl Dataset {
    /// A sandbox's data: [`Dataset::load`], with the near duplicates planted when asked.
    pub fn for_sandbox(
        seed: u64,
        contacts: usize,
        near_duplicates: bool,
    ) -> Result<(Dataset, Vec<Planted>), super::seed::AssetError> {
        let mut ds = Dataset::load(seed, contacts)?;
        let planted = if near_duplicates {
            ds.plant_near_duplicates(seed)
        } else {
            Vec::new()
        };
        Ok((ds, planted))
    }

    /// Appends one planted contact per 20 seeded ones (the kinds in turn), after every seeded
    /// contact, created after the seed's time span; returns the labels. Deterministic for a
    /// seed and a contact count.
    pub fn plant_near_duplicates(&mut self, seed: u64) -> Vec<Planted> {
        let seeded = self.contacts.len() + self.synthetic_contacts.len();
        let json_of = |ds: &Dataset, i: usize| -> Map<String, Value> {
            if i < ds.contacts.len() {
                ds.contacts[i].clone()
            } else {
                ds.synthetic_contacts[i - ds.contacts.len()].to_json()
            }
        };
        let count = seeded / 20;
        let mut used = std::collections::HashSet::new();
        let mut labels = Vec::with_capacity(count);
        let mut planted = Vec::with_capacity(count);
        for k in 0..count {
            let kind = PlantKind::ALL[k % PlantKind::ALL.len()];
            let mut r = SeedRng::for_record(seed, KIND_PLANTED, k as u64);
            let start = r.below(seeded as u64) as usize;
            let Some((i, original)) = (0..seeded)
                .map(|o| (start + o) % seeded)
                .filter(|i| !used.contains(i))
                .map(|i| (i, json_of(self, i)))
                .find(|(_, c)| fits(kind, c))
            else {
                continue;
            };
            used.insert(i);
            let mut m = copy(kind, &original, &mut r);
            let new_id = id("con", seeded + planted.len());
            let at = epoch()
                + Duration::seconds(SPAN_SECS + 3600 * k as i64 + r.range(0, 3000))
                + Duration::microseconds(r.range(0, 1_000_000));
            m.insert("id".into(), json!(new_id));
            m.insert("created_at".into(), json!(format_ts(at)));
            m.insert("updated_at".into(), json!(format_ts(at)));
            let mut ordered = Map::new();
            ordered.insert("id".into(), m["id"].clone());
            ordered.extend(m);
            labels.push(Planted {
                id: new_id,
                original: text(&original, "id").unwrap_or_default(),
                kind,
            });
            planted.push(ordered);
        }
        // Kept as JSON beside generated contacts too: their ids follow every seeded one.
        self.contacts.extend(planted);
        labels
    }

    /// The labelled truth of a data set: pairs of contact ids that are one person: the planted
    /// copies, and contacts of one mailbox (the seed's deliberate duplicates, the same email
    /// twice, and the few Gmail addresses it drew twice with other dots, which Gmail delivers
    /// to one mailbox).
    pub fn labelled_duplicates(&self, planted: &[Planted]) -> Vec<(String, String)> {
        let mut by_email: std::collections::HashMap<String, Vec<String>> =
            std::collections::HashMap::new();
        let all = self
            .contacts
            .iter()
            .cloned()
            .chain(self.synthetic_contacts.iter().map(|c| c.to_json()));
        for c in all {
            if let (Some(e), Some(id)) = (text(&c, "email"), text(&c, "id")) {
                by_email
                    .entry(email_key(&e).unwrap_or_else(|| e.trim().to_lowercase()))
                    .or_default()
                    .push(id);
            }
        }
        let mut out: Vec<(String, String)> = planted
            .iter()
            .filter(|p| p.kind.is_duplicate())
            .map(|p| (p.original.clone(), p.id.clone()))
            .collect();
        for ids in by_email.values().filter(|v| v.len() > 1) {
            for w in ids.windows(2) {
                out.push((w[0].clone(), w[1].clone()));
            }
        }
        out.sort();
        out.dedup();
        out
    }
}
