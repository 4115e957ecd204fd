//! Records exactly as a sync receives them (every include embedded), straight from a dataset
//! without a server: for benches and probes that fill a mirror in seconds.

use serde_json::{Map, Value};

use super::Dataset;
use super::listing::render;
use super::store::Store;
use crate::resource::Resource;

/// The contacts, deals and projects of `ds` as served with every include, handed to `f`
/// one resource at a time in the order served (oldest created first is not promised: the
/// dataset's order).
pub fn each_served(ds: Dataset, mut f: impl FnMut(Resource, Vec<Map<String, Value>>)) {
    let store = Store::new(ds);
    for r in Resource::ALL {
        let table = match r {
            Resource::Contacts => &store.contacts,
            Resource::Deals => &store.deals,
            Resource::Projects => &store.projects,
        };
        for chunk in table.rows.chunks(1000) {
            f(
                r,
                chunk
                    .iter()
                    .map(|row| render(&store, row, r, r.includes()))
                    .collect(),
            );
        }
    }
}
