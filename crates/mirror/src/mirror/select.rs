//! The ids of every live record a query matches, without reading the records: what `*`
//! (select every match) needs, about 30 ms for 100,000 contacts.

use rusqlite::params_from_iter;

use super::rows::MirrorQuery;
use super::{Mirror, MirrorError};

impl Mirror {
    /// Hands each id matching `q`'s filters (not its paging) to `f`; how many there were.
    pub fn matching_ids<Q: MirrorQuery>(
        &self,
        q: &Q,
        mut f: impl FnMut(&str),
    ) -> Result<usize, MirrorError> {
        let c = q.clauses();
        let (cond, args) = c.condition();
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT id FROM records WHERE {cond}"))
            .map_err(|e| self.err(e))?;
        let mut rows = stmt
            .query(params_from_iter(args.iter()))
            .map_err(|e| self.err(e))?;
        let mut n = 0;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let id = row.get_ref(0).map_err(|e| self.err(e))?;
            if let Ok(id) = id.as_str() {
                f(id);
                n += 1;
            }
        }
        Ok(n)
    }
}
