//! The embedded sandbox over real HTTP: lists, writes, every fault kind, and its OpenAPI
//! document checked against its own answers and the client's requests.

#[path = "../api/api_wire.rs"]
mod api_wire;
mod faults;
mod lists;
mod openapi;
mod writes;
