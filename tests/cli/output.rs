//! The output writers against records decoded the way the client decodes them.

use crmdash::api::{Contact, Deal, Project, decode_page};
use crmdash::output::{
    ColumnSet, Format, ListWriter, Tabular, display_width, sanitize_cell, truncate_to_width,
    write_csv, write_json, write_json_one, write_jsonl, write_table,
};

const DEALS: &str = r#"{"data": [
  {"id": 7, "name": "Acme, \"big\" one", "status":"open",   "value": 12345678901234567890.125, "currency": "EUR",
   "created_at": "2026-11-01T10:00:00Z", "custom": {"tier" : "gold", "tags": [1, 2]},
   "account": {"id": 3, "name": "Acme GmbH"}, "note": "line one\nline two"},
  {"id":"8","name":"東京の案件 🎉","status":"won","value":"99.5","weird":null,"extra_flag":true}
], "meta": {"current_page": 1, "last_page": 1, "per_page": 25, "total": 2}}"#;

fn deals() -> Vec<Deal> {
    decode_page::<Deal>(DEALS.as_bytes()).unwrap().data
}

#[test]
fn json_is_the_raw_records_byte_for_byte() {
    let mut out = Vec::new();
    write_json(&deals(), &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    let start = DEALS.find("{\"id\": 7").unwrap();
    let end = DEALS.find("\"line one\\nline two\"}").unwrap() + "\"line one\\nline two\"}".len();
    let first = &DEALS[start..end];
    let second_start = DEALS.find("{\"id\":\"8\"").unwrap();
    let second_end = DEALS.find("\"extra_flag\":true}").unwrap() + "\"extra_flag\":true}".len();
    let second = &DEALS[second_start..second_end];
    assert_eq!(out, format!("[\n{first},\n{second}\n]\n"));
    // Still one valid JSON array, with every digit of the value kept in the text.
    let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(parsed.as_array().unwrap().len(), 2);
    assert!(out.contains("12345678901234567890.125"));

    let mut empty = Vec::new();
    write_json::<Deal>(&[], &mut empty).unwrap();
    assert_eq!(empty, b"[]\n");
    let mut one = Vec::new();
    write_json_one(&deals()[1], &mut one).unwrap();
    assert_eq!(String::from_utf8(one).unwrap(), format!("{second}\n"));
}

#[test]
fn csv_quotes_and_flattens() {
    let mut out = Vec::new();
    write_csv(&deals(), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    // The fixed columns of deals, whatever the records hold.
    assert_eq!(
        header,
        [
            "id",
            "created_at",
            "updated_at",
            "name",
            "status",
            "value",
            "currency",
            "account",
            "contacts",
            "assigned_user",
            "assigned_users"
        ]
    );
    let rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    assert_eq!(
        rows[0],
        [
            "7",
            "2026-11-01T10:00:00Z",
            "",
            "Acme, \"big\" one",
            "open",
            "12345678901234567890.125",
            "EUR",
            "Acme GmbH",
            "",
            "",
            ""
        ]
    );
    assert_eq!(rows[1][0], "8");
    assert_eq!(rows[1][3], "東京の案件 🎉");
    assert_eq!(rows[1][5], "99.5");
    // RFC 4180 on the wire: CRLF records, doubled quotes, quoted fields with commas/newlines.
    assert!(text.starts_with("id,created_at,updated_at,name,"));
    assert!(text.contains("\r\n7,2026-11-01T10:00:00Z,,\"Acme, \"\"big\"\" one\",open,"));
    assert!(text.ends_with("\r\n"));
    // Further fields by name, nested values as compact JSON, text with newlines quoted.
    let pick = ColumnSet::select::<Deal>(&[
        "id".into(),
        "custom".into(),
        "note".into(),
        "weird".into(),
        "extra_flag".into(),
    ])
    .unwrap();
    let mut w = ListWriter::new::<Deal>(Format::Csv, Some(pick), 80, Vec::new());
    w.page(&deals()).unwrap();
    let text = String::from_utf8(w.finish().unwrap()).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    assert_eq!(
        rows[0],
        [
            "7",
            r#"{"tier":"gold","tags":[1,2]}"#,
            "line one\nline two",
            "",
            ""
        ]
    );
    assert_eq!(rows[1][4], "true");
    assert!(text.contains("\"line one\nline two\""));
}

#[test]
fn csv_of_nothing_is_the_fixed_header() {
    let mut out = Vec::new();
    write_csv::<Contact>(&[], &mut out).unwrap();
    assert_eq!(
        out,
        b"id,created_at,updated_at,first_name,last_name,email,phone,accounts,assigned_user,assigned_users\r\n"
    );
}

#[test]
fn a_list_written_page_by_page_is_the_list_written_at_once() {
    let all = deals();
    for format in [Format::Csv, Format::Json, Format::Jsonl, Format::Table] {
        let mut once = ListWriter::new::<Deal>(format, None, 100, Vec::new());
        once.page(&all).unwrap();
        let once = once.finish().unwrap();
        let mut paged = ListWriter::new::<Deal>(format, None, 100, Vec::new());
        paged.page(&all[..1]).unwrap();
        paged.page::<Deal>(&[]).unwrap();
        paged.page(&all[1..]).unwrap();
        assert_eq!(paged.records(), 2);
        let paged = paged.finish().unwrap();
        if format == Format::Table {
            // The widths come from the first page: same lines, same header.
            let (a, b) = (
                String::from_utf8(once).unwrap(),
                String::from_utf8(paged).unwrap(),
            );
            assert_eq!(a.lines().count(), b.lines().count());
            assert_eq!(a.lines().next(), b.lines().next());
        } else {
            assert_eq!(once, paged, "{format}");
        }
    }
    let mut json = Vec::new();
    write_json(&all, &mut json).unwrap();
    let mut streamed = ListWriter::new::<Deal>(Format::Json, None, 80, Vec::new());
    streamed.page(&all).unwrap();
    assert_eq!(streamed.finish().unwrap(), json);
    // JSON Lines: one record a line even when the server spread it over several.
    let mut lines = Vec::new();
    write_jsonl(&all, &mut lines).unwrap();
    let text = String::from_utf8(lines).unwrap();
    assert_eq!(text.lines().count(), 2);
    for l in text.lines() {
        serde_json::from_str::<serde_json::Value>(l).unwrap();
    }
    // Empty: the header alone, `[]`, nothing.
    for (format, want) in [
        (Format::Json, "[]\n".to_string()),
        (Format::Jsonl, String::new()),
        (
            Format::Table,
            format!(
                "ID  NAME  STATUS  VALUE  ACCOUNT  ASSIGNEE  CREATED ({zone})  UPDATED\n",
                zone = crmdash_api::clock::get().label()
            ),
        ),
    ] {
        let w = ListWriter::new::<Deal>(format, None, 200, Vec::new());
        assert_eq!(
            String::from_utf8(w.finish().unwrap()).unwrap(),
            want,
            "{format}"
        );
    }
}

fn contacts() -> Vec<Contact> {
    let long = "x".repeat(500);
    let body = format!(
        r#"[
        {{"id": 1, "first_name": "山田", "last_name": "太郎", "email": "yamada@example.jp",
          "phone": "+81 3 1234 5678", "accounts": [{{"id": 9, "name": "株式会社テスト"}}],
          "assigned_user": {{"id": 4, "first_name": "Ann", "last_name": "Lee"}}}},
        {{"id": 2, "first_name": "👩‍💻 Zoë", "last_name": "{long}", "email": "z@example.com",
          "assigned_user_id": 5}},
        {{"id": 3, "first_name": "Evil\u001b[31m", "last_name": "New\nLine", "email": "e@x.io"}}
    ]"#
    );
    decode_page::<Contact>(body.as_bytes()).unwrap().data
}

/// Display column where `needle` starts in `line`.
fn col_of(line: &str, needle: &str) -> usize {
    let at = line
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in {line:?}"));
    display_width(&line[..at])
}

#[test]
fn tables_fit_and_align_with_wide_characters() {
    for width in [80u16, 200] {
        let mut out = Vec::new();
        write_table(&contacts(), width, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines.len(),
            4,
            "one header and one line per record:\n{text}"
        );
        for l in &lines {
            assert!(display_width(l) <= usize::from(width), "{width}: {l:?}");
            assert!(!l.ends_with(' '));
            assert!(!l.contains('\u{1b}'), "no escape reaches the terminal");
        }
        let email_col = col_of(lines[0], "EMAIL");
        assert_eq!(col_of(lines[1], "yamada@"), email_col, "{text}");
        assert_eq!(col_of(lines[2], "z@example"), email_col, "{text}");
        assert_eq!(col_of(lines[3], "e@x.io"), email_col, "{text}");
        assert!(lines[2].contains('…'), "the long name is cut: {text}");
        // At 80 columns the long name is cut: the slack columns give way, the account (more
        // important than the assignee) whole.
        assert!(lines[1].contains("株式会社テスト"), "{text}");
        assert_eq!(lines[1].contains("Ann Lee"), width == 200, "{text}");
        if width == 200 {
            assert!(
                lines[2].contains("#5"),
                "an id stands in for a relation not included"
            );
        }
        assert!(lines[3].contains("Evil␛["), "{text}");
        if width == 200 {
            assert!(lines[3].contains("Evil␛[31m New↵Line"), "{text}");
        }
    }
    let mut wide = Vec::new();
    write_table(&contacts(), 200, &mut wide).unwrap();
    let mut narrow = Vec::new();
    write_table(&contacts(), 80, &mut narrow).unwrap();
    assert!(
        wide.len() > narrow.len(),
        "more of the long name shows at 200 columns"
    );
}

#[test]
fn money_is_right_aligned_with_two_decimals() {
    let mut out = Vec::new();
    write_table(&deals(), 120, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let end_of = |l: &str, s: &str| col_of(l, s) + display_width(s);
    // Grouped, every digit kept, with the deal's currency (as the dashboard shows it); a
    // deal without one shows the amount alone.
    let a = end_of(lines[1], "12,345,678,901,234,567,890.125 EUR");
    let b = end_of(lines[2], "99.50");
    assert_eq!(a, b, "{text}");
    assert!(Deal::right_aligned(3) && !Deal::right_aligned(1));
    assert!(lines[1].contains("Acme GmbH"));
    assert!(lines[1].contains("line") || !lines[1].contains('\n'));
}

#[test]
fn tiny_widths_never_overflow() {
    let projects = decode_page::<Project>(
        br#"[{"id": "p1", "name": "Apollo", "status": "active", "start_date": "2026-01-05",
             "members": [{"id": 1, "name": "A"}, {"id": 2, "email": "b@x.io"}],
             "owner": {"id": 3, "full_name": "Olga"}}]"#,
    )
    .unwrap()
    .data;
    for width in [1u16, 10, 30, 60] {
        let mut out = Vec::new();
        write_table(&projects, width, &mut out).unwrap();
        for l in String::from_utf8(out).unwrap().lines() {
            assert!(display_width(l) <= usize::from(width), "{width}: {l:?}");
        }
    }
    let mut out = Vec::new();
    write_table(&projects, 120, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("2026-01-05") && text.contains("A, b@x.io") && text.contains("Olga"));
}

