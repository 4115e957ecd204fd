//! Property tests of every response decoder: structured JSON of valid shapes with wrong types,
//! nulls, huge numbers, deep nesting and unicode, plus random bytes, never panic; valid
//! records keep their id, raw text and unknown fields; amounts and timestamps keep every digit.

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use crmdash::api::{
    ApiRecord, AppointmentRef, Contact, Deal, Money, Project, Timestamp, When, decode_page,
    decode_single, parse_error_body, parse_retry_after,
};
use proptest::prelude::*;

const KNOWN_KEYS: &[&str] = &[
    "id",
    "data",
    "meta",
    "links",
    "created_at",
    "updated_at",
    "first_name",
    "last_name",
    "full_name",
    "email",
    "phone",
    "name",
    "status",
    "value",
    "start_date",
    "end_date",
    "account",
    "accounts",
    "contacts",
    "assigned_user",
    "assigned_users",
    "owner",
    "members",
    "current_page",
    "last_page",
    "per_page",
    "total",
    "message",
    "errors",
    "error",
    "title",
    "detail",
];

/// A JSON string literal of any unicode text.
fn json_string() -> impl Strategy<Value = String> {
    any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap())
}

/// JSON scalars, including numbers no float can hold and date-like strings.
fn json_leaf() -> BoxedStrategy<String> {
    prop_oneof![
        Just("null".to_string()),
        any::<bool>().prop_map(|b| b.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| serde_json::to_string(&f).unwrap()),
        "-?[1-9][0-9]{20,80}(\\.[0-9]{1,60})?([eE][+-]?[0-9]{1,4})?",
        json_string(),
        "\"[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,9})?)?)?(Z|[+-][0-9]{2}:[0-9]{2})?\"",
        "\"-?[0-9,]{0,30}(\\.[0-9]{0,40})?\"",
    ]
    .boxed()
}

fn json_key() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(KNOWN_KEYS).prop_map(|k| format!("\"{k}\"")),
        json_string(),
    ]
}

/// Arbitrary JSON text whose objects use the decoders' own keys.
fn json_text() -> BoxedStrategy<String> {
    json_leaf()
        .prop_recursive(6, 96, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                prop::collection::vec((json_key(), inner), 0..8).prop_map(|kv| {
                    let fields: Vec<String> =
                        kv.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
                    format!("{{{}}}", fields.join(","))
                }),
            ]
        })
        .boxed()
}

