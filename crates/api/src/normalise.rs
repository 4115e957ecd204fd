//! The normal forms duplicates are compared in: an email's mailbox key, a phone's E.164 form
//! and a name folded to plain lowercase words.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Providers whose documented rules make two spellings the same mailbox: Gmail delivers
/// `j.smith+news@gmail.com` to `jsmith@gmail.com` (dots in the name are ignored, a `+tag` is
/// dropped); `googlemail.com` is the same service. No other provider's rules are applied: most
/// deliver `+tags` too, but for others a dot is part of the address.
const GMAIL_DOMAINS: [&str; 2] = ["gmail.com", "googlemail.com"];

/// An email in the form two spellings of one mailbox share: Unicode NFKC, lowercase (providers
/// treat the local part case-insensitively in practice), and Gmail's dot and `+tag` rules.
/// `None` for an empty value or one without `@`.
pub fn email_key(email: &str) -> Option<String> {
    let e: String = email.trim().nfkc().collect::<String>().to_lowercase();
    let (local, domain) = e.rsplit_once('@')?;
    if local.is_empty() || domain.is_empty() {
        return None;
    }
    if GMAIL_DOMAINS.contains(&domain) {
        let name = local.split('+').next().unwrap_or(local).replace('.', "");
        return Some(format!("{name}@gmail.com"));
    }
    Some(format!("{local}@{domain}"))
}

/// How two emails that share a key differ: the words of a reason.
pub fn email_reason(a: &str, b: &str) -> &'static str {
    let (a, b) = (a.trim(), b.trim());
    if a == b {
        "same email"
    } else if a.to_lowercase() == b.to_lowercase() {
        "same email in another case"
    } else if a.nfkc().collect::<String>().to_lowercase()
        == b.nfkc().collect::<String>().to_lowercase()
    {
        "same email (Unicode forms)"
    } else {
        "same Gmail address (dots, +tag ignored)"
    }
}

/// A phone number in E.164 (`+49301234567`). `region` (ISO 3166 `DE`) is the country of a
/// number written without an international prefix (`030 1234567`); without one such a number
/// has no E.164 form and is not compared. A number the parser cannot read but that starts
/// with `+` or `00` is kept as its digits after a `+`.
pub fn phone_e164(phone: &str, region: Option<phonenumber::country::Id>) -> Option<String> {
    let t = phone.trim();
    if t.chars().filter(char::is_ascii_digit).count() < 5 {
        return None;
    }
    let mut text = match t.strip_prefix("00") {
        Some(rest) => format!("+{rest}"),
        None => t.to_string(),
    };
    // `+49 (0)30 ...`: the national trunk prefix some write after the country code.
    if text.starts_with('+') {
        text = text.replacen("(0)", "", 1);
    }
    if let Ok(n) = phonenumber::parse(region, &text) {
        return Some(n.format().mode(phonenumber::Mode::E164).to_string());
    }
    text.starts_with('+').then(|| {
        format!(
            "+{}",
            text.chars()
                .filter(char::is_ascii_digit)
                .collect::<String>()
        )
    })
}

/// A region code from the config (`de`, `DE`): `None` when it names no country.
pub fn region(code: Option<&str>) -> Option<phonenumber::country::Id> {
    code.and_then(|c| c.trim().to_uppercase().parse().ok())
}

/// Text without its accents, case kept: NFKD with the combining marks dropped, and the
/// Latin letters that do not decompose written plainly (`ß` as `ss`, `ø` as `o`, `Æ` as
/// `AE`). The sandbox plants its accent-less copies with it; [`fold_name`] starts with it.
pub fn strip_accents(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.nfkd().filter(|c| !is_combining_mark(*c)) {
        match c {
            'ß' => out.push_str("ss"),
            'æ' => out.push_str("ae"),
            'Æ' => out.push_str("AE"),
            'œ' => out.push_str("oe"),
            'Œ' => out.push_str("OE"),
            'ø' => out.push('o'),
            'Ø' => out.push('O'),
            'ł' => out.push('l'),
            'Ł' => out.push('L'),
            'đ' => out.push('d'),
            'Đ' => out.push('D'),
            'þ' => out.push_str("th"),
            'Þ' => out.push_str("TH"),
            c => out.push(c),
        }
    }
    out
}

