//! The typed API client: decoding, queries and errors, and real HTTP against local servers.

mod api_wire;
mod decode;
mod faults;
mod http;
mod props;
mod query;
