//! The form's fields, their error messages, and how the server's field-error keys map onto them.

use std::collections::BTreeMap;
use std::fmt;

/// A field of the new-contact form, in the form's order (so the first error is the first
/// field to focus); `Form` holds errors about the whole form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ContactField {
    FirstName,
    LastName,
    Email,
    Phone,
    Extra,
    Form,
}

impl ContactField {
    /// The body key the server knows the field by, for the four known fields.
    pub fn server_key(self) -> Option<&'static str> {
        match self {
            ContactField::FirstName => Some("first_name"),
            ContactField::LastName => Some("last_name"),
            ContactField::Email => Some("email"),
            ContactField::Phone => Some("phone"),
            ContactField::Extra | ContactField::Form => None,
        }
    }
}

impl fmt::Display for ContactField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ContactField::FirstName => "first name",
            ContactField::LastName => "last name",
            ContactField::Email => "email",
            ContactField::Phone => "phone",
            ContactField::Extra => "extra attributes",
            ContactField::Form => "contact",
        })
    }
}

/// One message per field that failed. `Display` lists them all, `field: message; ...`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldErrors(pub BTreeMap<ContactField, String>);

impl FieldErrors {
    /// The first error in form order.
    pub fn first(&self) -> Option<(ContactField, &str)> {
        self.0.iter().next().map(|(f, m)| (*f, m.as_str()))
    }

    pub fn get(&self, field: ContactField) -> Option<&str> {
        self.0.get(&field).map(String::as_str)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Adds a message; a second message for the same field is appended after `; `.
    pub fn insert(&mut self, field: ContactField, message: String) {
        self.0
            .entry(field)
            .and_modify(|m| {
                m.push_str("; ");
                m.push_str(&message);
            })
            .or_insert(message);
    }

    pub fn iter(&self) -> impl Iterator<Item = (ContactField, &str)> {
        self.0.iter().map(|(f, m)| (*f, m.as_str()))
    }
}

impl fmt::Display for FieldErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (field, msg)) in self.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            match field {
                ContactField::Form => write!(f, "{msg}")?,
                _ => write!(f, "{field}: {msg}")?,
            }
        }
        Ok(())
    }
}

impl std::error::Error for FieldErrors {}

/// Where a server field-error key (`email`, `data.email`, `phone_number`, `tags.0`) belongs:
/// one of the four known fields, `Form` for keys about the whole request (`""`, `message`,
/// `name`), and `Extra` for any other key (an extra attribute, or one the service requires).
pub fn field_for_server_key(key: &str) -> ContactField {
    let k = key.trim().to_ascii_lowercase().replace('-', "_");
    // Laravel nests as `data.email` or `contact.email`; arrays as `tags.0`.
    let k = k
        .strip_prefix("data.")
        .or_else(|| k.strip_prefix("contact."))
        .unwrap_or(&k);
    let head = k.split(['.', '[']).next().unwrap_or_default();
    match head {
        "first_name" | "firstname" | "given_name" => ContactField::FirstName,
        "last_name" | "lastname" | "surname" | "family_name" => ContactField::LastName,
        "email" | "email_address" | "mail" => ContactField::Email,
        "phone" | "phone_number" | "telephone" | "mobile" => ContactField::Phone,
        "" | "_" | "message" | "general" | "non_field_errors" | "base" | "name" | "full_name"
        | "contact" | "data" => ContactField::Form,
        _ => ContactField::Extra,
    }
}

/// A server's field errors (from `ApiError::field_errors`) laid onto the form: messages of
/// one field joined; messages about an extra key say which key.
pub fn server_field_errors(errors: &BTreeMap<String, Vec<String>>) -> FieldErrors {
    let mut out = FieldErrors::default();
    for (key, msgs) in errors {
        let field = field_for_server_key(key);
        let text = msgs.join("; ");
        let text = if field == ContactField::Extra {
            format!("{key}: {text}")
        } else {
            text
        };
        out.insert(field, text);
    }
    out
}
