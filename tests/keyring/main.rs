//! A real Secret Service (run under ../shared/ci/with-secret-service.sh): kept in a binary of its
//! own because it talks to the session's one keyring daemon.

mod secret_service;