/// A name as plain words: accents and case folded, punctuation dropped, and `Smith, John`
/// turned into `john smith`.
pub fn fold_name(name: &str) -> Vec<String> {
    let ordered = match name.split_once(',') {
        Some((last, first)) if !first.trim().is_empty() && !last.trim().is_empty() => {
            format!("{first} {last}")
        }
        _ => name.to_string(),
    };
    let mut plain = String::with_capacity(ordered.len());
    for c in strip_accents(&ordered).chars() {
        if c.is_alphanumeric() {
            plain.extend(c.to_lowercase());
        } else {
            plain.push(' ');
        }
    }
    plain.split_whitespace().map(str::to_string).collect()
}

/// Words longer than this (in chars) are compared by `strsim` itself.
const SHORT: usize = 32;

/// Jaro–Winkler similarity, the same number `strsim::jaro_winkler` gives to the last bit,
/// without its two allocations per call: a name's words are compared millions of times at
/// 100,000 contacts. Equal texts are 1 at once; texts of more than [`SHORT`] chars go to
/// `strsim`.
pub fn jaro_winkler(a: &str, b: &str) -> f64 {
    if a == b {
        return 1.0;
    }
    let mut ca = ['\0'; SHORT];
    let mut cb = ['\0'; SHORT];
    let (mut la, mut lb) = (0, 0);
    for c in a.chars() {
        if la == SHORT {
            return strsim::jaro_winkler(a, b);
        }
        ca[la] = c;
        la += 1;
    }
    for c in b.chars() {
        if lb == SHORT {
            return strsim::jaro_winkler(a, b);
        }
        cb[lb] = c;
        lb += 1;
    }
    if la == 0 || lb == 0 {
        return 0.0;
    }
    let (a, b) = (&ca[..la], &cb[..lb]);
    // As strsim's `generic_jaro`: matches within half the longer length, less one.
    let range = (la.max(lb) / 2).saturating_sub(1);
    let mut fa = [false; SHORT];
    let mut fb = [false; SHORT];
    let mut matches = 0usize;
    for i in 0..la {
        for j in i.saturating_sub(range)..lb.min(i + range + 1) {
            if a[i] == b[j] && !fb[j] {
                fa[i] = true;
                fb[j] = true;
                matches += 1;
                break;
            }
        }
    }
    if matches == 0 {
        return 0.0;
    }
    let mut transpositions = 0usize;
    let mut k = 0;
    for i in (0..la).filter(|&i| fa[i]) {
        while !fb[k] {
            k += 1;
        }
        if a[i] != b[k] {
            transpositions += 1;
        }
        k += 1;
    }
    transpositions /= 2;
    let sim = ((matches as f64 / la as f64)
        + (matches as f64 / lb as f64)
        + ((matches - transpositions) as f64 / matches as f64))
        / 3.0;
    if sim > 0.7 {
        let prefix = a.iter().take(4).zip(b).take_while(|(x, y)| x == y).count();
        sim + 0.1 * prefix as f64 * (1.0 - sim)
    } else {
        sim
    }
}

/// The similarity of two folded names: Jaro–Winkler of the whole names, as written or with
/// their words sorted (`john smith` against `smith john`), whichever is closer, but no more
/// than that of their least alike word. Whole names alone rate `hélène martin` and
/// `hélène lemaître` 0.92 (the shared first name weighs most); word by word they are 0.5.
pub fn name_similarity(a: &[String], b: &[String]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let as_is = jaro_winkler(&a.join(" "), &b.join(" "));
    let sorted = |w: &[String]| {
        let mut v = w.to_vec();
        v.sort();
        v.join(" ")
    };
    as_is
        .max(jaro_winkler(&sorted(a), &sorted(b)))
        .min(word_similarity(a, b))
}

/// Each word of the name with fewer words against its closest word in the other: the least
/// of these. (`jon smith` / `john smith`: 0.93; `anna weber` / `anna fischer`: 0.5.)
pub fn word_similarity(a: &[String], b: &[String]) -> f64 {
    word_similarity_of(a.iter().map(String::as_str), b.iter().map(String::as_str))
}

