//! A bound on how deeply server JSON may nest. Parsers and walkers recurse once per level, so
//! a record nested 100,000 levels deep overflows a stack (jaq) or, read level by level, takes
//! gigabytes (the detail pane's tree). Every body is measured by this cheap byte scan before
//! it is parsed: pages and records (lists, the dashboard, the mirror's sync), and the input of
//! `--jq` and `--template`.

/// The deepest nesting of objects and arrays accepted, counted from the outermost `{`/`[`.
pub const MAX_JSON_DEPTH: usize = 100;

/// JSON nested deeper than [`MAX_JSON_DEPTH`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "the JSON is nested more than {MAX_JSON_DEPTH} levels deep (crmdash's limit for server data); refused"
)]
pub struct TooDeep;

/// Whether `json` nests deeper than [`MAX_JSON_DEPTH`]: brackets outside strings are counted,
/// nothing is parsed, so any bytes (valid JSON or not) are measured in one pass.
pub fn check_depth(json: &[u8]) -> Result<(), TooDeep> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in json {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_JSON_DEPTH {
                    return Err(TooDeep);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(n: usize) -> String {
        format!("{}{}", "[".repeat(n), "]".repeat(n))
    }

    #[test]
    fn depth_is_counted_outside_strings_only() {
        assert_eq!(check_depth(nested(MAX_JSON_DEPTH).as_bytes()), Ok(()));
        assert_eq!(
            check_depth(nested(MAX_JSON_DEPTH + 1).as_bytes()),
            Err(TooDeep)
        );
        assert_eq!(check_depth(nested(100_000).as_bytes()), Err(TooDeep));
        let in_string = format!("{{\"a\":\"{}\\\"{}\"}}", "[".repeat(500), "{".repeat(500));
        assert_eq!(check_depth(in_string.as_bytes()), Ok(()));
        // Siblings do not add up.
        let wide = format!("[{}]", vec![nested(50); 1000].join(","));
        assert_eq!(check_depth(wide.as_bytes()), Ok(()));
    }
}
