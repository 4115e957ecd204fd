//! crmdash-sandbox: a local, spec-faithful fake of the CRM service (axum) with realistic
//! seeded data and fault injection; `crmdash --demo`, `crmdash sandbox` and every
//! integration test talk to it over real HTTP on loopback.
//!
//! May use: `crmdash-api` (the resource vocabulary and models) only.

#[cfg(test)]
use crmdash_api::api;
use crmdash_api::{normalise, resource};

pub mod sandbox;
