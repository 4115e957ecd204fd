//! The dashboard without a terminal: update(), the effect engine, snapshots, forms and dialogs,
//! and the engine against the sandbox.

mod contact_form;
#[path = "../mirror/damage.rs"]
mod damage;
mod dashboard_support;
mod dialog_harness;
mod dialog_support;
mod display;
mod display_polish;
mod dupes;
mod engine;
mod export_target;
mod first_login;
mod form_near;
mod form_snapshots;
mod forms_sandbox;
mod key_path;
mod keyring_support;
mod login;
mod mirror;
mod mirror_faults;
mod palette;
mod perf_requests;
mod pipeline;
mod plan;
mod polish;
mod profiles;
mod reliability;
mod request_log;
mod reschedule;
mod review_fixes;
mod safe_writes;
mod sandbox;
mod screen_snapshots;
mod selection;
mod settings_keys;
mod sync_jobs;
mod table_cells;
mod timeline;
mod today;
mod token_lookup;
mod trust;
mod tryout;
mod tryout_mirror;
mod update;
mod user_actions;
