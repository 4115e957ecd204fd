//! `crmdash appointments reschedule` against the sandbox: configured body keys, --yes, no
//! terminal, not found.

use crate::cli_support;

use cli_support::{Env, run};

fn first_appointment(env: &Env) -> String {
    env.sb
        .ids("appointments")
        .into_iter()
        .next()
        .expect("seeded appointments")
}

#[test]
fn reschedule_with_yes_sends_the_configured_keys_in_utc() {
    let env = Env::new();
    env.write_config("[reschedule]\nstart_field = \"start_time\"\nend_field = \"\"\ntimezone = \"Europe/Berlin\"\n");
    let id = first_appointment(&env);
    let out = run(env.cmd(&[
        "appointments",
        "reschedule",
        &id,
        "--start",
        "2030-06-03 09:30",
        "--end",
        "2030-06-03 10:00",
        "--set",
        "note=moved by cli",
        "--yes",
    ]))
    .code(0);
    assert_eq!(out.json()["id"], id.as_str());
    let post = &env.requests_to("POST", "appointments")[0];
    let body: serde_json::Value = serde_json::from_str(post.body.as_deref().unwrap()).unwrap();
    // Berlin is UTC+2 in June; end_field = "" sends no end.
    assert_eq!(
        body,
        serde_json::json!({"start_time": "2030-06-03T07:30:00Z", "note": "moved by cli"})
    );
    let stored = env.sb.appointment(&id).unwrap();
    assert_eq!(stored["status"], "rescheduled");
}

#[test]
fn custom_field_names_come_from_the_config_file_and_body_merges_last() {
    let env = Env::new();
    env.write_config(
        "[reschedule]\nstart_field = \"starts_at\"\nend_field = \"ends_at\"\ntimezone = \"UTC\"\n",
    );
    let id = first_appointment(&env);
    let out = run(env.cmd(&[
        "appointments",
        "reschedule",
        &id,
        "--start",
        "2030-01-01 08:00",
        "--end",
        "2030-01-01 09:00",
        "--body",
        "{\"start_time\": \"2030-01-01T08:00:00Z\", \"channel\": 2}",
        "--yes",
    ]))
    .code(0);
    out.json();
    let post = &env.requests_to("POST", "appointments")[0];
    let body: serde_json::Value = serde_json::from_str(post.body.as_deref().unwrap()).unwrap();
    assert_eq!(body["starts_at"], "2030-01-01T08:00:00Z");
    assert_eq!(body["ends_at"], "2030-01-01T09:00:00Z");
    assert_eq!(body["channel"], 2);
}

#[test]
fn without_a_terminal_reschedule_needs_yes_and_sends_nothing() {
    let env = Env::new();
    let id = first_appointment(&env);
    let out = run(env.cmd(&["appointments", "reschedule", &id, "--start", "+1d"])).code(2);
    assert!(out.error_line().contains("--yes"), "{}", out.stderr);
    assert!(env.sb.requests().is_empty());
}

#[test]
fn an_unknown_appointment_exits_4() {
    let env = Env::new();
    let out = run(env.cmd(&[
        "appointments",
        "reschedule",
        "apt_999999",
        "--start",
        "2030-01-01T08:00:00Z",
        "--yes",
    ]))
    .code(4);
    assert!(out.error_line().contains("Not found"), "{}", out.stderr);
}

#[test]
fn a_bad_time_or_body_exits_5_before_sending() {
    let env = Env::new();
    let id = first_appointment(&env);
    run(env.cmd(&[
        "appointments",
        "reschedule",
        &id,
        "--start",
        "someday",
        "--yes",
    ]))
    .code(5);
    run(env.cmd(&["appointments", "reschedule", &id, "--body", "[1]", "--yes"])).code(5);
    run(env.cmd(&["appointments", "reschedule", &id, "--yes"])).code(5);
    assert!(env.sb.requests().is_empty());
}

#[test]
fn a_link_is_accepted_in_place_of_the_id() {
    let env = Env::new();
    let id = first_appointment(&env);
    let link = format!("https://crm.example.com/appointments/{id}");
    run(env.cmd(&[
        "appointments",
        "reschedule",
        &link,
        "--start",
        "2030-01-01T08:00:00Z",
        "--yes",
    ]))
    .code(0);
    assert_eq!(
        env.requests_to("POST", &format!("appointments/{id}/reschedule"))
            .len(),
        1
    );
}
