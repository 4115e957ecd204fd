//! Writing a profile's base URL into the config file with `toml_edit`, so the user's other
//! keys, comments and layout survive. The only write crmdash makes to the file.

use std::path::Path;

use toml_edit::{DocumentMut, Item, Table, value};

use super::ConfigError;

/// Sets `[profiles.PROFILE] base_url = BASE_URL` in the file at `path` (created, with its
/// folder, when missing). A file that does not parse is left alone and reported.
pub fn save_profile_base_url(
    path: &Path,
    profile: &str,
    base_url: &str,
) -> Result<(), ConfigError> {
    super::check_profile_name(profile)?;
    let mut doc = read_document(path, "the base URL")?;
    let profiles = top_table(&mut doc, "profiles", path)?;
    let entry = profiles
        .entry(profile)
        .or_insert_with(|| Item::Table(Table::new()))
        .as_table_like_mut()
        .ok_or_else(|| file_error(path, format!("'profiles.{profile}' is not a table")))?;
    entry.insert("base_url", value(base_url));
    write_atomically(path, doc.to_string().as_bytes())
        .map_err(|e| file_error(path, format!("cannot write it: {e}")))
}

fn file_error(path: &Path, message: String) -> ConfigError {
    ConfigError::File {
        path: path.display().to_string(),
        message,
    }
}

/// The TOML file at `path` for editing (empty when missing). A file that does not parse
/// is reported with its line and left alone; `what` names what was being saved.
pub(super) fn read_document(path: &Path, what: &str) -> Result<DocumentMut, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(file_error(path, format!("cannot read it: {e}"))),
    };
    text.parse().map_err(|e: toml_edit::TomlError| {
        let line = e
            .span()
            .map(|s| format!("line {}: ", text[..s.start].matches('\n').count() + 1))
            .unwrap_or_default();
        file_error(
            path,
            format!(
                "{line}{}; fix it before saving {what} (the file was not changed)",
                e.message().trim()
            ),
        )
    })
}

/// The top-level table `key` (`[profiles]`, `[views]`), created implicit (only its
/// sub-tables are written) when missing.
pub(super) fn top_table<'a>(
    doc: &'a mut DocumentMut,
    key: &str,
    path: &Path,
) -> Result<&'a mut Table, ConfigError> {
    doc.entry(key)
        .or_insert_with(|| {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        })
        .as_table_mut()
        .ok_or_else(|| file_error(path, format!("'{key}' is not a table")))
}

/// Writes beside the target and renames over it, so a crash never leaves half a file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preserves_comments_and_other_keys() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        let before = "# my settings\ndefault_profile = \"work\" # the usual one\n\n[ui]\n# small pages\nper_page = 10\n\n[profiles.work]\nbase_url = \"https://old.example.com\" # old\n";
        std::fs::write(&p, before).unwrap();
        save_profile_base_url(&p, "work", "https://new.example.com").unwrap();
        save_profile_base_url(&p, "staging", "https://staging.example.com").unwrap();
        let after = std::fs::read_to_string(&p).unwrap();
        for kept in [
            "# my settings",
            "# the usual one",
            "# small pages",
            "per_page = 10",
        ] {
            assert!(after.contains(kept), "lost {kept:?}:\n{after}");
        }
        assert!(!after.contains("old.example.com"));
        let l = crate::config::load::parse(&after, "t");
        assert!(l.warnings.is_empty(), "{:?}", l.warnings);
        assert_eq!(
            l.settings.profiles["work"].base_url.as_deref(),
            Some("https://new.example.com")
        );
        assert_eq!(
            l.settings.profiles["staging"].base_url.as_deref(),
            Some("https://staging.example.com")
        );
        assert_eq!(l.settings.ui.per_page, 10);
    }

    #[test]
    fn creates_a_missing_file_and_folder() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b/config.toml");
        save_profile_base_url(&p, "default", "https://crm.example.com").unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains("[profiles.default]"), "{text}");
        assert!(!text.contains("[profiles]\n"), "{text}");
    }

    #[test]
    fn a_broken_file_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        std::fs::write(&p, "[ui\nper_page = 10\n").unwrap();
        let e = save_profile_base_url(&p, "default", "https://x.example.com").unwrap_err();
        assert!(e.to_string().contains("line 1"), "{e}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "[ui\nper_page = 10\n");
    }
}
