//! Generators of the seed's users, accounts, deals, projects and appointments (contacts are in
//! `gen_contacts`): deterministic per seed and record number.

use chrono::{Duration, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use serde_json::{Map, Value, json};

use super::gen_contacts::{SynthContact, epoch, id, stamp_pair};
use super::names::{LOCALES, Locale, ascii_slug, latin, native};
use super::rng::SeedRng;
use super::seed::Sizes;
use super::timefmt::{format_date, format_ts};

const KIND_USER: u64 = 1;
const KIND_ACCOUNT: u64 = 2;
const KIND_DEAL: u64 = 4;
const KIND_PROJECT: u64 = 5;
const KIND_APPOINTMENT: u64 = 6;

/// A created/updated pair as served.
fn stamps(r: &mut SeedRng) -> (String, String) {
    let (c, u) = stamp_pair(r);
    (format_ts(c), format_ts(u))
}

/// A person's name in the locale: native script, or (sometimes) its romanisation.
fn person(r: &mut SeedRng, loc: &Locale) -> (String, String, String, String) {
    let f = *r.pick(loc.first_names);
    let l = *r.pick(loc.last_names);
    let romanised = f.contains('|') && r.chance(35);
    let pick = |e: &str| if romanised { latin(e) } else { native(e) }.to_string();
    (pick(f), pick(l), ascii_slug(latin(f)), ascii_slug(latin(l)))
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

pub fn gen_user(seed: u64, i: usize) -> Map<String, Value> {
    let mut r = SeedRng::for_record(seed, KIND_USER, i as u64);
    let loc = r.pick(LOCALES);
    let (first, last, fs, ls) = person(&mut r, loc);
    let (created, updated) = stamps(&mut r);
    let role = *r.pick(&[
        "sales",
        "sales",
        "sales",
        "account_manager",
        "support",
        "manager",
        "admin",
    ]);
    obj(json!({
        "id": id("usr", i),
        "name": format!("{first} {last}"),
        "email": format!("{fs}.{ls}@northwind-sandbox.example"),
        "role": role,
        "timezone": loc.timezone,
        "created_at": created,
        "updated_at": updated,
    }))
}

fn company_name(r: &mut SeedRng, loc: &Locale) -> String {
    let format = *r.pick(loc.company_formats);
    let last = native(r.pick_str(loc.last_names)).to_string();
    format
        .replace("{last}", &last)
        .replace("{word}", r.pick_str(loc.company_words))
        .replace("{city}", r.pick_str(loc.cities))
}

pub fn gen_account(seed: u64, i: usize) -> Map<String, Value> {
    let mut r = SeedRng::for_record(seed, KIND_ACCOUNT, i as u64);
    let loc = &LOCALES[i % LOCALES.len()];
    let name = company_name(&mut r, loc);
    let mut slug = ascii_slug(&name);
    if slug.len() < 4 {
        slug = format!("{}{}", ascii_slug(latin(r.pick_str(loc.last_names))), i + 1);
    }
    slug.truncate(24);
    let (created, updated) = stamps(&mut r);
    let mut m = obj(json!({
        "id": id("acc", i),
        "name": name,
        "website": format!("https://www.{slug}.example"),
        "country": loc.country,
        "city": r.pick(loc.cities),
        "phone": r.digits(loc.phone_formats[i % loc.phone_formats.len()]),
        "industry": r.pick(&["Manufacturing", "Retail", "Software", "Logistics", "Healthcare", "Energy", "Food & Beverage", "Construction"]),
        "created_at": created,
        "updated_at": updated,
    }));
    if r.chance(40) {
        m.insert("employees".into(), json!(r.range(5, 20_000)));
    }
    m
}

pub fn gen_deal(
    seed: u64,
    i: usize,
    sizes: &Sizes,
    accounts: &[Map<String, Value>],
    linked: usize,
) -> Map<String, Value> {
    let mut r = SeedRng::for_record(seed, KIND_DEAL, i as u64);
    let account = (!accounts.is_empty() && r.chance(92))
        .then(|| &accounts[r.below(accounts.len() as u64) as usize]);
    let product = *r.pick(&[
        "Annual licence",
        "Onboarding package",
        "Support renewal",
        "Pilot project",
        "Hardware refresh",
        "Consulting retainer",
        "Expansion: 50 seats",
        "Data migration",
        "Wartungsvertrag 2025",
        "Rollout phase 2",
    ]);
    let name = match account {
        Some(a) => format!("{} – {product}", a["name"].as_str().unwrap_or("?")),
        None => product.to_string(),
    };
    let status = *r.pick(&[
        "open", "open", "open", "open", "won", "won", "lost", "lost", "on_hold",
    ]);
    let cents = match r.below(10) {
        0..4 => r.range(50_000, 1_000_000),
        4..8 => r.range(1_000_000, 10_000_000),
        _ => r.range(10_000_000, 50_000_000),
    };
    // Two thirds send a decimal string with cents, the rest a JSON number (sometimes whole).
    let value = if r.chance(66) {
        json!(format!("{}.{:02}", cents / 100, cents % 100))
    } else if r.chance(40) {
        json!(cents / 100)
    } else {
        json!(cents as f64 / 100.0)
    };
    let (created, updated) = stamps(&mut r);
    let contact_ids: Vec<String> = (0..(if linked == 0 { 0 } else { 1 + r.below(3) }))
        .map(|_| id("con", r.below(linked as u64) as usize))
        .collect();
    let assigned = id("usr", r.below(sizes.users.max(1) as u64) as usize);
    let mut assigned_ids = vec![assigned.clone()];
    if r.chance(30) {
        assigned_ids.push(id("usr", r.below(sizes.users.max(1) as u64) as usize));
        assigned_ids.dedup();
    }
    let currency = account
        .and_then(|a| a["country"].as_str())
        .and_then(|c| LOCALES.iter().find(|l| l.country == c))
        .map_or("EUR", |l| l.currency);
    let mut m = obj(json!({
        "id": id("deal", i),
        "name": name,
        "status": status,
        "value": value,
        "currency": currency,
        "account_id": account.map(|a| a["id"].clone()),
        "contact_ids": contact_ids,
        "assigned_user_id": if r.chance(95) { json!(assigned) } else { Value::Null },
        "assigned_user_ids": assigned_ids,
        "created_at": created,
        "updated_at": updated,
    }));
    if status == "open" {
        m.insert("probability".into(), json!(r.range(5, 95)));
    }
    if r.chance(50) {
        let d = NaiveDate::from_ymd_opt(2025, 1, 1).unwrap_or_default()
            + Duration::days(r.range(0, 540));
        m.insert("expected_close_date".into(), json!(format_date(d)));
    }
    if r.chance(20) {
        m.insert(
            "tags".into(),
            json!([r.pick(&["strategic", "renewal", "upsell", "at-risk"])]),
        );
    }
    m
}

pub fn gen_project(
    seed: u64,
    i: usize,
    sizes: &Sizes,
    accounts: &[Map<String, Value>],
) -> Map<String, Value> {
    let mut r = SeedRng::for_record(seed, KIND_PROJECT, i as u64);
    let kind = *r.pick(&[
        "Website relaunch",
        "ERP rollout",
        "Office move",
        "Q3 campaign",
        "Data warehouse",
        "Mobile app",
        "ISO 27001 audit",
        "Training programme",
        "CRM migration",
        "Umzug Lager Nord",
        "Lancement produit",
    ]);
    let account =
        (!accounts.is_empty()).then(|| &accounts[r.below(accounts.len() as u64) as usize]);
    let name = match account {
        Some(a) if r.chance(80) => format!("{}: {kind}", a["name"].as_str().unwrap_or("?")),
        _ => kind.to_string(),
    };
    let status = *r.pick(&[
        "planned",
        "active",
        "active",
        "active",
        "on_hold",
        "completed",
        "completed",
        "cancelled",
    ]);
    let start =
        NaiveDate::from_ymd_opt(2023, 1, 2).unwrap_or_default() + Duration::days(r.range(0, 1100));
    let open_ended = match status {
        "completed" | "cancelled" => false,
        "active" | "on_hold" => r.chance(50),
        _ => r.chance(60),
    };
    let end = (!open_ended).then(|| format_date(start + Duration::days(r.range(14, 400))));
    let owner = id("usr", r.below(sizes.users.max(1) as u64) as usize);
    let mut members = vec![owner.clone()];
    for _ in 0..r.below(5) {
        let u = id("usr", r.below(sizes.users.max(1) as u64) as usize);
        if !members.contains(&u) {
            members.push(u);
        }
    }
    let (created, updated) = stamps(&mut r);
    let mut m = obj(json!({
        "id": id("prj", i),
        "name": name,
        "status": status,
        "start_date": format_date(start),
        "end_date": end,
        "owner_id": owner,
        "member_ids": members,
        "account_id": account.map(|a| a["id"].clone()),
        "created_at": created,
        "updated_at": updated,
    }));
    if r.chance(40) {
        m.insert(
            "budget".into(),
            json!(format!("{}.00", r.range(5, 500) * 1000)),
        );
    }
    m
}

pub fn gen_appointment(
    seed: u64,
    i: usize,
    sizes: &Sizes,
    contacts: &[SynthContact],
) -> Map<String, Value> {
    let mut r = SeedRng::for_record(seed, KIND_APPOINTMENT, i as u64);
    let loc = r.pick(LOCALES);
    let tz: Tz = loc.timezone.parse().unwrap_or(Tz::UTC);
    let contact =
        (!contacts.is_empty()).then(|| &contacts[r.below(contacts.len() as u64) as usize]);
    let who = contact
        .and_then(|c| c.full_name().or(c.email.clone()))
        .unwrap_or_else(|| "prospect".to_string());
    let title = format!(
        "{} – {who}",
        r.pick(&[
            "Intro call",
            "Product demo",
            "Contract review",
            "Quarterly business review",
            "On-site visit",
            "Follow-up",
            "Kick-off"
        ])
    );
    let day =
        NaiveDate::from_ymd_opt(2025, 9, 1).unwrap_or_default() + Duration::days(r.range(0, 200));
    let local = day
        .and_hms_opt(8 + r.below(9) as u32, if r.chance(50) { 0 } else { 30 }, 0)
        .unwrap_or_default();
    let start = tz
        .from_local_datetime(&local)
        .earliest()
        .map_or_else(epoch, |t| t.with_timezone(&Utc));
    let end = start + Duration::minutes(*r.pick(&[30, 45, 60, 60, 90]));
    let (created, updated) = stamps(&mut r);
    obj(json!({
        "id": id("apt", i),
        "title": title,
        "start_time": format_ts(start),
        "end_time": format_ts(end),
        "timezone": loc.timezone,
        "status": r.pick(&["scheduled", "scheduled", "confirmed", "confirmed", "cancelled", "completed"]),
        "location": r.pick(&["Video call", "Phone", "Customer site", "Office, 3rd floor", "Zoom", "Teams"]),
        "contact_id": contact.map(SynthContact::id),
        "assigned_user_id": id("usr", r.below(sizes.users.max(1) as u64) as usize),
        "created_at": created,
        "updated_at": updated,
    }))
}
