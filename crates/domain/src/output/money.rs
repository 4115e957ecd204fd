//! Amounts as people read them: exact, grouped, with their currency.

use rust_decimal::Decimal;

use crate::api::Deal;

/// The deal's `currency` (upper-cased), else `default`, else none.
pub fn deal_currency(deal: &Deal, default: Option<&str>) -> Option<String> {
    let code = |c: &str| {
        Some(c.trim())
            .filter(|c| !c.is_empty())
            .map(str::to_uppercase)
    };
    deal.extra
        .get("currency")
        .and_then(|v| v.as_str())
        .and_then(code)
        .or_else(|| default.and_then(code))
}

/// An amount with at least two decimals and every digit it has (`12` -> `12.00`), grouped by
/// thousands with `,` when `grouped` (`338,858.30`). Never rounded.
pub fn format_amount(d: Decimal, grouped: bool) -> String {
    let mut d = d;
    if d.scale() < 2 {
        d.rescale(2);
    }
    let plain = d.to_string();
    if !grouped {
        return plain;
    }
    let (sign, digits) = match plain.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", plain.as_str()),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let mut out = String::with_capacity(plain.len() + int.len() / 3);
    out.push_str(sign);
    for (i, ch) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    out
}

/// An amount as tables show it, the dashboard's and the CLI's alike: exact, grouped by
/// thousands, with its currency when known (`338,858.30 EUR`); never through a float. Text
/// that is not a number stays as sent.
pub fn format_money(value: &crate::api::Money, currency: Option<&str>) -> String {
    let amount = match value.decimal() {
        Some(d) => format_amount(d, true),
        None => value.display(),
    };
    match currency {
        Some(c) => format!("{amount} {c}"),
        None => amount,
    }
}
