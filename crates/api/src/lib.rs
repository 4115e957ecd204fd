//! crmdash-api: what the CRM's Public HTTP API v1 is and how to talk to it.
//!
//! The resource vocabulary (the seed's facts per resource: fields, sorts, filters, includes),
//! the tolerant models, the typed client with its retries, governor and errors, contact input
//! validation and the text normal forms records are compared by. It knows HTTP and the spec,
//! nothing of terminals, files or configuration.
//!
//! May use: external crates only. Every other crmdash crate builds on this one.

pub mod api;
pub mod child;
pub mod clock;
pub mod gate;
pub mod normalise;
pub mod resource;
pub mod validate;