/// [`word_similarity`] of words given as iterators (no list is built).
pub fn word_similarity_of<'a, I>(a: I, b: I) -> f64
where
    I: Iterator<Item = &'a str> + Clone,
{
    let (short, long) = if a.clone().count() <= b.clone().count() {
        (a, b)
    } else {
        (b, a)
    };
    let mut least: f64 = 1.0;
    for w in short {
        let best = long.clone().map(|v| jaro_winkler(w, v)).fold(0.0, f64::max);
        least = least.min(best);
        if least == 0.0 {
            break;
        }
    }
    least
}

#[cfg(test)]
mod tests {
    use super::*;

    fn de() -> Option<phonenumber::country::Id> {
        region(Some("de"))
    }

    #[test]
    fn emails_compare_without_case_and_with_gmail_rules_only_at_gmail() {
        assert_eq!(
            email_key(" JSmith@Example.COM ").as_deref(),
            Some("jsmith@example.com")
        );
        assert_eq!(
            email_key("J.Smith+news@gmail.com"),
            email_key("jsmith@googlemail.com")
        );
        assert_ne!(
            email_key("j.smith@example.com"),
            email_key("jsmith@example.com")
        );
        assert_ne!(
            email_key("jsmith+x@example.com"),
            email_key("jsmith@example.com")
        );
        // NFKC: a full-width letter is its plain form.
        assert_eq!(
            email_key("ｊsmith@example.com"),
            email_key("jsmith@example.com")
        );
        assert_eq!(email_key("no-at-sign"), None);
        assert_eq!(
            email_reason("a@example.com", "A@Example.com"),
            "same email in another case"
        );
    }

    #[test]
    fn phones_become_e164_with_the_region_for_national_numbers() {
        let want = Some("+49301234567".to_string());
        assert_eq!(phone_e164("+49 30 1234567", de()), want);
        assert_eq!(phone_e164("030 1234567", de()), want);
        assert_eq!(phone_e164("0049-30-1234567", None), want);
        assert_eq!(phone_e164("+49 (0)30 1234567", None), want);
        assert_eq!(phone_e164("030 1234567", None), None);
        assert_eq!(phone_e164("12", de()), None);
        assert_eq!(region(Some("XX")), None);
    }

    #[test]
    fn jaro_winkler_gives_strsim_s_numbers_to_the_last_bit() {
        let words = [
            "",
            "a",
            "jon",
            "john",
            "johnny",
            "smith",
            "smyth",
            "zimmermann",
            "zimmremann",
            "müller",
            "muller",
            "mueller",
            "jürgen",
            "jurgen",
            "山田",
            "山本",
            "dwayne",
            "duane",
            "martha",
            "marhta",
            "dixon",
            "dicksonx",
            "abcdefghijklmnopqrstuvwxyz0123456789",
            "abcdefghijklmnopqrstuvwxyz0123456798",
            "anna maria",
            "maria anna",
            "aaaa",
            "aaab",
        ];
        for a in words {
            for b in words {
                assert_eq!(
                    jaro_winkler(a, b).to_bits(),
                    strsim::jaro_winkler(a, b).to_bits(),
                    "{a:?} / {b:?}"
                );
            }
        }
    }

    #[test]
    fn names_fold_accents_case_and_comma_order() {
        assert_eq!(fold_name("Smith, John"), ["john", "smith"]);
        assert_eq!(fold_name("Jürgen  WEIß"), ["jurgen", "weiss"]);
        assert_eq!(strip_accents("Łódź Øre Weiß"), "Lodz Ore Weiss");
        assert_eq!(
            fold_name("Gonçalo O'Neil-Araújo"),
            ["goncalo", "o", "neil", "araujo"]
        );
        let sim = |a: &str, b: &str| name_similarity(&fold_name(a), &fold_name(b));
        assert!((sim("John Smith", "Smith, John") - 1.0).abs() < 1e-9);
        assert!((sim("Smith John", "John Smith") - 1.0).abs() < 1e-9);
        assert!(sim("Jon Smith", "John Smith") > 0.92);
        assert!(sim("Anna Weber", "Lukas Fischer") < 0.7);
        // A shared first name does not make the names close.
        assert!(sim("Hélène Martin", "Hélène Lemaître") < 0.9);
        assert!(sim("Agnieszka Jankowska", "Agnieszka Woźniak") < 0.9);
        assert!(sim("지우 강", "지호 강") < 0.9);
        // A first name alone is not the whole name.
        assert!(sim("Anna", "Anna Müller") < 0.9);
    }
}
