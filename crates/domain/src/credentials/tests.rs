//! Unit tests over keyring-core's mock store: storage, failures, and the token rules.

use std::sync::Arc;
use std::time::Duration;

use keyring_core::api::CredentialStoreApi;
use keyring_core::mock;
use secrecy::{ExposeSecret, SecretString};

use super::*;
use crate::config::{Profile, Settings};

const TOKEN: &str = "tok_live_5f3a9c0d2e7b41aa";

fn mock_store() -> (Arc<mock::Store>, Keyring) {
    let raw = mock::Store::new().unwrap();
    let keyring = Keyring::with_store(Arc::new(KeyringStore::new(raw.clone(), "mock")));
    (raw, keyring)
}

/// Makes the next call on the profile's mock entry fail with `err`.
fn inject(raw: &mock::Store, profile: &str, err: keyring_core::Error) {
    let entry = raw.build(SERVICE, profile, None).unwrap();
    let cred: &mock::Cred = entry.as_any().downcast_ref().unwrap();
    cred.set_error(err);
}

fn settings_with(profile: &str, url: &str) -> Settings {
    let mut s = Settings::default();
    s.profiles.insert(
        profile.into(),
        Profile {
            base_url: Some(url.into()),
            ..Profile::default()
        },
    );
    s
}

fn secret(s: &str) -> SecretString {
    SecretString::from(s.to_string())
}

#[tokio::test]
async fn set_get_delete_round_trip() {
    let (_raw, k) = mock_store();
    assert!(k.get("work").await.unwrap().is_none());
    k.set("work", secret(TOKEN)).await.unwrap();
    assert_eq!(k.get("work").await.unwrap().unwrap().expose_secret(), TOKEN);
    assert!(k.get("other").await.unwrap().is_none());
    assert!(k.delete("work").await.unwrap());
    assert!(!k.delete("work").await.unwrap());
    assert!(k.get("work").await.unwrap().is_none());
}

