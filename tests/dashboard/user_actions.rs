//! User actions (`[actions.NAME]`): the argv built from the template (a fake program records
//! what it gets), hostile values one argument with and without `shell = true`, each and list
//! modes over several records, clear errors, keys checked like `[keys]`, and the dashboard's
//! key, `:run NAME`, confirmation and help.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crmdash::app::keymap::KeyMap;
use crmdash::app::{Effect, Resource};
use crmdash::user_actions::{self, ActionConfig, Mode, Target, UserAction};
use crossterm::event::KeyCode;
use serde_json::json;

use crate::dashboard_support::Harness;

const HOSTILE: &str = "; rm -rf ~ $(touch pwned) `touch pwned2` 'quote\" \\";

fn action(name: &str, c: ActionConfig) -> (Vec<UserAction>, Vec<String>) {
    let mut m = BTreeMap::new();
    m.insert(name.to_string(), c);
    user_actions::from_settings(&m, &KeyMap::default())
}

fn one(c: ActionConfig) -> UserAction {
    let (mut a, w) = action("mail", c);
    assert!(w.is_empty(), "{w:?}");
    a.remove(0)
}

fn contact(id: &str, email: &str, first: &str) -> Target {
    Target {
        kind: Resource::Contacts,
        id: id.into(),
        record: json!({"id": id, "email": email, "first_name": first,
                        "account": {"name": "Acme GmbH"}, "tags": ["vip", "de"]}),
        web_url: Some(format!("https://crm.example.com/contacts/{id}")),
    }
}

fn run(args: &[&str]) -> ActionConfig {
    ActionConfig {
        run: args.iter().map(|s| s.to_string()).collect(),
        ..ActionConfig::default()
    }
}

/// A program that writes each argument it gets, NUL-terminated, to `out`.
fn fake_program(dir: &Path) -> (PathBuf, PathBuf) {
    let prog = dir.join("fake");
    let out = dir.join("argv");
    std::fs::write(
        &prog,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > '{}'\n",
            out.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o755)).unwrap();
    (prog, out)
}

fn recorded(out: &Path) -> Vec<String> {
    let bytes = std::fs::read(out).unwrap();
    bytes
        .split(|b| *b == 0)
        .filter(|s| !s.is_empty())
        .map(|s| String::from_utf8(s.to_vec()).unwrap())
        .collect()
}

#[test]
fn the_argv_is_the_template_with_each_placeholder_one_argument() {
    let a = one(run(&[
        "mutt",
        "-s",
        "Hello {first_name}",
        "{email}",
        "{account.name}",
        "{tags.0}",
        "{id}",
        "{profile}",
        "{web_url}",
        "{{literal}}",
    ]));
    let argvs = user_actions::plan(&a, &[contact("c1", "ada@example.com", "Ada")], "work").unwrap();
    assert_eq!(
        argvs,
        [[
            "mutt",
            "-s",
            "Hello Ada",
            "ada@example.com",
            "Acme GmbH",
            "vip",
            "c1",
            "work",
            "https://crm.example.com/contacts/c1",
            "{literal}"
        ]]
    );
}

#[test]
fn a_hostile_value_reaches_the_program_as_one_argument_with_and_without_a_shell() {
    let dir = tempfile::tempdir().unwrap();
    let (prog, out) = fake_program(dir.path());
    let target = contact("c1", "ada@example.com", HOSTILE);

    let a = one(run(&[prog.to_str().unwrap(), "{first_name}", "{email}"]));
    let argvs = user_actions::plan(&a, std::slice::from_ref(&target), "work").unwrap();
    let status = user_actions::command(&argvs[0])
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(recorded(&out), [HOSTILE, "ada@example.com"]);

    let line = format!("{} {{first_name}} {{email}} | cat", prog.display());
    let a = one(ActionConfig {
        shell: true,
        ..run(&[&line])
    });
    let argvs = user_actions::plan(&a, &[target], "work").unwrap();
    assert_eq!(argvs[0][0..2], ["sh", "-c"]);
    std::fs::remove_file(&out).unwrap();
    let status = user_actions::command(&argvs[0])
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(recorded(&out), [HOSTILE, "ada@example.com"]);
    assert!(!dir.path().join("pwned").exists() && !dir.path().join("pwned2").exists());
}

