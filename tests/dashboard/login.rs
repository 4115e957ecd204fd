//! The login dialog through `App::update`: masked input, the token checked before anything
//! else, never shown in `Debug` output, errors keep the dialog, success loads the data.

use crate::dashboard_support;

use crmdash::app::dialogs::Overlay;
use crmdash::app::dialogs::login::{LoginDialog, LoginStage};
use crmdash::app::{Effect, Message};
use crossterm::event::KeyCode;
use dashboard_support::Harness;

const TOKEN: &str = "tok_live_5f3a9c1e77";

fn open() -> Harness {
    let mut h = Harness::new((100, 30));
    h.answer_all();
    h.app.open_login();
    h
}

fn dialog(h: &Harness) -> Option<&LoginDialog> {
    h.app.overlays.iter().find_map(|o| match o {
        Overlay::Login(d) => Some(d),
        _ => None,
    })
}

#[test]
fn the_token_is_masked_and_never_in_debug_output() {
    let mut h = open();
    h.type_str(TOKEN);
    let d = dialog(&h).unwrap();
    assert_eq!(d.masked().value(), "•".repeat(TOKEN.len()));
    assert!(!h.render().contains(TOKEN));
    let fx = h.key(KeyCode::Enter);
    assert!(matches!(fx.as_slice(), [Effect::Login { .. }]), "{fx:?}");
    let shown = format!("{fx:?}");
    assert!(!shown.contains(TOKEN), "{shown}");
    assert!(matches!(
        dialog(&h).unwrap().stage,
        LoginStage::Verifying(_)
    ));
    assert!(h.app.busy());
}

#[test]
fn q_is_typed_not_quit_and_an_empty_token_is_refused() {
    let mut h = open();
    h.key(KeyCode::Enter);
    assert!(
        dialog(&h).unwrap().error.is_some(),
        "empty token refused locally"
    );
    h.type_str("q");
    assert!(!h.app.quitting);
    assert_eq!(dialog(&h).unwrap().input.value(), "q");
}

#[test]
fn a_refused_token_keeps_the_dialog_with_the_reason() {
    let mut h = open();
    h.type_str(TOKEN);
    let fx = h.key(KeyCode::Enter);
    let Some(Effect::Login { id, .. }) = fx.first() else {
        panic!("{fx:?}")
    };
    h.send(Message::LoggedIn {
        id: *id,
        result: Box::new(Err("The service did not accept this token (401)".into())),
    });
    let d = dialog(&h).unwrap();
    assert_eq!(d.stage, LoginStage::Asking);
    assert!(d.error.as_deref().unwrap().contains("401"));
    assert_eq!(d.input.value(), TOKEN, "kept for correction");
}