#[tokio::test]
async fn injected_failures_become_clear_errors() {
    let (raw, k) = mock_store();
    k.set("work", secret(TOKEN)).await.unwrap();

    inject(
        &raw,
        "work",
        keyring_core::Error::NoStorageAccess("collection is locked".into()),
    );
    let e = k.get("work").await.unwrap_err();
    assert!(matches!(e, CredentialError::KeyringLocked { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("locked") && msg.contains("CRMDASH_TOKEN"),
        "{msg}"
    );

    inject(&raw, "work", keyring_core::Error::NoDefaultStore);
    let e = k
        .set("work", secret("another_token_123"))
        .await
        .unwrap_err();
    assert!(
        matches!(e, CredentialError::KeyringUnavailable { .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("unreachable"), "{e}");

    inject(
        &raw,
        "work",
        keyring_core::Error::BadEncoding(TOKEN.as_bytes().to_vec()),
    );
    let e = k.get("work").await.unwrap_err();
    assert!(
        e.to_string().contains("crmdash login --profile work"),
        "{e}"
    );
    assert!(!format!("{e} {e:?}").contains(TOKEN));

    inject(
        &raw,
        "work",
        keyring_core::Error::PlatformFailure("dbus broke".into()),
    );
    let e = k.delete("work").await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "the OS keyring (mock) could not delete the token: dbus broke"
    );

    // The errors were one-shot: the token is still there and unchanged.
    assert_eq!(k.get("work").await.unwrap().unwrap().expose_secret(), TOKEN);
}

/// A store whose calls never return, like an unlock prompt nobody answers.
struct Stuck;
impl TokenStore for Stuck {
    fn name(&self) -> String {
        "stuck".into()
    }
    fn get(&self, _: &str) -> Result<Option<SecretString>, StoreError> {
        std::thread::park();
        Ok(None)
    }
    fn set(&self, _: &str, _: &SecretString) -> Result<(), StoreError> {
        std::thread::park();
        Ok(())
    }
    fn delete(&self, _: &str) -> Result<bool, StoreError> {
        std::thread::park();
        Ok(false)
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_hung_store_times_out_instead_of_blocking() {
    let k = Keyring::with_store(Arc::new(Stuck)).with_timeout(Duration::from_millis(50));
    let e = k.get("work").await.unwrap_err();
    assert!(matches!(e, CredentialError::KeyringTimeout { .. }), "{e:?}");
    assert!(e.to_string().contains("CRMDASH_TOKEN"));
}

/// A store that panics, as zbus does when it meets a runtime it does not expect.
struct Panicky;
impl TokenStore for Panicky {
    fn name(&self) -> String {
        "panicky".into()
    }
    fn get(&self, _: &str) -> Result<Option<SecretString>, StoreError> {
        panic!("store exploded")
    }
    fn set(&self, _: &str, _: &SecretString) -> Result<(), StoreError> {
        panic!("store exploded")
    }
    fn delete(&self, _: &str) -> Result<bool, StoreError> {
        panic!("store exploded")
    }
}

#[tokio::test]
async fn a_panicking_store_is_an_error_not_a_crash() {
    let k = Keyring::with_store(Arc::new(Panicky));
    let e = k.delete("work").await.unwrap_err();
    assert!(e.to_string().contains("failed unexpectedly"), "{e}");
}

#[tokio::test]
async fn env_token_overrides_keyring_and_any_base_url() {
    let (_raw, k) = mock_store();
    k.set("work", secret(TOKEN)).await.unwrap();
    let s = settings_with("work", "https://crm.example.com");
    let got = resolve_token_with(
        &k,
        Some(secret("env_token_abcdef")),
        "work",
        "https://elsewhere.example.com",
        &s,
    )
    .await
    .unwrap();
    assert_eq!(got.origin, TokenOrigin::Env);
    assert_eq!(got.token.expose_secret(), "env_token_abcdef");
}

#[tokio::test]
async fn keyring_token_goes_only_to_the_saved_base_url() {
    let (_raw, k) = mock_store();
    k.set("work", secret(TOKEN)).await.unwrap();
    let s = settings_with("work", "https://crm.example.com/");

    let got = resolve_token_with(&k, None, "work", "https://CRM.example.com", &s)
        .await
        .unwrap();
    assert_eq!(got.origin, TokenOrigin::Keyring);
    assert_eq!(got.token.expose_secret(), TOKEN);

    let e = resolve_token_with(&k, None, "work", "https://evil.example.net", &s)
        .await
        .unwrap_err();
    assert!(
        matches!(e, CredentialError::BaseUrlMismatch { .. }),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(msg.contains("https://evil.example.net") && msg.contains("https://crm.example.com"));
    assert!(!msg.contains(TOKEN));
}

#[tokio::test]
async fn keyring_token_without_saved_url_is_refused() {
    let (_raw, k) = mock_store();
    k.set("work", secret(TOKEN)).await.unwrap();
    let e = resolve_token_with(
        &k,
        None,
        "work",
        "https://crm.example.com",
        &Settings::default(),
    )
    .await
    .unwrap_err();
    assert!(matches!(e, CredentialError::NoSavedBaseUrl { .. }), "{e:?}");
}

#[tokio::test]
async fn no_token_anywhere_says_how_to_log_in() {
    let (_raw, k) = mock_store();
    let s = settings_with("work", "https://crm.example.com");
    let e = resolve_token_with(&k, None, "work", "https://crm.example.com", &s)
        .await
        .unwrap_err();
    assert_eq!(
        e,
        CredentialError::NotLoggedIn {
            profile: "work".into()
        }
    );
    assert!(e.to_string().contains("crmdash login --profile work"));
}

#[test]
fn tokens_are_checked_and_never_shown() {
    assert_eq!(check_token("  abc123\n").unwrap().expose_secret(), "abc123");
    assert_eq!(check_token(" \n").unwrap_err(), CredentialError::EmptyToken);
    assert_eq!(
        check_token("ab c").unwrap_err(),
        CredentialError::MalformedToken
    );
    assert_eq!(
        check_token("abç").unwrap_err(),
        CredentialError::MalformedToken
    );
    let src = TokenSource {
        token: secret(TOKEN),
        origin: TokenOrigin::Keyring,
    };
    assert!(!format!("{src:?}").contains(TOKEN));
    assert_eq!(token_hint(&secret(TOKEN)), "…41aa");
    assert_eq!(token_hint(&secret("short")), "…");
}

#[test]
fn the_quick_checks_decide_without_the_keyring() {
    // What the dashboard settles before its first frame: env token, or a refusal, or "ask
    // the keyring" (None). No keyring is passed, so none can be touched.
    let s = settings_with("work", "https://crm.example.com/");
    let env = token_without_keyring(Some(secret(TOKEN)), "work", "https://other.example", &s)
        .unwrap()
        .unwrap();
    assert_eq!(env.origin, TokenOrigin::Env);
    let e = token_without_keyring(None, "work", "https://evil.example.net", &s).unwrap_err();
    assert!(
        matches!(e, CredentialError::BaseUrlMismatch { .. }),
        "{e:?}"
    );
    assert!(
        token_without_keyring(None, "work", "https://crm.example.com", &s)
            .unwrap()
            .is_none()
    );
    assert!(
        token_without_keyring(None, "new", "https://crm.example.com", &s)
            .unwrap()
            .is_none(),
        "a profile without a saved URL is for the keyring read to judge"
    );
}
