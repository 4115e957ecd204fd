//! Reading the config file: a missing file means defaults, a bad file means defaults plus a
//! message naming the line; unknown keys and out-of-range values warn. The file is never written.

use std::path::Path;

use super::{KeySpec, Settings};

/// Settings read from the file, with what the user should be told about it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Loaded {
    pub settings: Settings,
    /// One line each: a bad file, unknown keys, values replaced by defaults.
    pub warnings: Vec<String>,
}

/// Unknown keys named one by one; any further ones are counted in one line.
pub const MAX_UNKNOWN_LISTED: usize = 20;

const PER_PAGE_CHOICES: [u32; 4] = [10, 25, 50, 100];
const THEMES: [&str; 3] = ["default", "16", "none"];

/// Reads `path` (or [`super::config_path`] when `None`). Never fails: problems become warnings.
pub fn load(path: Option<&Path>) -> Loaded {
    let owned;
    let path = match path {
        Some(p) => p,
        None => match super::config_path() {
            Some(p) => {
                owned = p;
                owned.as_path()
            }
            None => return Loaded::default(),
        },
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Loaded::default(),
        Err(e) => {
            return Loaded {
                settings: Settings::default(),
                warnings: vec![format!(
                    "config file {}: cannot read it ({e}); using defaults",
                    path.display()
                )],
            };
        }
    };
    parse(&text, &path.display().to_string())
}

/// Parses config text; `origin` names it in messages.
pub fn parse(text: &str, origin: &str) -> Loaded {
    let mut warnings = Vec::new();
    let mut unknown = Vec::new();
    let parsed = toml::Deserializer::parse(text).and_then(|de| {
        serde_ignored::deserialize(de, |p| unknown.push(p.to_string()))
            .map_err(|e: toml::de::Error| e)
    });
    let mut settings: Settings = match parsed {
        Ok(s) => s,
        Err(e) => {
            let line = e
                .span()
                .map(|s| format!(", line {}", line_of(text, s.start)))
                .unwrap_or_default();
            let msg = e.message().trim().replace('\n', " ");
            return Loaded {
                settings: Settings::default(),
                warnings: vec![format!("config file {origin}{line}: {msg}; using defaults")],
            };
        }
    };
    settings.reschedule.fields_are_defaults = !reschedule_fields_set(text);
    settings.ui.per_page_set = per_page_set(text);
    validate(&mut settings, origin, &mut warnings, &mut unknown);
    unknown.sort();
    let listed = unknown.len().min(MAX_UNKNOWN_LISTED);
    for key in &unknown[..listed] {
        warnings.push(format!("config file {origin}: unknown key '{key}' ignored"));
    }
    if unknown.len() > listed {
        warnings.push(format!(
            "config file {origin}: {} more unknown keys ignored",
            unknown.len() - listed
        ));
    }
    Loaded { settings, warnings }
}

fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset).unwrap_or(text).matches('\n').count() + 1
}

/// Whether the file itself says `per_page` under `[ui]`.
fn per_page_set(text: &str) -> bool {
    text.parse::<toml::Table>().ok().is_some_and(|v| {
        v.get("ui")
            .and_then(toml::Value::as_table)
            .is_some_and(|t| t.contains_key("per_page"))
    })
}

/// Whether the file itself says `start_field` or `end_field` under `[reschedule]`.
fn reschedule_fields_set(text: &str) -> bool {
    let Ok(value) = text.parse::<toml::Table>() else {
        return false;
    };
    value
        .get("reschedule")
        .and_then(toml::Value::as_table)
        .is_some_and(|t| t.contains_key("start_field") || t.contains_key("end_field"))
}

