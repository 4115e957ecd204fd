//! The contacts of an account sharing a word of a name, from the full-text index and the
//! relations the mirror keeps (`links`, keyed by record): the contact form's near-duplicate
//! check compares a draft with them, as the finder's `account + name word` keys do.

use rusqlite::params;
use serde_json::value::RawValue;

use super::schema::rel;
use super::{Mirror, MirrorError};
use crate::api::{ApiRecord, Contact};

impl Mirror {
    /// The live contacts linked to this account whose name holds one of `words` (folded
    /// words: the full-text index folds accents as well), at most `limit`. Reads the
    /// index's lists of those words, never the account's every contact (an account of
    /// thousands of contacts costs no more than one of ten).
    pub fn contacts_of_account_named(
        &self,
        account_id: &str,
        words: &[String],
        limit: usize,
    ) -> Result<Vec<Contact>, MirrorError> {
        let words: Vec<String> = words
            .iter()
            .filter(|w| !w.is_empty() && w.chars().all(char::is_alphanumeric))
            .map(|w| format!("\"{w}\""))
            .collect();
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let expr = format!("name : ({})", words.join(" OR "));
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT r.packed FROM fts_contacts f JOIN records r ON r.rid = f.rowid
                 WHERE fts_contacts MATCH ?1 AND r.gone_at IS NULL
                   AND EXISTS (SELECT 1 FROM links l WHERE l.rid = r.rid
                     AND l.rel = ?4 AND l.target_id = ?2)
                 LIMIT ?3",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(
                params![expr, account_id, limit as i64, rel::CONTACT_ACCOUNT],
                |row| row.get::<_, String>(0),
            )
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for packed in rows {
            let raw = self.unpack(&packed.map_err(|e| self.err(e))?)?;
            if let Some(c) = RawValue::from_string(raw)
                .ok()
                .and_then(|r| Contact::from_raw(r).ok())
            {
                out.push(c);
            }
        }
        Ok(out)
    }
}
