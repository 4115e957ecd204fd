//! `o`: the selected record's page in the web UI, from the active profile's `web_url`
//! template (`https://crm.example.com/{resource}/{id}`). Only the address is handed on,
//! never the token; the runtime opens it or, when no browser can start, shows it.

use super::App;
use crate::app::dialogs::Overlay;
use crate::app::dialogs::notice::Notice;
use crate::app::effects::Effect;
use crate::resource::Resource;

/// The template filled in: `{resource}` (`deals`) and `{id}` (percent-encoded).
pub fn record_url(template: &str, kind: Resource, id: &str) -> Result<String, String> {
    if !template.contains("{id}") {
        return Err(format!(
            "web_url \"{template}\" has no {{id}}: write it like https://crm.example.com/{{resource}}/{{id}}"
        ));
    }
    // A path segment: everything but unreserved characters escaped (a space is %20, never
    // the `+` of form encoding, and `/` cannot open another path).
    const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    let id = percent_encoding::utf8_percent_encode(id, SEGMENT).to_string();
    let url = template
        .replace("{resource}", kind.noun())
        .replace("{id}", &id);
    match url::Url::parse(&url) {
        Ok(u) if matches!(u.scheme(), "https" | "http") => Ok(u.to_string()),
        Ok(u) => Err(format!(
            "web_url gives a {} address ({url}): use https://",
            u.scheme()
        )),
        Err(e) => Err(format!("web_url gives no valid address ({url}): {e}")),
    }
}

impl App {
    /// `o` on the table (or `:open`).
    pub(crate) fn open_web(&mut self) -> Vec<Effect> {
        let kind = self.active;
        let Some(id) = self.tab().selected_record().map(|r| r.id.clone()) else {
            self.note(format!("No {} selected to open", kind.singular()));
            return Vec::new();
        };
        let profile = self.workspace.profile.clone();
        // Whole, in a dialog: the status bar cut this even at 160 columns.
        let Some(template) = self.workspace.web_url().map(str::to_string) else {
            self.overlays.push(Overlay::Notice(Notice {
                title: "Open in the browser".into(),
                text: format!(
                    "Profile {profile} has no web_url, the address template o fills in. \
                     Add this line under [profiles.{profile}] in config.toml \
                     ({{resource}}: contacts, deals or projects):"
                ),
                copy: Some("web_url = \"https://crm.example.com/{resource}/{id}\"".to_string()),
            }));
            self.dirty = true;
            return Vec::new();
        };
        match record_url(&template, kind, &id) {
            Ok(url) => {
                self.note(format!("Opening {url}"));
                vec![Effect::OpenUrl { url }]
            }
            Err(e) => {
                self.overlays.push(Overlay::Notice(Notice {
                    title: "Open in the browser".into(),
                    text: format!("Profile {profile}: {e}"),
                    copy: None,
                }));
                self.dirty = true;
                Vec::new()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_the_template() {
        assert_eq!(
            record_url(
                "https://crm.example.com/{resource}/{id}",
                Resource::Deals,
                "7"
            )
            .unwrap(),
            "https://crm.example.com/deals/7"
        );
        assert_eq!(
            record_url("https://x.test/r?id={id}", Resource::Contacts, "a b/c").unwrap(),
            "https://x.test/r?id=a%20b%2Fc"
        );
        // In the path, a space is %20 (never `+`, which a path keeps as a plus) and `/`
        // cannot open another segment; unreserved characters stay.
        assert_eq!(
            record_url(
                "https://x.test/{resource}/{id}",
                Resource::Deals,
                "d 1/ü-_.~"
            )
            .unwrap(),
            "https://x.test/deals/d%201%2F%C3%BC-_.~"
        );
        assert!(
            record_url("https://x.test/", Resource::Deals, "7")
                .unwrap_err()
                .contains("{id}")
        );
        assert!(record_url("file:///{id}", Resource::Deals, "7").is_err());
    }
}
