//! Feeds arbitrary bytes to every response decoder of the API client: list and single-record
//! bodies of each resource, error bodies, timestamps, amounts and `Retry-After`. Any panic is
//! a bug (`cargo +nightly fuzz run decode`).
#![no_main]

use crmdash::api::{
    ApiRecord, AppointmentRef, Contact, Deal, Money, Project, Timestamp, decode_page,
    decode_single, parse_error_body, parse_retry_after,
};
use libfuzzer_sys::fuzz_target;

fn touch<T: ApiRecord>(r: &T) {
    let _ = (r.label(), r.raw().get().len(), r.extra().len());
    if let Some(t) = r.created_at() {
        let _ = (t.shown(), t.instant());
    }
}

fuzz_target!(|body: &[u8]| {
    if let Ok(page) = decode_page::<Contact>(body) {
        page.data.iter().for_each(touch);
        let _ = page.has_next();
    }
    if let Ok(page) = decode_page::<Deal>(body) {
        for d in &page.data {
            touch(d);
            let _ = d.value.as_ref().map(Money::display);
        }
    }
    if let Ok(page) = decode_page::<Project>(body) {
        page.data.iter().for_each(touch);
    }
    if let Ok(Some(c)) = decode_single::<Contact>(body) {
        touch(&c);
    }
    if let Ok(Some(a)) = decode_single::<AppointmentRef>(body) {
        touch(&a);
    }
    let (message, _fields) = parse_error_body(body);
    assert!(message.is_none_or(|m| !m.contains('\n')));
    if let Ok(text) = std::str::from_utf8(body) {
        let _ = Timestamp::parse(text).shown();
        let _ = Money::parse(text).display();
        let _ = parse_retry_after(text);
    }
});