/// Nesting deeper than any parser's recursion limit, placed where records are expected.
fn deep_nesting() -> impl Strategy<Value = String> {
    (1usize..400, 0usize..4).prop_map(|(n, place)| {
        let deep = format!("{}1{}", "[".repeat(n), "]".repeat(n));
        let deep_obj = format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
        match place {
            0 => deep,
            1 => format!(r#"{{"data":[{{"id":"x","extra":{deep}}}],"meta":{deep_obj}}}"#),
            2 => format!(r#"[{{"id":{deep_obj},"value":{deep}}}]"#),
            _ => format!(r#"{{"data":{{"id":"1","account":{deep_obj}}},"error":{deep}}}"#),
        }
    })
}

/// Bodies shaped like lists, with records of wrong types in them.
fn list_body() -> impl Strategy<Value = String> {
    let record = prop::collection::vec((json_key(), json_text()), 0..10).prop_map(|kv| {
        let fields: Vec<String> = kv.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
        format!("{{{}}}", fields.join(","))
    });
    (prop::collection::vec(record, 0..5), json_text(), 0usize..5).prop_map(|(recs, meta, shape)| {
        let list = format!("[{}]", recs.join(","));
        match shape {
            0 => list,
            1 => format!(r#"{{"data":{list}}}"#),
            2 => format!(r#"{{"data":{list},"meta":{meta}}}"#),
            3 => format!(r#"{{"data":{list},"meta":{meta},"links":{meta}}}"#),
            _ => format!(r#"{{"current_page":{meta},"data":{list},"total":"7"}}"#),
        }
    })
}

fn any_body() -> BoxedStrategy<Vec<u8>> {
    prop_oneof![
        list_body().prop_map(String::into_bytes),
        json_text().prop_map(String::into_bytes),
        deep_nesting().prop_map(String::into_bytes),
        // Valid text cut anywhere, as a dropped connection leaves it.
        (list_body(), any::<prop::sample::Index>()).prop_map(|(s, i)| {
            let b = s.into_bytes();
            let cut = i.index(b.len() + 1);
            b[..cut].to_vec()
        }),
        prop::collection::vec(any::<u8>(), 0..256),
    ]
    .boxed()
}

fn decode_everything(body: &[u8]) {
    let _ = decode_page::<Contact>(body);
    let _ = decode_page::<Deal>(body);
    let _ = decode_page::<Project>(body);
    let _ = decode_single::<Contact>(body);
    let _ = decode_single::<AppointmentRef>(body);
    let (message, _) = parse_error_body(body);
    if let Some(m) = message {
        assert!(!m.contains('\n'), "error messages are one line: {m:?}");
    }
    if let Ok(text) = std::str::from_utf8(body) {
        let _ = Timestamp::parse(text).shown();
        let _ = Money::parse(text).display();
        let _ = parse_retry_after(text);
    }
}

fn shown<T: ApiRecord>(r: &T) -> String {
    format!(
        "{} {:?} {:?}",
        r.label(),
        r.created_at().map(Timestamp::shown),
        r.extra()
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    #[test]
    fn no_body_panics_any_decoder(body in any_body()) {
        decode_everything(&body);
        // Whatever decodes can be displayed.
        if let Ok(page) = decode_page::<Deal>(&body) {
            for d in &page.data {
                let _ = (shown(d), d.value.as_ref().map(Money::display));
            }
        }
        if let Ok(page) = decode_page::<Project>(&body) {
            for p in &page.data {
                let _ = (shown(p), p.owner.as_ref().map(|o| o.label()));
            }
        }
    }

    #[test]
    fn no_string_panics_the_scalar_parsers(s in "\\PC{0,64}") {
        let _ = Timestamp::parse(&s).instant();
        let _ = Money::parse(&s).display();
        let _ = parse_retry_after(&s);
    }

    #[test]
    fn valid_records_keep_id_raw_and_unknown_fields(
        id in prop_oneof!["[A-Za-z0-9_-]{1,24}".prop_map(|s| format!("\"{s}\"")),
                          "[1-9][0-9]{0,40}"],
        name in json_string(),
        unknown in prop::collection::btree_map("x_[a-z0-9]{1,10}", prop_oneof![
            Just(serde_json::Value::Null),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<String>().prop_map(serde_json::Value::from),
        ], 0..6),
        wrapped in any::<bool>(),
    ) {
        let mut fields = vec![format!(r#""id": {id}"#), format!(r#""name":{name}"#)];
        for (k, v) in &unknown {
            fields.push(format!(r#""{k}":{v}"#));
        }
        let record = format!("{{{}}}", fields.join(" , "));
        let body = if wrapped { format!(r#"{{"data":[{record}],"meta":{{"total":1}}}}"#) } else { format!("[{record}]") };
        let page = decode_page::<Deal>(body.as_bytes()).unwrap();
        let deal = &page.data[0];
        prop_assert_eq!(deal.id.as_str(), id.trim_matches('"'));
        prop_assert_eq!(deal.raw().get(), record.as_str());
        prop_assert_eq!(deal.name.clone(), serde_json::from_str::<String>(&name).ok());
        prop_assert_eq!(deal.extra().len(), unknown.len());
        for (k, v) in &unknown {
            prop_assert_eq!(&deal.extra()[k], v);
        }
        let single = decode_single::<Project>(format!(r#"{{"data":{record}}}"#).as_bytes()).unwrap().unwrap();
        prop_assert_eq!(single.raw().get(), record.as_str());
    }

    #[test]
    fn amounts_never_lose_a_digit(
        int in "(0|[1-9][0-9]{0,45})",
        frac in "([0-9]{0,45})",
        negative in any::<bool>(),
        quoted in any::<bool>(),
    ) {
        let sign = if negative && int != "0" { "-" } else { "" };
        let text = if frac.is_empty() { format!("{sign}{int}") } else { format!("{sign}{int}.{frac}") };
        let expected = match frac.len() {
            0 => format!("{text}.00"),
            1 => format!("{text}0"),
            _ => text.clone(),
        };
        let literal = if quoted { format!("\"{text}\"") } else { text.clone() };
        let body = format!(r#"[{{"id":"d","value":{literal}}}]"#);
        let page = decode_page::<Deal>(body.as_bytes()).unwrap();
        prop_assert_eq!(page.data[0].value.as_ref().unwrap().display(), expected);
    }

    #[test]
    fn timestamps_parse_to_the_instant_they_name(
        secs in 0i64..4_102_444_800,
        micros in 0u32..1_000_000,
        form in 0usize..5,
    ) {
        let t: DateTime<Utc> = Utc.timestamp_opt(secs, micros * 1000).unwrap();
        let text = match form {
            0 => t.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            1 => t.format("%Y-%m-%dT%H:%M:%S%.6f+00:00").to_string(),
            2 => t.format("%Y-%m-%d %H:%M:%S").to_string(),
            3 => t.with_timezone(&chrono::FixedOffset::east_opt(5 * 3600 + 1800).unwrap())
                .format("%Y-%m-%dT%H:%M:%S%.3f%:z").to_string(),
            _ => t.format("%Y-%m-%d").to_string(),
        };
        let parsed = Timestamp::parse(&text);
        match form {
            0 | 2 => prop_assert_eq!(parsed.instant(), Some(Utc.timestamp_opt(secs, 0).unwrap())),
            1 => prop_assert_eq!(parsed.instant(), Some(t)),
            3 => prop_assert_eq!(
                parsed.instant().map(|p| p.timestamp_millis()),
                Some(t.timestamp_millis())
            ),
            _ => {
                let day: NaiveDate = t.date_naive();
                prop_assert_eq!(parsed.when(), Some(When::Date(day)));
                prop_assert_eq!(parsed.shown(), text);
            }
        }
    }
}
