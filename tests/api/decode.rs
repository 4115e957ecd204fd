//! Tolerant decoding of every body shape and field form the seed leaves open.

use chrono::{NaiveDate, TimeZone, Utc};
use crmdash::api::{
    ApiRecord, AppointmentRef, Contact, Deal, Meta, Money, Project, Timestamp, When, decode_page,
    decode_single,
};
use rust_decimal::Decimal;
use serde_json::json;

fn deals(body: &str) -> crmdash::api::Page<Deal> {
    decode_page::<Deal>(body.as_bytes()).unwrap_or_else(|e| panic!("{body}: {e}"))
}

const META: &str = r#"{"current_page":2,"last_page":5,"per_page":10,"total":42}"#;

#[test]
fn list_bodies_of_every_shape() {
    let rec = r#"{"id":"d1","name":"A"}"#;
    let with_meta = deals(&format!(r#"{{"data":[{rec}],"meta":{META}}}"#));
    assert_eq!(with_meta.data[0].id, "d1");
    let meta = with_meta.meta.expect("meta");
    assert_eq!(
        (meta.current_page, meta.last_page, meta.per_page, meta.total),
        (Some(2), Some(5), Some(10), Some(42))
    );
    assert!(with_meta.has_next());

    let with_links = deals(&format!(
        r#"{{"data":[{rec}],"meta":{META},"links":{{"next":"https://x/deals?page=3"}}}}"#
    ));
    assert_eq!(
        with_links.links,
        Some(json!({"next":"https://x/deals?page=3"}))
    );
    assert_eq!(with_links.meta.unwrap().total, Some(42));

    let data_only = deals(&format!(r#"{{"data":[{rec},{rec}]}}"#));
    assert_eq!(data_only.data.len(), 2);
    assert!(data_only.meta.is_none());
    assert!(!data_only.has_next());

    let bare = deals(&format!("  [{rec}]  "));
    assert_eq!(bare.data[0].name.as_deref(), Some("A"));
    assert!(bare.meta.is_none());

    let laravel = deals(&format!(
        r#"{{"current_page":1,"data":[{rec}],"last_page":3,"per_page":"15","total":31,"from":1}}"#
    ));
    let m = laravel.meta.unwrap();
    assert_eq!(
        (m.current_page, m.last_page, m.per_page),
        (Some(1), Some(3), Some(15))
    );
    assert!(laravel.has_next());

    let null_data = deals(r#"{"data":null,"meta":{"total":0}}"#);
    assert!(null_data.data.is_empty());
    assert_eq!(deals("[]").data.len(), 0);
    assert_eq!(
        deals("\u{feff}{\"data\":[]}").data.len(),
        0,
        "BOM tolerated"
    );
}

#[test]
fn meta_integers_may_be_strings_and_odd_meta_never_fails_a_page() {
    let p = deals(
        r#"{"data":[],"meta":{"current_page":"3","last_page":" 4 ","per_page":"x","total":7.0}}"#,
    );
    assert_eq!(
        p.meta,
        Some(Meta {
            current_page: Some(3),
            last_page: Some(4),
            per_page: None,
            total: Some(7)
        })
    );
    for meta in [r#""meta":"odd""#, r#""meta":[1,2]"#, r#""meta":null"#] {
        let p = deals(&format!(r#"{{"data":[],{meta}}}"#));
        assert!(p.meta.is_none(), "{meta}: {:?}", p.meta);
    }
}

#[test]
fn list_bodies_that_are_not_lists_say_so_with_the_first_bytes() {
    for (body, needle) in [
        ("", "empty"),
        ("<html><body>502</body></html>", "not JSON"),
        (r#"{"message":"hi"}"#, "without `data`"),
        (r#"{"data":{"id":1}}"#, "not a list"),
        (
            r#"{"data":[{"name":"no id"}]}"#,
            "deal #1: a record has no id",
        ),
        (r#"{"data":[1]}"#, "not a JSON object"),
    ] {
        let e = decode_page::<Deal>(body.as_bytes()).unwrap_err();
        assert!(e.to_string().contains(needle), "{body}: {e}");
    }
    let e = decode_page::<Deal>(&[0xff, 0xfe, b'{']).unwrap_err();
    assert!(e.message.contains("UTF-8"));
}

#[test]
fn truncated_json_is_a_decode_error_naming_the_first_bytes() {
    let body = br#"{"data":[{"id":"d1","name":"Alpha"},{"id":"d2","na"#;
    let e = decode_page::<Deal>(body).unwrap_err();
    assert!(e.message.contains("not valid JSON"), "{e}");
    assert!(e.snippet.starts_with(r#"{"data":[{"id":"d1""#), "{e}");
    let e = decode_page::<Deal>(br#"[{"id":"d1"},{"id""#).unwrap_err();
    assert!(e.message.contains("not valid JSON"), "{e}");
    let long = format!(r#"{{"data":[{}"#, r#"{"id":"x"},"#.repeat(100));
    let e = decode_page::<Deal>(long.as_bytes()).unwrap_err();
    assert!(e.snippet.len() <= 120);
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn records_keep_unknown_fields_and_their_raw_json_byte_for_byte() {
    let raw = r#"{ "id" : "c1", "first_name":"Ada", "tags":["vip"], "custom": {"x": 1.50},
        "email":null, "score": 12345678901234567890123 }"#;
    let page = decode_page::<Contact>(format!("[{raw}]").as_bytes()).unwrap();
    let c = &page.data[0];
    assert_eq!(c.raw().get(), raw, "raw JSON kept byte for byte");
    assert_eq!(c.extra()["tags"], json!(["vip"]));
    assert_eq!(c.extra()["custom"], json!({"x": 1.5}));
    assert!(c.extra().contains_key("score"));
    assert!(
        !c.extra().contains_key("first_name"),
        "typed fields leave extra"
    );
    assert!(!c.extra().contains_key("email"));
    assert_eq!(c.email, None, "null is absent");
    assert_eq!(c.first_name.as_deref(), Some("Ada"));
    assert_eq!(c.label(), "Ada");
}

#[test]
fn every_field_but_id_is_optional_and_odd_types_become_text() {
    let c = decode_single::<Contact>(br#"{"id":42}"#).unwrap().unwrap();
    assert_eq!(c.id, "42", "numeric id");
    assert!(c.created_at.is_none() && c.first_name.is_none() && c.accounts.is_none());
    assert_eq!(c.label(), "42");

    let big = decode_single::<Contact>(br#"{"id":123456789012345678901234567890}"#)
        .unwrap()
        .unwrap();
    assert_eq!(big.id, "123456789012345678901234567890", "never rounded");

    let c = decode_single::<Contact>(
        br#"{"id":"1","first_name":7,"last_name":true,"phone":4915112345678,"email":"a@b.c"}"#,
    )
    .unwrap()
    .unwrap();
    assert_eq!(c.first_name.as_deref(), Some("7"));
    assert_eq!(c.last_name.as_deref(), Some("true"));
    assert_eq!(c.phone.as_deref(), Some("4915112345678"));
    assert_eq!(c.full_name(), "7 true");

    let with_full = decode_single::<Contact>(br#"{"id":"1","full_name":"Grace Hopper"}"#)
        .unwrap()
        .unwrap();
    assert_eq!(with_full.full_name(), "Grace Hopper");

    for body in [&b"{}"[..], br#"{"id":null}"#, br#"{"data":{"name":"x"}}"#] {
        assert!(decode_single::<Contact>(body).is_err());
    }
}

#[test]
fn single_bodies_wrapped_bare_empty_or_null() {
    let a = decode_single::<AppointmentRef>(
        br#"{"data":{"id":"ap-1","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02 03:04:05"}}"#,
    )
    .unwrap()
    .unwrap();
    assert_eq!(a.id, "ap-1");
    assert_eq!(
        a.created_at.as_ref().unwrap().instant(),
        a.updated_at.as_ref().unwrap().instant()
    );
    assert_eq!(a.raw().get().as_bytes()[0], b'{');

    let bare = decode_single::<Contact>(br#"{"id":"c9","email":"x@y.z"}"#)
        .unwrap()
        .unwrap();
    assert_eq!(bare.email.as_deref(), Some("x@y.z"));
    assert!(decode_single::<Contact>(b"").unwrap().is_none());
    assert!(decode_single::<Contact>(b"  \n").unwrap().is_none());
    assert!(
        decode_single::<Contact>(br#"{"data":null}"#)
            .unwrap()
            .is_none()
    );
    assert!(decode_single::<Contact>(br#"[{"id":"1"}]"#).is_err());
}

#[test]
fn relations_decode_when_included_and_are_absent_otherwise() {
    let d = &deals(
        r#"[{"id":"d1",
        "account":{"data":{"id":"a1","name":"Acme"}},
        "contacts":[{"id":"c1","first_name":"Ada","last_name":"L"},{"id":2,"email":"e@x"}],
        "assigned_user":{"id":"u1","name":"Uma"},
        "assigned_users":{"data":[{"id":"u1"},{"id":"u2"}]}}]"#,
    )
    .data[0];
    let acc = d.account.as_ref().unwrap();
    assert_eq!(
        (acc.id.as_deref(), acc.label()),
        (Some("a1"), "Acme".to_string())
    );
    let contacts = d.contacts.as_ref().unwrap();
    assert_eq!(contacts[0].label(), "Ada L");
    assert_eq!(contacts[1].id.as_deref(), Some("2"));
    assert_eq!(contacts[1].label(), "e@x");
    assert_eq!(d.assigned_user.as_ref().unwrap().label(), "Uma");
    assert_eq!(d.assigned_users.as_ref().unwrap().len(), 2);
    assert!(d.extra().is_empty());

    let plain = &deals(r#"[{"id":"d2"}]"#).data[0];
    assert!(plain.account.is_none() && plain.contacts.is_none());
    assert!(plain.assigned_user.is_none() && plain.assigned_users.is_none());

    let empty = &deals(r#"[{"id":"d3","account":{"data":null},"contacts":{"data":[]}}]"#).data[0];
    assert!(empty.account.is_none());
    assert_eq!(empty.contacts.as_ref().map(Vec::len), Some(0));

    // A relation of an unexpected shape is kept, not dropped.
    let odd = &deals(r#"[{"id":"d4","account":[1,2],"contacts":"c1"}]"#).data[0];
    assert!(odd.account.is_none() && odd.contacts.is_none());
    assert_eq!(odd.extra()["account"], json!([1, 2]));
    assert_eq!(odd.extra()["contacts"], json!("c1"));

    let p = &decode_page::<Project>(
        br#"{"data":[{"id":"p1","owner":{"id":"u1","first_name":"Ola"},"members":[{"id":"u2"}]}]}"#,
    )
    .unwrap()
    .data[0];
    assert_eq!(p.owner.as_ref().unwrap().label(), "Ola");
    assert_eq!(p.members.as_ref().unwrap()[0].id.as_deref(), Some("u2"));

    let c = &decode_page::<Contact>(
        br#"[{"id":"c1","accounts":[{"id":"a1"}],"assigned_user":"u7","assigned_users":[]}]"#,
    )
    .unwrap()
    .data[0];
    assert_eq!(c.accounts.as_ref().unwrap().len(), 1);
    assert_eq!(c.assigned_user.as_ref().unwrap().id.as_deref(), Some("u7"));
}

#[test]
fn value_is_a_number_or_decimal_string_and_never_loses_a_digit() {
    let cases = [
        (r#"1234.5"#, "1234.50"),
        (r#"12"#, "12.00"),
        (r#""1234.50""#, "1234.50"),
        (r#""0.125""#, "0.125"),
        (r#""1,234.5""#, "1234.50"),
        (r#"-7"#, "-7.00"),
        (r#"1e3"#, "1000.00"),
        (
            r#"123456789012345678901234567890.123456"#,
            "123456789012345678901234567890.123456",
        ),
        (
            r#""99999999999999999999999999999999999999""#,
            "99999999999999999999999999999999999999.00",
        ),
        (
            r#"0.1000000000000000000000000000001"#,
            "0.1000000000000000000000000000001",
        ),
        (r#""n/a""#, "n/a"),
    ];
    for (json_value, shown) in cases {
        let d = &deals(&format!(r#"[{{"id":"d","value":{json_value}}}]"#)).data[0];
        let m = d.value.as_ref().unwrap_or_else(|| panic!("{json_value}"));
        assert_eq!(m.display(), shown, "{json_value}");
    }
    let d = &deals(r#"[{"id":"d","value":"19.99"}]"#).data[0];
    assert_eq!(
        d.value.as_ref().unwrap().decimal(),
        Some(Decimal::new(1999, 2))
    );
    let d = &deals(r#"[{"id":"d","value":null}]"#).data[0];
    assert!(d.value.is_none() && d.extra().is_empty());
    // An object (amount + currency) is not a number: kept in extra.
    let d = &deals(r#"[{"id":"d","value":{"amount":5,"currency":"EUR"}}]"#).data[0];
    assert!(d.value.is_none());
    assert_eq!(d.extra()["value"]["currency"], json!("EUR"));

    assert_eq!(Money::parse("12.3").decimal(), Some(Decimal::new(123, 1)));
    assert_eq!(Money::parse(" 5 ").raw(), " 5 ");
    assert!(
        Money::parse("1.00000000000000000000000000000001")
            .decimal()
            .is_none(),
        "rounding refused"
    );
}

#[test]
fn timestamps_in_every_format() {
    let at = |s: &str| {
        Timestamp::parse(s)
            .instant()
            .unwrap_or_else(|| panic!("{s}"))
    };
    let base = Utc.with_ymd_and_hms(2026, 3, 4, 5, 6, 7).unwrap();
    assert_eq!(at("2026-03-04T05:06:07Z"), base);
    assert_eq!(at("2026-03-04T07:06:07+02:00"), base);
    assert_eq!(at("2026-03-04 05:06:07"), base, "space form is UTC");
    assert_eq!(at("2026-03-04T05:06:07"), base, "no offset is UTC");
    let micro = at("2026-03-04T05:06:07.123456Z");
    assert_eq!(micro.timestamp_subsec_micros(), 123_456);
    assert_eq!(
        at("2026-03-04T05:06:07.5+00:00").timestamp_subsec_millis(),
        500
    );
    assert_eq!(
        at("2026-03-04 05:06:07.000001").timestamp_subsec_micros(),
        1
    );
    assert_eq!(at("1772600767"), base, "unix seconds");

    let date = Timestamp::parse("2026-12-31");
    assert_eq!(
        date.when(),
        Some(When::Date(NaiveDate::from_ymd_opt(2026, 12, 31).unwrap()))
    );
    assert_eq!(date.shown(), "2026-12-31", "a date never shifts");
    assert_eq!(date.to_string(), "2026-12-31");

    let junk = Timestamp::parse("next tuesday");
    assert_eq!((junk.when(), junk.raw()), (None, "next tuesday"));
    assert_eq!(junk.shown(), "next tuesday");

    let p = &decode_page::<Project>(
        br#"[{"id":"p","start_date":"2026-01-01","end_date":"2026-02-01 00:00:00","created_at":1772600767}]"#,
    )
    .unwrap()
    .data[0];
    assert!(matches!(
        p.start_date.as_ref().unwrap().when(),
        Some(When::Date(_))
    ));
    assert!(matches!(
        p.end_date.as_ref().unwrap().when(),
        Some(When::Instant(_))
    ));
    assert_eq!(p.created_at.as_ref().unwrap().instant(), Some(base));
}