#[test]
fn each_runs_once_per_record_and_list_placeholders_take_every_record() {
    let chosen = [
        contact("c1", "a@example.com", "A"),
        contact("c2", "b@example.com", "B"),
        contact("c3", "c@example.com", "C"),
    ];
    let each = one(ActionConfig {
        each: true,
        ..run(&["notify", "{id}:{email}"])
    });
    assert_eq!(
        user_actions::plan(&each, &chosen, "p").unwrap(),
        [
            ["notify", "c1:a@example.com"],
            ["notify", "c2:b@example.com"],
            ["notify", "c3:c@example.com"]
        ]
    );
    let list = one(run(&["mail", "--bcc", "{emails}", "--ids", "{ids}"]));
    assert_eq!(
        user_actions::plan(&list, &chosen, "p").unwrap(),
        [[
            "mail",
            "--bcc",
            "a@example.com",
            "b@example.com",
            "c@example.com",
            "--ids",
            "c1",
            "c2",
            "c3"
        ]]
    );
    let shell_list = one(ActionConfig {
        shell: true,
        ..run(&["echo {emails}"])
    });
    assert_eq!(
        user_actions::plan(&shell_list, &chosen[..2], "p").unwrap()[0][2],
        "echo a@example.com b@example.com"
    );
    // One record's value with three records chosen: said, nothing runs.
    let scalar = one(run(&["mutt", "{email}"]));
    let e = user_actions::plan(&scalar, &chosen, "p").unwrap_err();
    assert!(
        e.contains("set each = true, or use {ids} / {emails}"),
        "{e}"
    );
}

#[test]
fn a_missing_field_is_a_clear_message_not_an_empty_argument() {
    let a = one(run(&["dial", "{phone}"]));
    let e = user_actions::plan(&a, &[contact("c9", "x@example.com", "X")], "p").unwrap_err();
    assert_eq!(
        e,
        "actions.mail: contact c9 has no phone (the placeholder {phone})"
    );
    let a = one(run(&["open", "{web_url}"]));
    let mut t = contact("c9", "x@example.com", "X");
    t.web_url = None;
    let e = user_actions::plan(&a, &[t], "p").unwrap_err();
    assert!(e.contains("set [ui] web_url"), "{e}");
    let deals_only = one(ActionConfig {
        on: vec!["deals".into()],
        ..run(&["x", "{id}"])
    });
    let e = user_actions::plan(&deals_only, &[contact("c1", "a@b.c", "A")], "p").unwrap_err();
    assert_eq!(e, "actions.mail: runs on deals, not contacts");
}