/// Replaces values the program cannot use by their defaults, warning about each.
fn validate(s: &mut Settings, origin: &str, warnings: &mut Vec<String>, unknown: &mut Vec<String>) {
    let defaults = Settings::default();
    let mut warn = |m: String| warnings.push(format!("config file {origin}: {m}"));
    if !PER_PAGE_CHOICES.contains(&s.ui.per_page) {
        warn(format!(
            "[ui] per_page = {} is not one of 10, 25, 50, 100; using {}",
            s.ui.per_page, defaults.ui.per_page
        ));
        s.ui.per_page = defaults.ui.per_page;
        s.ui.per_page_set = false;
    }
    if !THEMES.contains(&s.ui.theme.as_str()) {
        warn(format!(
            "[ui] theme = \"{}\" is not one of default, 16, none; using default",
            s.ui.theme
        ));
        s.ui.theme = defaults.ui.theme.clone();
    }
    if let Some(c) = s.ui.currency.take() {
        let code = c.trim().to_ascii_uppercase();
        if code.len() == 3 && code.bytes().all(|b| b.is_ascii_uppercase()) {
            s.ui.currency = Some(code);
        } else {
            warn(format!(
                "[ui] currency = \"{c}\" is not a three-letter code like \"EUR\"; amounts without a currency show none"
            ));
        }
    }
    if let Some(r) = s.ui.region.take() {
        let code = r.trim().to_ascii_uppercase();
        if crate::normalise::region(Some(&code)).is_some() {
            s.ui.region = Some(code);
        } else {
            warn(format!(
                "[ui] region = \"{r}\" is not a country code like \"DE\"; phone numbers without an international prefix are not compared"
            ));
        }
    }
    let d = &mut s.dupes;
    if !(0.0..=1.0).contains(&d.threshold) {
        warn(format!(
            "[dupes] threshold = {} is not between 0 and 1; using {}",
            d.threshold, defaults.dupes.threshold
        ));
        d.threshold = defaults.dupes.threshold;
    }
    if !(0.0..=1.0).contains(&d.name_similarity) {
        warn(format!(
            "[dupes] name_similarity = {} is not between 0 and 1; using {}",
            d.name_similarity, defaults.dupes.name_similarity
        ));
        d.name_similarity = defaults.dupes.name_similarity;
    }
    if s.safety.undo_seconds > super::MAX_UNDO_SECONDS {
        warn(format!(
            "[safety] undo_seconds = {} is more than {}; using {}",
            s.safety.undo_seconds,
            super::MAX_UNDO_SECONDS,
            super::MAX_UNDO_SECONDS
        ));
        s.safety.undo_seconds = super::MAX_UNDO_SECONDS;
    }
    let tz = s.ui.timezone.trim();
    if tz != "local" && tz.parse::<chrono_tz::Tz>().is_err() {
        warn(format!(
            "[ui] timezone = \"{tz}\" is neither \"local\" nor an IANA zone name (like \"Europe/Berlin\"); using local"
        ));
        s.ui.timezone = "local".to_string();
    }
    let tz = s.reschedule.timezone.trim();
    if !tz.is_empty() && tz != "local" && tz.parse::<chrono_tz::Tz>().is_err() {
        warn(format!(
            "[reschedule] timezone = \"{tz}\" is neither \"local\" nor an IANA zone name (like \"Europe/Berlin\"); using [ui] timezone ({})",
            s.ui.timezone
        ));
        s.reschedule.timezone = String::new();
    }
    if s.reschedule.start_field.trim().is_empty() {
        warn("[reschedule] start_field is empty; using \"start_time\"".to_string());
        s.reschedule.start_field = defaults.reschedule.start_field.clone();
    }
    // An action the key map does not know is an unknown key like any other (and is dropped,
    // so the dashboard does not warn about it a second time).
    s.keys.retain(|action, _| {
        let known = crate::keys::Action::ALL.iter().any(|a| a.name() == action);
        if !known {
            unknown.push(format!("keys.{action}"));
        }
        known
    });
    for (action, specs) in s.keys.iter_mut() {
        specs.retain(|spec| match KeySpec::parse(spec) {
            Ok(_) => true,
            Err(e) => {
                warn(format!("[keys] {action}: {e}; ignored"));
                false
            }
        });
    }
    for (name, profile) in s.profiles.iter_mut() {
        if let Err(e) = super::check_profile_name(name) {
            warn(format!("[profiles.{name}]: {e}"));
        }
        if let Some(url) = &profile.base_url
            && let Err(e) = crate::api::check_base_url(url)
        {
            warn(format!("[profiles.{name}] base_url: {}", e.message));
        }
    }
    if let Some(ca) = &s.network.ca_file
        && !ca.is_file()
    {
        warn(format!(
            "[network] ca_file {} does not exist or is not a file",
            ca.display()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ui_currency_is_a_three_letter_code() {
        let l = parse("[ui]\ncurrency = \"eur\"\n", "cfg.toml");
        assert_eq!(l.settings.ui.currency.as_deref(), Some("EUR"));
        assert!(l.warnings.is_empty(), "{:?}", l.warnings);
        let l = parse("[ui]\ncurrency = \"euros\"\n", "cfg.toml");
        assert_eq!(l.settings.ui.currency, None);
        assert!(
            l.warnings[0].contains("[ui] currency = \"euros\""),
            "{:?}",
            l.warnings
        );
    }

    #[test]
    fn good_file_is_read_whole() {
        let text = r#"
default_profile = "work"
[profiles.work]
base_url = "https://crm.example.com"
[reschedule]
start_field = "starts_at"
end_field = ""
timezone = "Europe/Berlin"
[ui]
theme = "16"
refresh_seconds = 30
per_page = 50
mouse = false
[keys]
filter = ["ctrl-s", "f2"]
[network]
"#;
        let l = parse(text, "test");
        assert!(l.warnings.is_empty(), "{:?}", l.warnings);
        let s = l.settings;
        assert_eq!(s.default_profile.as_deref(), Some("work"));
        assert_eq!(
            s.profiles["work"].base_url.as_deref(),
            Some("https://crm.example.com")
        );
        assert_eq!(s.reschedule.start_field, "starts_at");
        assert_eq!(s.reschedule.end_field, "");
        assert!(!s.reschedule.fields_are_defaults);
        assert_eq!(s.reschedule.timezone, "Europe/Berlin");
        assert_eq!(
            (s.ui.per_page, s.ui.refresh_seconds, s.ui.mouse),
            (50, 30, false)
        );
        assert_eq!(s.keys["filter"], vec!["ctrl-s", "f2"]);
    }

    #[test]
    fn per_page_is_flagged_only_when_the_file_sets_a_usable_one() {
        assert!(parse("[ui]\nper_page = 50\n", "t").settings.ui.per_page_set);
        assert!(!parse("[ui]\nmouse = false\n", "t").settings.ui.per_page_set);
        let bad = parse("[ui]\nper_page = 30\n", "t");
        assert!(!bad.settings.ui.per_page_set);
        assert_eq!(bad.settings.ui.per_page, 25);
    }

    #[test]
    fn empty_file_is_defaults_with_fields_flagged() {
        let l = parse("", "test");
        assert!(l.warnings.is_empty());
        assert_eq!(l.settings, Settings::default());
        assert!(l.settings.reschedule.fields_are_defaults);
        assert_eq!(l.settings.reschedule.start_field, "start_time");
        assert_eq!(l.settings.reschedule.end_field, "end_time");
    }

    #[test]
    fn bad_toml_names_the_line_and_falls_back() {
        let l = parse("[ui]\nper_page = 25\nmouse = tru\n", "cfg.toml");
        assert_eq!(l.settings, Settings::default());
        assert_eq!(l.warnings.len(), 1);
        assert!(
            l.warnings[0].contains("cfg.toml, line 3"),
            "{}",
            l.warnings[0]
        );
        assert!(l.warnings[0].contains("using defaults"));
    }

    #[test]
    fn wrong_type_names_the_line() {
        let l = parse("\n\n[ui]\nper_page = \"many\"\n", "cfg.toml");
        assert_eq!(l.settings, Settings::default());
        assert!(l.warnings[0].contains("line 4"), "{}", l.warnings[0]);
    }

    #[test]
    fn unknown_keys_warn_but_the_rest_is_kept() {
        let l = parse("colour = 1\n[ui]\nper_page = 10\nfancy = true\n", "t");
        assert_eq!(l.settings.ui.per_page, 10);
        assert_eq!(l.warnings.len(), 2, "{:?}", l.warnings);
        assert!(l.warnings.iter().any(|w| w.contains("'colour'")));
        assert!(l.warnings.iter().any(|w| w.contains("'ui.fancy'")));
    }

    #[test]
    fn unknown_actions_warn_once_and_thousands_of_keys_are_counted() {
        let mut text = String::from("[keys]\nfly = [\"x\"]\nfilter = [\"ctrl-f\"]\n[ui]\n");
        for i in 0..1000 {
            text.push_str(&format!("k{i} = 1\n"));
        }
        let l = parse(&text, "t");
        assert_eq!(l.warnings.len(), MAX_UNKNOWN_LISTED + 1, "{:?}", l.warnings);
        assert!(l.warnings[0].contains("'keys.fly'"), "{:?}", l.warnings);
        assert!(l.warnings[MAX_UNKNOWN_LISTED].contains("981 more unknown keys"));
        // Dropped: the dashboard's key map has nothing left to warn about.
        assert!(!l.settings.keys.contains_key("fly"));
        assert!(l.settings.keys.contains_key("filter"));
    }

    #[test]
    fn invalid_values_warn_and_use_defaults() {
        let text = "[ui]\nper_page = 30\ntheme = \"neon\"\n[reschedule]\ntimezone = \"Mars/Base\"\n[keys]\nquit = [\"q\", \"hyper-q\"]\n[profiles.x]\nbase_url = \"http://crm.example.com\"\n";
        let l = parse(text, "t");
        let s = &l.settings;
        assert_eq!(s.ui.per_page, 25);
        assert_eq!(s.ui.theme, "default");
        assert_eq!(s.reschedule_zone(), "local");
        assert_eq!(s.keys["quit"], vec!["q"]);
        assert!(s.reschedule.fields_are_defaults);
        let all = l.warnings.join("\n");
        for needle in [
            "per_page = 30",
            "neon",
            "Mars/Base",
            "hyper-q",
            "clear text",
        ] {
            assert!(all.contains(needle), "missing {needle} in {all}");
        }
    }

    #[test]
    fn missing_file_is_defaults_and_unreadable_warns() {
        let dir = tempfile::tempdir().unwrap();
        let l = load(Some(&dir.path().join("none.toml")));
        assert_eq!(l, Loaded::default());
        let l = load(Some(dir.path()));
        assert_eq!(l.settings, Settings::default());
        assert!(l.warnings[0].contains("cannot read"), "{:?}", l.warnings);
    }

    #[test]
    fn loading_never_modifies_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.toml");
        let text = "# mine\n[ui]\nper_page = 7\nbogus = 1\n";
        std::fs::write(&p, text).unwrap();
        let l = load(Some(&p));
        assert_eq!(l.warnings.len(), 2);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), text);
    }
}
