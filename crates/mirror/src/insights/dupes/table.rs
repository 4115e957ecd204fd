//! People as the matcher keeps them while it compares: every text of every person in one
//! buffer (ids, names and emails as written, and their normal forms), each person a row of
//! spans into it, account ids as small numbers. 100,000 contacts take about 20 MB, against
//! twice that as [`Person`]s with their normal forms beside them.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use phonenumber::country::Id as Country;

use super::Person;
use super::normalise::{email_key, fold_name, phone_e164};

/// A piece of [`Table::text`]; `len == u32::MAX` is none.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Span {
    at: u32,
    len: u32,
}

const NONE: Span = Span {
    at: 0,
    len: u32::MAX,
};

#[derive(Debug, Clone, Copy)]
struct Row {
    id: Span,
    /// The name as shown.
    name: Span,
    /// Email and phone as written.
    email: Span,
    phone: Span,
    /// The mailbox key, the E.164 phone, the folded name's words joined by single spaces.
    email_key: Span,
    phone_key: Span,
    folded: Span,
    /// This person's account numbers in [`Table::links`].
    links: (u32, u32),
    created: Option<DateTime<Utc>>,
}

/// What the matcher compares of one person.
#[derive(Debug, Clone, Copy)]
pub(super) struct View<'t> {
    pub email: Option<&'t str>,
    pub email_key: Option<&'t str>,
    pub phone_key: Option<&'t str>,
    pub folded: &'t str,
    pub accounts: &'t [u32],
}

impl<'t> View<'t> {
    pub fn words(&self) -> impl Iterator<Item = &'t str> + Clone {
        self.folded.split(' ').filter(|w| !w.is_empty())
    }

    /// The words sorted and joined (`smith john` for `john smith`).
    pub fn sorted(&self) -> String {
        let mut w: Vec<&str> = self.words().collect();
        w.sort_unstable();
        w.join(" ")
    }
}

/// People in normal form (see the module's text). Rows are numbered in the order pushed.
#[derive(Debug)]
pub struct Table {
    region: Option<Country>,
    text: String,
    rows: Vec<Row>,
    links: Vec<u32>,
    /// Account number -> id, and back.
    accounts: Vec<Box<str>>,
    numbers: HashMap<Box<str>, u32>,
}

impl Table {
    /// An empty table; `region` is the country of phone numbers written without a prefix.
    pub fn new(region: Option<Country>) -> Table {
        Table {
            region,
            text: String::new(),
            rows: Vec::new(),
            links: Vec::new(),
            accounts: Vec::new(),
            numbers: HashMap::new(),
        }
    }

    /// A table of these people, row `i` person `i`.
    pub fn of(people: &[Person], region: Option<Country>) -> Table {
        let mut t = Table::new(region);
        for p in people {
            t.push_person(p);
        }
        t
    }

    pub fn push_person(&mut self, p: &Person) -> usize {
        self.push(
            &p.id,
            &p.name,
            p.email.as_deref(),
            p.phone.as_deref(),
            p.accounts.iter().map(String::as_str),
            p.created_at,
        )
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn put(&mut self, s: &str) -> Span {
        let at = self.text.len() as u32;
        self.text.push_str(s);
        Span {
            at,
            len: s.len() as u32,
        }
    }

    fn put_opt(&mut self, s: Option<&str>) -> Span {
        s.map_or(NONE, |s| self.put(s))
    }

    fn get(&self, s: Span) -> Option<&str> {
        (s.len != u32::MAX).then(|| &self.text[s.at as usize..(s.at + s.len) as usize])
    }

    /// Adds a person, made into its normal forms (E.164 parsing is the dearest step).
    pub fn push<'a>(
        &mut self,
        id: &str,
        name: &str,
        email: Option<&str>,
        phone: Option<&str>,
        accounts: impl IntoIterator<Item = &'a str>,
        created: Option<DateTime<Utc>>,
    ) -> usize {
        let key = email.and_then(email_key);
        let e164 = phone.and_then(|t| phone_e164(t, self.region));
        let folded = fold_name(name).join(" ");
        let id = self.put(id);
        let name = self.put(name);
        let email_span = self.put_opt(email);
        // Most emails are written in their key's form already: one copy serves both.
        let email_key = match (&key, email) {
            (Some(k), Some(e)) if k == e => email_span,
            (k, _) => self.put_opt(k.as_deref()),
        };
        let phone = self.put_opt(phone);
        let phone_key = self.put_opt(e164.as_deref());
        let folded = self.put(&folded);
        let start = self.links.len() as u32;
        for a in accounts {
            let n = match self.numbers.get(a) {
                Some(n) => *n,
                None => {
                    let n = self.accounts.len() as u32;
                    self.accounts.push(a.into());
                    self.numbers.insert(a.into(), n);
                    n
                }
            };
            self.links.push(n);
        }
        self.rows.push(Row {
            id,
            name,
            email: email_span,
            phone,
            email_key,
            phone_key,
            folded,
            links: (start, self.links.len() as u32),
            created,
        });
        self.rows.len() - 1
    }

    pub fn id(&self, i: usize) -> &str {
        self.get(self.rows[i].id).unwrap_or("")
    }

    pub fn created(&self, i: usize) -> Option<DateTime<Utc>> {
        self.rows[i].created
    }

    /// The folded name (`john smith`).
    pub fn folded(&self, i: usize) -> &str {
        self.get(self.rows[i].folded).unwrap_or("")
    }

    pub fn email_key(&self, i: usize) -> Option<&str> {
        self.get(self.rows[i].email_key)
    }

    /// An account's id by its number.
    pub fn account(&self, n: u32) -> &str {
        &self.accounts[n as usize]
    }

    pub(super) fn view(&self, i: usize) -> View<'_> {
        let r = &self.rows[i];
        View {
            email: self.get(r.email),
            email_key: self.get(r.email_key),
            phone_key: self.get(r.phone_key),
            folded: self.get(r.folded).unwrap_or(""),
            accounts: &self.links[r.links.0 as usize..r.links.1 as usize],
        }
    }

    /// Row `i` as a [`Person`].
    pub fn person(&self, i: usize) -> Person {
        let r = &self.rows[i];
        let text = |s: Span| self.get(s).unwrap_or("").to_string();
        Person {
            id: text(r.id),
            name: text(r.name),
            email: self.get(r.email).map(str::to_string),
            phone: self.get(r.phone).map(str::to_string),
            accounts: self.links[r.links.0 as usize..r.links.1 as usize]
                .iter()
                .map(|&n| self.account(n).to_string())
                .collect(),
            created_at: r.created,
        }
    }

    /// Gives back memory grown for rows that never came.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.rows.shrink_to_fit();
        self.links.shrink_to_fit();
    }
}