#[test]
fn keys_and_mistakes_are_checked_like_keys_rebindings() {
    let (a, w) = action(
        "mail",
        ActionConfig {
            key: Some("r".into()),
            ..run(&["mutt", "{email}"])
        },
    );
    assert_eq!(
        w,
        [
            "actions.mail: key = \"r\" refused: r is already refresh on the main screen; :run mail runs it"
        ]
    );
    assert_eq!(a[0].key, None, "still usable from the palette");
    let mut m = BTreeMap::new();
    m.insert(
        "a".to_string(),
        ActionConfig {
            key: Some("M".into()),
            ..run(&["x"])
        },
    );
    m.insert(
        "b".to_string(),
        ActionConfig {
            key: Some("M".into()),
            ..run(&["y"])
        },
    );
    m.insert("c".to_string(), ActionConfig::default());
    m.insert(
        "d".to_string(),
        ActionConfig {
            on: vec!["accounts".into()],
            ..run(&["z"])
        },
    );
    m.insert(
        "e".to_string(),
        ActionConfig {
            mode: Some("later".into()),
            ..run(&["z"])
        },
    );
    m.insert("f".to_string(), run(&["x", "--to={ids}"]));
    m.insert(
        "g".to_string(),
        ActionConfig {
            key: Some("hyper-x".into()),
            ..run(&["z"])
        },
    );
    let (ok, w) = user_actions::from_settings(&m, &KeyMap::default());
    assert_eq!(
        ok.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(),
        ["a", "b", "g"]
    );
    assert!(
        w.iter()
            .any(|l| l.starts_with("actions.b: key = \"M\" refused: M is already actions.a")),
        "{w:?}"
    );
    assert!(
        w.iter().any(|l| l.starts_with("actions.c: run is empty")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|l| l.starts_with("actions.d: on: unknown resource 'accounts'")),
        "{w:?}"
    );
    assert!(
        w.iter().any(|l| l.starts_with("actions.e: mode 'later'")),
        "{w:?}"
    );
    assert!(
        w.iter().any(|l| l.starts_with("actions.f: '--to={ids}'")),
        "{w:?}"
    );
    assert!(w.iter().any(|l| l.starts_with("actions.g: ")), "{w:?}");
}

fn harness_with(c: ActionConfig) -> Harness {
    let mut h = Harness::new((120, 30));
    h.answer_all();
    let (a, w) = action("mail", c);
    assert!(w.is_empty(), "{w:?}");
    h.app.set_user_actions(a);
    h
}

#[test]
fn the_key_runs_the_action_on_the_selected_record_and_confirm_asks_first() {
    let mut h = harness_with(ActionConfig {
        key: Some("M".into()),
        mode: Some("background".into()),
        on: vec!["contacts".into()],
        ..run(&["mutt", "{id}"])
    });
    h.key(KeyCode::Char('1'));
    h.answer_all();
    let id = h.app.tab().selected_record().unwrap().id.clone();
    let fx = h.key(KeyCode::Char('M'));
    assert_eq!(
        fx,
        [Effect::RunUserAction {
            name: "mail".into(),
            argvs: vec![vec!["mutt".into(), id.clone()]],
            mode: Mode::Background
        }]
    );
    // Another tab: not this action's; the key does nothing there.
    h.key(KeyCode::Char('2'));
    h.answer_all();
    assert!(h.key(KeyCode::Char('M')).is_empty());
    // `:run mail` on Deals says why not.
    h.key(KeyCode::Char(':'));
    h.type_str("run mail");
    assert!(h.key(KeyCode::Enter).is_empty());
    assert!(
        h.render().contains("runs on contacts, not deals"),
        "{}",
        h.render()
    );

    let mut h = harness_with(ActionConfig {
        key: Some("M".into()),
        confirm: true,
        ..run(&["mutt", "{id}"])
    });
    h.key(KeyCode::Char('1'));
    h.answer_all();
    assert!(h.key(KeyCode::Char('M')).is_empty(), "asks first");
    assert!(h.render().contains("Run mail?"), "{}", h.render());
    let fx = h.key(KeyCode::Char('y'));
    assert!(matches!(&fx[..], [Effect::RunUserAction { .. }]), "{fx:?}");
    h.key(KeyCode::Char('?'));
    let Some(crmdash::app::dialogs::Overlay::Help(help)) = h.app.overlays.last() else {
        panic!("? opens the help");
    };
    let entries: Vec<String> = help
        .text
        .entries
        .iter()
        .map(|e| format!("{} {}", e.key.clone().unwrap_or_default(), e.value))
        .collect();
    assert!(
        entries
            .iter()
            .any(|e| e.trim_start().starts_with("M ") && e.contains("(actions.mail)")),
        "listed in help: {entries:?}"
    );
}

