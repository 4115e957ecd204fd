//! Money amounts: exact decimals or the server's own text, never a float.

use std::fmt;

use rust_decimal::Decimal;

/// A money amount: the original text and, when it fits exactly, a decimal. Never a float.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Money {
    raw: String,
    decimal: Option<Decimal>,
}

impl Money {
    /// From a JSON number's literal text or a decimal string (`"1234.50"`, `"1,234.50"`,
    /// `"1e3"`). A value a `Decimal` could only hold rounded (more than 28 digits) keeps no
    /// decimal: its text is then the only truth, and nothing is lost.
    pub fn parse(raw: &str) -> Self {
        let cleaned: String = raw
            .trim()
            .chars()
            .filter(|c| *c != ',' && *c != '_')
            .collect();
        Money {
            raw: raw.to_string(),
            decimal: exact_decimal(&cleaned),
        }
    }

    pub fn raw(&self) -> &str {
        &self.raw
    }

    pub fn decimal(&self) -> Option<Decimal> {
        self.decimal
    }

    /// With at least two decimals and every digit the server sent (`12` -> `12.00`,
    /// `0.125` -> `0.125`, a 40-digit amount digit for digit); text that is not a number,
    /// as it came.
    pub fn display(&self) -> String {
        match self.decimal {
            Some(d) if d.scale() < 2 => {
                let mut d = d;
                d.rescale(2);
                // `rescale` stops short when 28 digits would not fit: pad the server's text instead.
                if d.scale() == 2 {
                    d.to_string()
                } else {
                    pad_plain_decimal(self.raw.trim()).unwrap_or_else(|| self.raw.clone())
                }
            }
            Some(d) => d.to_string(),
            None => pad_plain_decimal(self.raw.trim()).unwrap_or_else(|| self.raw.clone()),
        }
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

/// A decimal equal to the text, or none (never a rounded one).
fn exact_decimal(s: &str) -> Option<Decimal> {
    let Some((mantissa, _)) = s.split_once(['e', 'E']) else {
        return Decimal::from_str_exact(s).ok();
    };
    // The mantissa must be exact; then the exponent only moves the point, and
    // `from_scientific` refuses (rather than rounds) what does not fit.
    Decimal::from_str_exact(mantissa).ok()?;
    let d = Decimal::from_scientific(s).ok()?;
    let digits = |t: &str| -> String {
        t.chars()
            .filter(char::is_ascii_digit)
            .collect::<String>()
            .trim_matches('0')
            .to_string()
    };
    (digits(mantissa) == digits(&d.to_string())).then_some(d)
}

/// `123…` or `-1.5` as text with at least two decimals, for amounts too long for `Decimal`.
fn pad_plain_decimal(s: &str) -> Option<String> {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let plain = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit());
    if !plain {
        return None;
    }
    let pad = 2usize.saturating_sub(frac.len());
    let dot = if body.contains('.') { "" } else { "." };
    Some(format!("{s}{dot}{}", "0".repeat(pad)))
}
