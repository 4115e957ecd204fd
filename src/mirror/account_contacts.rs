//! The contacts of an account, from the relations the mirror keeps (`links`, indexed by
//! target): the contact form's near-duplicate check compares a draft with them.

use rusqlite::params;
use serde_json::value::RawValue;

use super::{Mirror, MirrorError};
use crate::api::{ApiRecord, Contact};

impl Mirror {
    /// The live contacts linked to this account, at most `limit`, in id order.
    pub fn contacts_of_account(
        &self,
        account_id: &str,
        limit: usize,
    ) -> Result<Vec<Contact>, MirrorError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT r.packed FROM links l JOIN records r ON r.resource = l.resource AND r.id = l.id
                 WHERE l.rel = 'account' AND l.target_id = ?1 AND l.resource = 'contacts'
                   AND r.gone_at IS NULL
                 GROUP BY r.rid ORDER BY r.id LIMIT ?2",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![account_id, limit as i64], |row| {
                row.get::<_, String>(0)
            })
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