/// A contact whose custom field would be an option to ssh (issue 43, point 6).
fn option_contact() -> Target {
    Target {
        kind: Resource::Contacts,
        id: "c9".into(),
        record: json!({"id": "c9", "email": "-oProxyCommand=touch pwned2",
                       "custom_fields": {"server": crmdash::sandbox::HOSTILE_OPTION_VALUE}}),
        web_url: None,
    }
}

#[test]
fn a_value_that_would_be_an_option_is_refused_unless_after_dashes_or_allowed() {
    let target = option_contact();
    let ssh = one(run(&["ssh", "{custom_fields.server}", "uptime"]));
    let e = user_actions::plan(&ssh, std::slice::from_ref(&target), "work").unwrap_err();
    assert!(
        e.starts_with("actions.mail: refused: contact c9's {custom_fields.server} is \"-oProxyCommand=touch pwned\""),
        "{e}"
    );
    assert!(e.contains("allow_option_values"), "{e}");
    // The list placeholders and the shell line are held to the same rule.
    let list = one(run(&["mutt", "{emails}"]));
    assert!(user_actions::plan(&list, std::slice::from_ref(&target), "w").is_err());
    let shell = one(ActionConfig {
        shell: true,
        ..run(&["ssh {custom_fields.server} uptime"])
    });
    assert!(user_actions::plan(&shell, std::slice::from_ref(&target), "w").is_err());

    // After `--` the program reads it as an operand; inside an argument it is no option.
    for template in [
        &["ssh", "--", "{custom_fields.server}", "uptime"][..],
        &["mutt", "--to={email}"][..],
        &["mutt", "mailto:{email}"][..],
    ] {
        let a = one(run(template));
        assert!(
            user_actions::plan(&a, std::slice::from_ref(&target), "w").is_ok(),
            "{template:?}"
        );
    }
    let shell = one(ActionConfig {
        shell: true,
        ..run(&["ssh -- {custom_fields.server} uptime"])
    });
    assert!(user_actions::plan(&shell, std::slice::from_ref(&target), "w").is_ok());
    // A value "--" never counts as the template's `--`.
    let dashes = Target {
        record: json!({"id": "c9", "a": "--", "b": "-x"}),
        ..option_contact()
    };
    let shell = one(ActionConfig {
        shell: true,
        ..run(&["prog {a} {b}"])
    });
    assert!(user_actions::plan(&shell, std::slice::from_ref(&dashes), "w").is_err());
    let plain = one(run(&["prog", "{a}", "{b}"]));
    assert!(user_actions::plan(&plain, std::slice::from_ref(&dashes), "w").is_err());

    // The action opts in by name.
    let (a, w) = action(
        "ssh",
        ActionConfig {
            allow_option_values: true,
            ..run(&["ssh", "{custom_fields.server}", "uptime"])
        },
    );
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(
        user_actions::plan(&a[0], &[target], "w").unwrap(),
        [["ssh", crmdash::sandbox::HOSTILE_OPTION_VALUE, "uptime"]]
    );
}

#[test]
fn the_dashboard_does_not_run_an_action_on_an_option_like_value_and_says_why() {
    let mut data = crate::dashboard_support::FakeData::new(5);
    for c in &mut data.contacts {
        c["custom_fields"] = json!({"server": crmdash::sandbox::HOSTILE_OPTION_VALUE});
    }
    let mut h = Harness::with((120, 30), data, crate::dashboard_support::test_config());
    h.answer_all();
    let (a, w) = action(
        "ssh",
        ActionConfig {
            key: Some("M".into()),
            ..run(&["ssh", "{custom_fields.server}", "uptime"])
        },
    );
    assert!(w.is_empty(), "{w:?}");
    h.app.set_user_actions(a);
    h.key(KeyCode::Char('1'));
    h.answer_all();
    h.key(KeyCode::Char('g'));
    let fx = h.key(KeyCode::Char('M'));
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::RunUserAction { .. })),
        "{fx:?}"
    );
    let screen = h.render();
    assert!(screen.contains("actions.ssh: refused"), "{screen}");
}
