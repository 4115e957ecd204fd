//! The typed client of the service's Public HTTP API v1: knows HTTP and the seed, nothing of
//! terminals. `Client` has one async method per operation; queries are typed; records tolerant.

pub mod client;
pub mod error;
pub mod exchange;
pub mod governor;
pub mod json_depth;
mod mask;
pub mod models;
pub mod priority;
pub mod query;
pub mod raw;
pub mod retry;
mod transport;

pub use client::{
    Client, ClientOptions, Created, Observer, RequestEvent, check_base_url, is_loopback,
};
pub use error::{ApiError, ErrorKind, parse_error_body, parse_retry_after};
pub use governor::{Governor, Permit};
pub use json_depth::{MAX_JSON_DEPTH, TooDeep, check_depth};
pub use mask::MASK as TOKEN_MASK;
pub use models::{
    ApiRecord, AppointmentRef, Contact, Deal, DecodeError, IdempotencyKey, Meta, Money, NewContact,
    Page, Project, Related, Timestamp, When, decode_page, decode_page_lean, decode_single,
    value_to_string,
};
pub use priority::{Lane, PriorityGate};
pub use query::{
    ContactInclude, ContactQuery, ContactSort, DealInclude, DealQuery, DealSort, ListQuery,
    MAX_FILTER_CHARS, MAX_PER_PAGE, Paging, ProjectInclude, ProjectQuery, ProjectSort,
    SortDirection,
};
