//! Creating contacts (validation, idempotency, unique e-mails), rescheduling appointments and
//! authentication, against the embedded sandbox over real HTTP.

use std::time::Duration;

use crmdash::api::{ApiRecord, Client, ContactQuery, ErrorKind, IdempotencyKey, NewContact};
use crmdash::sandbox::{FaultKind, FaultRule, Sandbox, SandboxConfig, SandboxHandle};
use secrecy::SecretString;
use serde_json::{Map, Value, json};

async fn start_with(cfg: SandboxConfig) -> (SandboxHandle, Client) {
    let sb = Sandbox::start(cfg).await.expect("sandbox starts");
    let client = Client::new(&sb.base_url(), SecretString::from(sb.token())).expect("client");
    (sb, client)
}

async fn start() -> (SandboxHandle, Client) {
    start_with(SandboxConfig::default()).await
}

fn contact(first: &str, last: &str, email: &str, phone: &str) -> NewContact {
    NewContact {
        first_name: Some(first.into()),
        last_name: Some(last.into()),
        email: Some(email.into()),
        phone: Some(phone.into()),
        extra: Map::new(),
    }
}

fn body(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[tokio::test]
async fn create_answers_201_and_the_contact_is_listed() {
    let (sb, client) = start().await;
    let mut new = contact(
        "Zoë",
        "Ọlátúnjí-Müller",
        "zoe.olatunji@example.org",
        "+234 803 123 4567",
    );
    new.extra.insert("tags".into(), json!(["import-2025"]));
    let key = IdempotencyKey::random();
    let created = client
        .create_contact(&crate::ticket(), &new, &key)
        .await
        .unwrap();
    assert_eq!(created.status, 201);
    assert!(!created.replayed);
    let c = created.record.expect("the body carries the contact");
    assert!(c.id.starts_with("con_"));
    assert_eq!(c.full_name(), "Zoë Ọlátúnjí-Müller");
    assert_eq!(c.extra["tags"], json!(["import-2025"]));
    assert_eq!(sb.contacts_with_email("zoe.olatunji@example.org"), 1);
    assert_eq!(sb.contact_count(), 1001);

    let q = ContactQuery {
        email: Some("ZOE.OLATUNJI@example.org".into()),
        ..Default::default()
    };
    let found = client.list_contacts(&q).await.unwrap();
    assert_eq!(found.data.len(), 1);
    assert_eq!(found.data[0].id, c.id);

    let rec = sb
        .requests()
        .into_iter()
        .find(|r| r.method == "POST")
        .unwrap();
    assert_eq!(rec.path, "/public/v1/contacts");
    assert_eq!(rec.idempotency_key.as_deref(), Some(key.as_str()));
    let sent: Value = serde_json::from_str(rec.body.as_deref().unwrap()).unwrap();
    assert_eq!(sent["email"], "zoe.olatunji@example.org");
    let everything = format!("{:?}", sb.requests());
    assert!(
        !everything.contains(&sb.token()),
        "the log never holds the token"
    );
}

#[tokio::test]
async fn validation_errors_name_their_fields() {
    let (sb, client) = start().await;
    let none = NewContact {
        phone: Some("+49 30 1234567".into()),
        ..Default::default()
    };
    let cases = [
        (none, vec!["first_name", "email"]),
        (
            contact("A", "B", "not-an-email", "+49 30 1234567"),
            vec!["email"],
        ),
        (contact("A", "B", "a@b.de", "030 1234567"), vec!["phone"]),
        (contact("A", "B", "a@b.de", "+49 12"), vec!["phone"]),
        (
            contact(&"x".repeat(101), "B", "a@b.de", "+49 30 1234567"),
            vec!["first_name"],
        ),
        (
            contact("A", &"y".repeat(101), "a@b", "+49 30 1234567"),
            vec!["last_name", "email"],
        ),
    ];
    for (new, fields) in cases {
        let e = client
            .create_contact(&crate::ticket(), &new, &IdempotencyKey::random())
            .await
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Validation, "{new:?}");
        assert_eq!(e.status, Some(422));
        for f in fields {
            assert!(
                e.field_errors.contains_key(f),
                "{f} in {:?}",
                e.field_errors
            );
        }
        assert!(!e.message.is_empty());
    }
    // Only an email, or only a last name, is enough; `00` counts as an international prefix.
    let only_email = NewContact {
        email: Some("solo@example.com".into()),
        ..Default::default()
    };
    assert_eq!(
        client
            .create_contact(&crate::ticket(), &only_email, &IdempotencyKey::random())
            .await
            .unwrap()
            .status,
        201
    );
    let only_last = NewContact {
        last_name: Some("李".into()),
        phone: Some("0086 10 8888 6666".into()),
        ..Default::default()
    };
    assert_eq!(
        client
            .create_contact(&crate::ticket(), &only_last, &IdempotencyKey::random())
            .await
            .unwrap()
            .status,
        201
    );
    assert_eq!(sb.contact_count(), 1002);

    // Wrong types and broken JSON, sent raw.
    let http = reqwest::Client::new();
    let url = format!("{}/public/v1/contacts", sb.base_url());
    let r = http
        .post(&url)
        .bearer_auth(sb.token())
        .json(&json!({"first_name": 5, "email": "a@b.de"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 422);
    assert!(r.json::<Value>().await.unwrap()["errors"]["first_name"].is_array());
    let r = http
        .post(&url)
        .bearer_auth(sb.token())
        .header("content-type", "application/json")
        .body("{\"first_name\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert!(r.json::<Value>().await.unwrap()["message"].is_string());
    assert_eq!(sb.contact_count(), 1002);
}

#[tokio::test]
async fn idempotent_replay_and_conflicts() {
    let (sb, client) = start().await;
    let new = contact(
        "Kenji",
        "Watanabe",
        "kenji.w@example.jp",
        "+81 90-1234-5678",
    );
    let key = IdempotencyKey::from_stable("import-row-42").unwrap();
    let first = client
        .create_contact(&crate::ticket(), &new, &key)
        .await
        .unwrap();
    let second = client
        .create_contact(&crate::ticket(), &new, &key)
        .await
        .unwrap();
    assert!(!first.replayed);
    assert!(second.replayed, "Idempotent-Replayed: true");
    assert_eq!(second.status, 201);
    let (a, b) = (first.record.unwrap(), second.record.unwrap());
    assert_eq!(a.id, b.id);
    assert_eq!(
        a.raw().get(),
        b.raw().get(),
        "the stored body is replayed byte for byte"
    );
    assert_eq!(sb.contacts_with_email("kenji.w@example.jp"), 1);

    // Same key, another body: 409, nothing created.
    let other = contact(
        "Kenji",
        "Watanabe",
        "kenji.other@example.jp",
        "+81 90-1234-5678",
    );
    let e = client
        .create_contact(&crate::ticket(), &other, &key)
        .await
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Conflict);
    assert_eq!(e.status, Some(409));
    assert_eq!(sb.contacts_with_email("kenji.other@example.jp"), 0);

    // Raw: the header, and key order in the body does not matter.
    let http = reqwest::Client::new();
    let r = http
        .post(format!("{}/public/v1/contacts", sb.base_url()))
        .bearer_auth(sb.token())
        .header("Idempotency-Key", "import-row-42")
        .header("content-type", "application/json")
        .body(r#"{"phone":"+81 90-1234-5678","email":"kenji.w@example.jp","last_name":"Watanabe","first_name":"Kenji"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    assert_eq!(r.headers()["idempotent-replayed"], "true");
    assert_eq!(sb.contacts_with_email("kenji.w@example.jp"), 1);

    // A rejected body frees its key: the corrected body may use it.
    let key2 = IdempotencyKey::random();
    let bad = contact("A", "B", "broken", "+49 30 1234567");
    assert_eq!(
        client
            .create_contact(&crate::ticket(), &bad, &key2)
            .await
            .unwrap_err()
            .kind,
        ErrorKind::Validation
    );
    let good = contact("A", "B", "fixed@example.com", "+49 30 1234567");
    assert_eq!(
        client
            .create_contact(&crate::ticket(), &good, &key2)
            .await
            .unwrap()
            .status,
        201
    );

    // Without a key every POST creates: duplicates are allowed by default.
    let http_post = |email: &'static str| {
        let http = http.clone();
        let url = format!("{}/public/v1/contacts", sb.base_url());
        let token = sb.token();
        async move {
            http.post(url)
                .bearer_auth(token)
                .json(&json!({"email": email}))
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(http_post("twice@example.com").await, 201);
    assert_eq!(http_post("twice@example.com").await, 201);
    assert_eq!(sb.contacts_with_email("twice@example.com"), 2);
}

#[tokio::test]
async fn same_key_while_in_flight_is_a_conflict() {
    let (sb, _client) = start().await;
    // The first request holds its key while it waits inside the server.
    sb.faults()
        .add(FaultRule::new(FaultKind::Latency { ms: 1500 }).on("POST", "/contacts"));
    let url = format!("{}/public/v1/contacts", sb.base_url());
    let send = |url: String, token: String| async move {
        reqwest::Client::new()
            .post(url)
            .bearer_auth(token)
            .header("Idempotency-Key", "k-in-flight")
            .json(&json!({"email": "inflight@example.com"}))
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    };
    let first = tokio::spawn(send(url.clone(), sb.token()));
    while !sb.requests().iter().any(|r| r.method == "POST") {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let second = send(url, sb.token()).await;
    let first = first.await.unwrap();
    let mut statuses = [first, second];
    statuses.sort();
    assert_eq!(statuses, [201, 409]);
    assert_eq!(sb.contacts_with_email("inflight@example.com"), 1);
}

#[tokio::test]
async fn unique_emails_option_refuses_a_taken_email() {
    let cfg = SandboxConfig {
        unique_emails: true,
        ..Default::default()
    };
    let (sb, client) = start_with(cfg).await;
    let taken = client
        .list_contacts(&ContactQuery::default())
        .await
        .unwrap()
        .data
        .into_iter()
        .find_map(|c| c.email)
        .unwrap();
    let new = contact("Same", "Person", &taken.to_uppercase(), "+49 30 1234567");
    let e = client
        .create_contact(&crate::ticket(), &new, &IdempotencyKey::random())
        .await
        .unwrap_err();
    assert_eq!(e.status, Some(422));
    assert!(e.field_errors["email"][0].contains("taken"));
    let fresh = contact("New", "Person", "brand.new@example.com", "+49 30 1234567");
    client
        .create_contact(&crate::ticket(), &fresh, &IdempotencyKey::random())
        .await
        .unwrap();
    let again = contact("New", "Again", "brand.new@example.com", "+49 30 1234567");
    assert!(
        client
            .create_contact(&crate::ticket(), &again, &IdempotencyKey::random())
            .await
            .is_err()
    );
    assert_eq!(sb.contacts_with_email("brand.new@example.com"), 1);
}

#[tokio::test]
async fn tokens_401_and_read_only_403() {
    let cfg = SandboxConfig {
        read_only_token: Some("viewer-token".into()),
        ..Default::default()
    };
    let (sb, _client) = start_with(cfg).await;
    let http = reqwest::Client::new();
    let r = http
        .get(format!("{}/public/v1/deals", sb.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert!(r.headers().contains_key("www-authenticate"));
    assert!(r.json::<Value>().await.unwrap()["message"].is_string());

    let wrong = Client::new(&sb.base_url(), SecretString::from("wrong-token")).unwrap();
    let e = wrong.list_deals(&Default::default()).await.unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unauthorized);
    assert!(!format!("{e:?}{e}").contains(&sb.token()));
    let new = contact("A", "B", "a@b.de", "+49 30 1234567");
    assert_eq!(
        wrong
            .create_contact(&crate::ticket(), &new, &IdempotencyKey::random())
            .await
            .unwrap_err()
            .kind,
        ErrorKind::Unauthorized
    );

    let viewer = Client::new(&sb.base_url(), SecretString::from("viewer-token")).unwrap();
    assert_eq!(
        viewer
            .list_projects(&Default::default())
            .await
            .unwrap()
            .data
            .len(),
        25
    );
    let e = viewer
        .create_contact(&crate::ticket(), &new, &IdempotencyKey::random())
        .await
        .unwrap_err();
    assert_eq!((e.kind, e.status), (ErrorKind::Forbidden, Some(403)));
    let e = viewer
        .reschedule_appointment(
            &crate::ticket(),
            "apt_000001",
            &body(json!({"start_time": "2026-01-05T10:00:00Z"})),
        )
        .await
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Forbidden);
    assert_eq!(sb.contact_count(), 1000);
    // The control endpoint takes the full token only.
    let r = http
        .get(format!("{}/_sandbox/requests", sb.base_url()))
        .bearer_auth("viewer-token")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
}

#[tokio::test]
async fn reschedule_moves_the_appointment() {
    let (sb, client) = start().await;
    let before = sb.appointment("apt_000003").unwrap();
    let r = client
        .reschedule_appointment(&crate::ticket(), "apt_000003",
            &body(json!({"start_time": "2026-02-10T09:30:00+01:00", "end_time": "2026-02-10T10:15:00+01:00"})),
        )
        .await
        .unwrap();
    assert_eq!(r.id, "apt_000003");
    assert_eq!(
        r.created_at.as_ref().unwrap().raw(),
        before["created_at"].as_str().unwrap()
    );
    assert_ne!(
        r.updated_at.as_ref().unwrap().raw(),
        before["updated_at"].as_str().unwrap()
    );
    let after = sb.appointment("apt_000003").unwrap();
    assert_eq!(after["start_time"], "2026-02-10T08:30:00.000000Z");
    assert_eq!(after["end_time"], "2026-02-10T09:15:00.000000Z");
    assert_eq!(after["status"], "rescheduled");
    assert_eq!(after["title"], before["title"]);

    // Only a start: the duration is kept. A time without offset is read in the given zone.
    let before = sb.appointment("apt_000004").unwrap();
    let dur = |a: &Value| {
        let s: chrono::DateTime<chrono::Utc> = a["start_time"].as_str().unwrap().parse().unwrap();
        let e: chrono::DateTime<chrono::Utc> = a["end_time"].as_str().unwrap().parse().unwrap();
        e - s
    };
    client
        .reschedule_appointment(
            &crate::ticket(),
            "apt_000004",
            &body(json!({"start_time": "2026-03-02 14:00", "timezone": "Asia/Tokyo"})),
        )
        .await
        .unwrap();
    let after = sb.appointment("apt_000004").unwrap();
    assert_eq!(after["start_time"], "2026-03-02T05:00:00.000000Z");
    assert_eq!(after["timezone"], "Asia/Tokyo");
    assert_eq!(dur(&after), dur(&before));

    let e = client
        .reschedule_appointment(
            &crate::ticket(),
            "apt_999999",
            &body(json!({"start_time": "2026-02-10T09:30:00Z"})),
        )
        .await
        .unwrap_err();
    assert_eq!((e.kind, e.status), (ErrorKind::NotFound, Some(404)));

    let unchanged = sb.appointment("apt_000005").unwrap();
    let e = client
        .reschedule_appointment(
            &crate::ticket(),
            "apt_000005",
            &body(
                json!({"start_time": "2026-02-10T10:00:00Z", "end_time": "2026-02-10T09:00:00Z"}),
            ),
        )
        .await
        .unwrap_err();
    assert_eq!((e.kind, e.status), (ErrorKind::Validation, Some(422)));
    assert!(e.field_errors.contains_key("end_time"));
    for bad in [
        json!({}),
        json!({"start": "2026-02-10T10:00:00Z"}),
        json!({"start_time": "soon"}),
        json!({"start_time": "2026-02-10T10:00:00", "timezone": "Mars/Base"}),
    ] {
        let e = client
            .reschedule_appointment(&crate::ticket(), "apt_000005", &body(bad.clone()))
            .await
            .unwrap_err();
        assert_eq!(e.status, Some(422), "{bad}");
        assert!(!e.field_errors.is_empty(), "{bad}");
    }
    assert_eq!(sb.appointment("apt_000005").unwrap(), unchanged);
}
