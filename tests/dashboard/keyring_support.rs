//! An in-memory keyring for the dashboard tests: holds tokens, can be unreachable (every call
//! fails as with no D-Bus session), or can hold every read until the test releases it (an
//! unlock prompt nobody answers).
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::mpsc::Receiver;

use crmdash::credentials::{StoreError, StoreErrorKind, TokenStore};
use secrecy::{ExposeSecret, SecretString};

#[derive(Default)]
pub struct TestStore {
    pub tokens: Mutex<HashMap<String, String>>,
    pub unreachable: bool,
    pub gate: Option<Mutex<Receiver<()>>>,
}

impl TestStore {
    /// A store holding `token` for `profile`, if given.
    pub fn holding(profile: &str, token: Option<&str>) -> TestStore {
        let store = TestStore::default();
        if let Some(t) = token {
            store
                .tokens
                .lock()
                .unwrap()
                .insert(profile.to_string(), t.to_string());
        }
        store
    }

    pub fn token(&self, profile: &str) -> Option<String> {
        self.tokens.lock().unwrap().get(profile).cloned()
    }

    fn reachable(&self) -> Result<(), StoreError> {
        if self.unreachable {
            return Err(StoreError::new(
                StoreErrorKind::Unavailable,
                "no D-Bus session bus",
            ));
        }
        Ok(())
    }
}

impl TokenStore for TestStore {
    fn name(&self) -> String {
        "test keyring".into()
    }
    fn get(&self, profile: &str) -> Result<Option<SecretString>, StoreError> {
        if let Some(gate) = &self.gate {
            let _ = gate.lock().unwrap().recv();
        }
        self.reachable()?;
        Ok(self.token(profile).map(SecretString::from))
    }
    fn set(&self, profile: &str, token: &SecretString) -> Result<(), StoreError> {
        self.reachable()?;
        self.tokens
            .lock()
            .unwrap()
            .insert(profile.into(), token.expose_secret().to_string());
        Ok(())
    }
    fn delete(&self, profile: &str) -> Result<bool, StoreError> {
        self.reachable()?;
        Ok(self.tokens.lock().unwrap().remove(profile).is_some())
    }
}
