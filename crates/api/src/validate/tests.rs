use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::json;

use super::*;

fn input(first: &str, last: &str, email: &str, phone: &str, extra: &str) -> ContactInput {
    ContactInput {
        first_name: first.into(),
        last_name: last.into(),
        email: email.into(),
        phone: phone.into(),
        extra: extra.into(),
    }
}

#[test]
fn a_valid_contact_becomes_the_exact_body() {
    let c = validate_contact(&input(
        "  Ada ",
        "Lovelace",
        " ada@example.org ",
        "+44 20 7946 0958",
        "tags = [\"vip\"]\nconsent = true\r\nsource = fair 2026\n\n# note\nscore = 42",
    ))
    .unwrap();
    assert_eq!(
        serde_json::Value::Object(c.to_body()),
        json!({
            "first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.org",
            "phone": "+44 20 7946 0958", "tags": ["vip"], "consent": true,
            "source": "fair 2026", "score": 42
        })
    );
}

#[test]
fn whitespace_fields_are_not_given() {
    let c = validate_contact(&input("", "  ", "x@example.com", " \t ", "")).unwrap();
    assert_eq!(c.first_name, None);
    assert_eq!(c.last_name, None);
    assert_eq!(c.phone, None);
    assert!(c.extra.is_empty());
}

#[test]
fn needs_a_name_or_an_email() {
    let e = validate_contact(&input(" ", "", "", "+49 30 1234567", "")).unwrap_err();
    assert_eq!(e.get(ContactField::Form), Some("give a name or an email"));
    assert_eq!(e.len(), 1);
    assert!(validate_contact(&input("", "Smith", "", "", "")).is_ok());
    assert!(validate_contact(&input("", "", "a@b.co", "", "")).is_ok());
}

#[test]
fn every_bad_field_is_reported_in_form_order() {
    let e = validate_contact(&input(
        &"x".repeat(101),
        "ok",
        "not-an-email",
        "030 1234567",
        "email = x",
    ))
    .unwrap_err();
    assert_eq!(e.first().map(|(f, _)| f), Some(ContactField::FirstName));
    let fields: Vec<_> = e.iter().map(|(f, _)| f).collect();
    assert_eq!(
        fields,
        [
            ContactField::FirstName,
            ContactField::Email,
            ContactField::Phone,
            ContactField::Extra
        ]
    );
    assert!(e.get(ContactField::FirstName).unwrap().contains("100"));
    assert!(
        e.get(ContactField::Phone)
            .unwrap()
            .contains("international prefix")
    );
    assert!(
        e.get(ContactField::Extra)
            .unwrap()
            .starts_with("line 1: email has its own field")
    );
    let shown = e.to_string();
    assert!(shown.starts_with("first name: too long"), "{shown}");
}

#[test]
fn names_accept_unicode_but_not_controls() {
    assert!(check_name("José Ñúñez").is_ok());
    assert!(check_name("李小龍").is_ok());
    assert!(
        check_name("👩\u{200D}💻 Dev").is_ok(),
        "zero-width joiner is fine"
    );
    assert!(check_name("O'Brien-Smith").is_ok());
    assert!(
        check_name("Ada\nLovelace")
            .unwrap_err()
            .contains("control character")
    );
    assert!(check_name("Ada\u{7}").is_err());
    assert!(
        check_name("evil\u{202E}txt")
            .unwrap_err()
            .contains("invisible")
    );
    assert!(
        check_name(&"é".repeat(100)).is_ok(),
        "limits count characters, not bytes"
    );
    assert!(check_name(&"é".repeat(101)).is_err());
}

#[test]
fn emails() {
    for ok in [
        "a@b.co",
        "first.last+tag@sub.example.org",
        "o'hara@example.ie",
        "user@bücher.de",
        "x_y-z@a-b.example",
    ] {
        assert_eq!(check_email(ok), Ok(()), "{ok}");
    }
    for (bad, why) in [
        ("plainaddress", "needs an @"),
        ("a@b@c.com", "only one @"),
        ("@example.com", "name before the @"),
        ("user@", "needs a domain"),
        ("user@localhost", "needs a dot"),
        ("user@example..com", "misplaced dot"),
        ("user@.example.com", "misplaced dot"),
        (".user@example.com", "misplaced dot"),
        ("us..er@example.com", "misplaced dot"),
        ("us er@example.com", "spaces"),
        ("user@exa mple.com", "spaces"),
        ("user@-example.com", "not a valid part"),
        ("user@example.c", "top-level domain"),
        ("user@1.2.3.4", "top-level domain"),
        ("us<er@example.com", "cannot contain"),
        ("user@exam_ple.com", "cannot contain"),
        ("user\u{0}@example.com", "control character"),
    ] {
        let e = check_email(bad).unwrap_err();
        assert!(e.contains(why), "{bad}: {e}");
    }
    let long_local = format!("{}@example.com", "a".repeat(65));
    assert!(check_email(&long_local).unwrap_err().contains("64"));
    let long = format!("a@{}.com", "b".repeat(60).repeat(5));
    assert!(check_email(&long).is_err());
}