#[test]
fn cell_helpers() {
    assert_eq!(sanitize_cell("a\r\nb\tc\u{7}\u{202e}"), "a↵b c␇�");
    assert_eq!(truncate_to_width("東京都", 5), "東京…");
    assert_eq!(truncate_to_width("東京都", 6), "東京都");
    assert_eq!(truncate_to_width("abc", 0), "");
    assert_eq!("CSV".parse::<Format>().unwrap(), Format::Csv);
    assert!(
        "xml"
            .parse::<Format>()
            .unwrap_err()
            .to_string()
            .contains("table, json, jsonl or csv")
    );
    assert_eq!(Format::default_for(false), Format::Json);
}

fn contact_named(name: &str, email: &str) -> Contact {
    let raw = serde_json::json!({"id": 1, "first_name": name, "email": email}).to_string();
    decode_page::<Contact>(format!("[{raw}]").as_bytes())
        .unwrap()
        .data
        .remove(0)
}

proptest::proptest! {
    #[test]
    fn any_text_fits_any_width(name in "\\PC{0,60}|.{0,60}", email in ".{0,40}", width in 1u16..220) {
        let records = vec![contact_named(&name, &email), contact_named("b", "c")];
        let mut out = Vec::new();
        write_table(&records, width, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        proptest::prop_assert_eq!(text.lines().count(), 3);
        for l in text.lines() {
            proptest::prop_assert!(display_width(l) <= usize::from(width));
            proptest::prop_assert!(!l.chars().any(char::is_control));
        }
        let mut csv_out = Vec::new();
        write_csv(&records, &mut csv_out).unwrap();
        let mut reader = csv::Reader::from_reader(csv_out.as_slice());
        let col = reader.headers().unwrap().iter().position(|h| h == "first_name").unwrap();
        let first = reader.records().next().unwrap().unwrap();
        // Exact, but for a cell a spreadsheet would run: that one gets a leading `'`.
        let expected = crmdash::output::neutralise_csv_cell(&name);
        proptest::prop_assert_eq!(first.get(col), Some(expected.as_ref()));
    }
}

/// Issue 44: one test table of widths and the columns a contacts table keeps. What a contact
/// list is read for (name, e-mail, phone) stays at a useful width; the id, the relations and
/// the dates give way first; a column empty in every row goes before any other.
#[test]
fn the_columns_kept_at_each_width() {
    let page = |assignee: &str| {
        let body = format!(
            r#"[{{"id": "con_000160", "first_name": "Doyun", "last_name": "Kim-Nakamura",
                 "email": "doyun.kim-nakamura@example.kr", "phone": "+82 10-1234-5678",
                 "accounts": [{{"id": "acc_1", "name": "Acme Korea Ltd"}}]{assignee},
                 "created_at": "2022-01-08T22:23:00Z", "updated_at": "2022-02-03T00:40:00Z"}}]"#
        );
        decode_page::<Contact>(body.as_bytes()).unwrap().data
    };
    let with_assignee = r#", "assigned_user": {"id": 4, "first_name": "Ann", "last_name": "Lee"}"#;
    let cases: [(u16, &str, &[&str]); 6] = [
        (60, with_assignee, &["ID", "NAME", "EMAIL", "PHONE"]),
        (80, with_assignee, &["ID", "NAME", "EMAIL", "PHONE"]),
        (
            100,
            with_assignee,
            &["ID", "NAME", "EMAIL", "PHONE", "UPDATED"],
        ),
        (
            200,
            with_assignee,
            &[
                "ID", "NAME", "EMAIL", "PHONE", "ACCOUNT", "ASSIGNEE", "CREATED", "UPDATED",
            ],
        ),
        (
            134,
            with_assignee,
            &[
                "ID", "NAME", "EMAIL", "PHONE", "ACCOUNT", "ASSIGNEE", "UPDATED",
            ],
        ),
        // No assignee anywhere: the empty column goes first, the date takes its room.
        (
            134,
            "",
            &[
                "ID", "NAME", "EMAIL", "PHONE", "ACCOUNT", "CREATED", "UPDATED",
            ],
        ),
    ];
    for (width, assignee, want) in cases {
        let mut out = Vec::new();
        write_table(&page(assignee), width, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let header: Vec<String> = text
            .lines()
            .next()
            .unwrap()
            .split("  ")
            .map(|h| h.trim().split(" (").next().unwrap().to_string())
            .filter(|h| !h.is_empty())
            .collect();
        assert_eq!(header, want, "{width} columns:\n{text}");
        let row = text.lines().nth(1).unwrap();
        // What stays keeps a useful width: the name 14 columns or more.
        assert!(row.contains("Doyun Kim-Nak"), "{width}: {row}");
    }
}
