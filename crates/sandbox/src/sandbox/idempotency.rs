//! `Idempotency-Key` on contact creation: the key and a hash of the body are remembered for
//! 24 hours with the answer. Same key + same body replays the answer (`Idempotent-Replayed:
//! true`); same key + another body, or while the first is in flight, gets 409. Only successful
//! creates are remembered: a 422 (or a fault, or a dropped request) frees the key, so a
//! corrected body can reuse it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::state::Shared;

pub const KEY_TTL: Duration = Duration::from_secs(24 * 60 * 60);

#[derive(Debug, Clone)]
enum Entry {
    InFlight,
    Done {
        hash: [u8; 32],
        status: u16,
        body: Bytes,
        at: Instant,
    },
}

#[derive(Debug, Default)]
pub struct IdempotencyStore {
    entries: HashMap<String, Entry>,
}

/// What a request with a key may do.
pub enum Claim {
    /// First use: go ahead; the reservation stores the answer or frees the key.
    Fresh(Reservation),
    /// Seen with this body: answer this again.
    Replay { status: u16, body: Bytes },
    /// Seen with another body, or still in flight.
    Conflict(&'static str),
}

/// Sorted keys, no spaces: equal JSON values hash the same however their keys were ordered.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&m[k], out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The hash of a body: of its canonical JSON when it parses, of its bytes otherwise.
pub fn body_hash(body: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    match serde_json::from_slice::<Value>(body) {
        Ok(v) => {
            let mut s = String::new();
            canonical(&v, &mut s);
            h.update(b"json:");
            h.update(s.as_bytes());
        }
        Err(_) => {
            h.update(b"raw:");
            h.update(body);
        }
    }
    h.finalize().into()
}

impl IdempotencyStore {
    fn purge_expired(&mut self) {
        self.entries.retain(|_, e| match e {
            Entry::Done { at, .. } => at.elapsed() < KEY_TTL,
            Entry::InFlight => true,
        });
    }
}

/// Looks the key up and, when new, reserves it.
pub fn claim(shared: &Arc<Shared>, key: &str, body: &[u8]) -> Claim {
    let hash = body_hash(body);
    let mut store = shared.idempotency();
    store.purge_expired();
    match store.entries.get(key) {
        Some(Entry::InFlight) => Claim::Conflict(
            "A request with this Idempotency-Key is still being processed; retry later.",
        ),
        Some(Entry::Done { hash: h, .. }) if *h != hash => {
            Claim::Conflict("This Idempotency-Key was already used with a different request body.")
        }
        Some(Entry::Done { status, body, .. }) => Claim::Replay {
            status: *status,
            body: body.clone(),
        },
        None => {
            store.entries.insert(key.to_string(), Entry::InFlight);
            Claim::Fresh(Reservation {
                shared: shared.clone(),
                key: key.to_string(),
                hash,
                done: Mutex::new(false),
            })
        }
    }
}

/// A key held by one request. Dropped without `complete`, it frees the key.
pub struct Reservation {
    shared: Arc<Shared>,
    key: String,
    hash: [u8; 32],
    done: Mutex<bool>,
}

impl Reservation {
    /// Remembers the answer for replays.
    pub fn complete(&self, status: u16, body: Bytes) {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        self.shared.idempotency().entries.insert(
            self.key.clone(),
            Entry::Done {
                hash: self.hash,
                status,
                body,
                at: Instant::now(),
            },
        );
        *done = true;
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let done = *self.done.lock().unwrap_or_else(|e| e.into_inner());
        if !done {
            let mut store = self.shared.idempotency();
            if matches!(store.entries.get(&self.key), Some(Entry::InFlight)) {
                store.entries.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_does_not_change_the_hash() {
        assert_eq!(
            body_hash(br#"{"a":1,"b":[1,{"y":2,"x":1}]}"#),
            body_hash(br#"{ "b":[1,{"x":1,"y":2}], "a":1 }"#)
        );
        assert_ne!(body_hash(br#"{"a":1}"#), body_hash(br#"{"a":2}"#));
    }
}