#[test]
fn phones() {
    for ok in [
        "+49 30 1234567",
        "0049 (0)30 123-45.67",
        "+1 (555) 010-9999",
        "+123456",
    ] {
        assert_eq!(check_phone(ok), Ok(()), "{ok}");
    }
    for (bad, why) in [
        ("030 1234567", "international prefix"),
        ("49 30 1234567", "international prefix"),
        ("+49 30 12345 ext 6", "not 'e'"),
        ("+12345", "too few digits"),
        ("+1234567890123456", "too many digits"),
        ("++49301234567", "not '+'"),
        ("+49\t301234567", "control character"),
        (&format!("+49{}", " 1".repeat(20)), "too long"),
    ] {
        let e = check_phone(bad).unwrap_err();
        assert!(e.contains(why), "{bad}: {e}");
    }
}

#[test]
fn extra_lines() {
    let m = parse_extra_lines("a = 1\nb=\"two\"\nc = {\"k\": [1, null]}\nd =\ne = hello = world")
        .unwrap();
    assert_eq!(
        serde_json::Value::Object(m),
        json!({"a": 1, "b": "two", "c": {"k": [1, null]}, "d": "", "e": "hello = world"})
    );
    let err = |t: &str| parse_extra_lines(t).unwrap_err();
    assert_eq!(err("ok = 1\n\nno equals").line, 3);
    assert!(
        err("ok = 1\n\nno equals")
            .to_string()
            .starts_with("line 3: expected key = value")
    );
    assert!(err(" = 5").message.contains("key is missing"));
    assert!(err("a = 1\na = 2").message.contains("set twice"));
    assert!(err("Email = x@y.z").message.contains("own field"));
    assert!(err("k = a\u{1b}[31m").message.contains("control character"));
    assert!(
        err(&format!("{} = 1", "k".repeat(101)))
            .message
            .contains("too long")
    );
}

#[test]
fn values_keep_big_integers_exact() {
    assert_eq!(
        parse_value("12345678901234567890123"),
        json!("12345678901234567890123")
    );
    assert_eq!(
        parse_value("-9007199254740993"),
        json!(-9007199254740993i64)
    );
    assert_eq!(parse_value("1.5"), json!(1.5));
    assert_eq!(parse_value("0049123"), json!("0049123"));
    assert_eq!(parse_value("null"), json!(null));
    assert_eq!(parse_value(&"[".repeat(5000)), json!("[".repeat(5000)));
}

#[test]
fn server_keys_map_onto_fields() {
    assert_eq!(field_for_server_key("email"), ContactField::Email);
    assert_eq!(
        field_for_server_key("data.first_name"),
        ContactField::FirstName
    );
    assert_eq!(field_for_server_key("Last-Name"), ContactField::LastName);
    assert_eq!(field_for_server_key("phone_number"), ContactField::Phone);
    assert_eq!(field_for_server_key("tags.0"), ContactField::Extra);
    assert_eq!(field_for_server_key("account_id"), ContactField::Extra);
    assert_eq!(field_for_server_key(""), ContactField::Form);
    assert_eq!(field_for_server_key("name"), ContactField::Form);

    let mut server = BTreeMap::new();
    server.insert(
        "email".to_string(),
        vec!["has already been taken".to_string()],
    );
    server.insert("tags.0".to_string(), vec!["unknown tag".to_string()]);
    server.insert("data.email".to_string(), vec!["is invalid".to_string()]);
    let fe = server_field_errors(&server);
    assert_eq!(
        fe.get(ContactField::Email),
        Some("is invalid; has already been taken")
    );
    assert_eq!(fe.get(ContactField::Extra), Some("tags.0: unknown tag"));
}

proptest! {
    #[test]
    fn never_panics(first in "\\PC{0,120}", email in ".{0,80}", phone in ".{0,50}", extra in ".{0,200}") {
        let _ = validate_contact(&input(&first, "", &email, &phone, &extra));
    }

    #[test]
    fn a_validated_email_has_no_space_and_one_at(email in "[a-z.@ ]{1,20}") {
        if check_email(&email).is_ok() {
            let t = email.trim();
            prop_assert!(!t.contains(' '));
            prop_assert_eq!(t.matches('@').count(), 1);
        }
    }
}

/// A further key's value spelled as JSON decodes to an escape or a bidi override: refused as
/// a raw one would be; line ends and tabs in a note are text.
#[test]
fn an_escape_spelled_as_json_in_a_further_key_is_refused() {
    for extra in [
        r#"note = "\u001b[2Jx""#,
        r#"note = "x\u202e""#,
        r#"tags = ["ok", "\u009b31m"]"#,
    ] {
        let e = validate_contact(&input("Zed", "", "", "", extra)).unwrap_err();
        let said = e.get(ContactField::Extra).unwrap_or_default().to_string();
        assert!(said.contains("character"), "{extra}: {said}");
    }
    let ok = validate_contact(&input(
        "Zed",
        "",
        "",
        "",
        r#"note = "two\nlines\tand a tab""#,
    ))
    .unwrap();
    assert_eq!(ok.extra["note"], "two\nlines\tand a tab");
}
