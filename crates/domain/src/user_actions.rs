//! User actions: `[actions.NAME]` in the config file runs a program on the records an action
//! applies to (`run = ["mutt", "{email}"]`). The argv is built from a template, one
//! placeholder one argument, so a value such as `; rm -rf ~` or `$(…)` is never read by a
//! shell; `shell = true` hands the line to `sh -c` with every value quoted. Programs start
//! through [`crate::child::command`] (no token in their environment).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::keys::{KeyMap, KeySpec};
use crate::resource::Resource;

/// One `[actions.NAME]` table as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ActionConfig {
    /// `contacts`, `deals`, `projects` (any of them when left out).
    pub on: Vec<String>,
    /// A key on the main screen (`M`, `ctrl-e`); checked against the built-in keys.
    pub key: Option<String>,
    /// The program and its arguments, with placeholders (`{email}`, `{account.name}`, `{id}`,
    /// `{profile}`, `{web_url}`, `{ids}`, `{emails}`).
    pub run: Vec<String>,
    /// `suspend` (the program gets the terminal, as an editor) or `background`.
    pub mode: Option<String>,
    /// Ask before running.
    pub confirm: bool,
    /// Once per record the action applies to (else once, with `{ids}`/`{emails}` listing all).
    pub each: bool,
    /// `run` is one shell line for `sh -c`, every value quoted.
    pub shell: bool,
    /// What it does, for `?` and the palette.
    pub description: Option<String>,
    /// Lets a record's value that starts with `-` begin an argument (see
    /// [`option_like`]); otherwise such a value is refused unless a `--` argument comes
    /// before it in `run`.
    pub allow_option_values: bool,
}

/// How the program runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The dashboard steps aside: the program has the terminal until it ends.
    Suspend,
    /// The dashboard stays; the program's output is captured and its end said.
    Background,
}

/// A checked action.
#[derive(Debug, Clone, PartialEq)]
pub struct UserAction {
    pub name: String,
    pub on: Vec<Resource>,
    pub key: Option<KeySpec>,
    pub run: Vec<String>,
    pub mode: Mode,
    pub confirm: bool,
    pub each: bool,
    pub shell: bool,
    pub description: String,
    /// `allow_option_values = true`: values starting with `-` may begin an argument.
    pub allow_option_values: bool,
}

/// A record an action applies to.
#[derive(Debug, Clone)]
pub struct Target {
    pub kind: Resource,
    pub id: String,
    /// The record as the server sent it.
    pub record: Value,
    /// Its page in the web UI (`[ui] web_url`), when one is configured.
    pub web_url: Option<String>,
}

/// The `[actions]` of the config: the usable ones, and one line per problem (named as
/// `[keys]`' are: `actions.NAME: ...`). A key that a built-in action or an earlier user
/// action has on the main screen is refused; the action stays usable from the palette.
pub fn from_settings(
    actions: &BTreeMap<String, ActionConfig>,
    keymap: &KeyMap,
) -> (Vec<UserAction>, Vec<String>) {
    let mut out: Vec<UserAction> = Vec::new();
    let mut warnings = Vec::new();
    for (name, c) in actions {
        let w = |m: String| format!("actions.{name}: {m}");
        if c.run.is_empty() || c.run[0].trim().is_empty() {
            warnings.push(w("run is empty (run = [\"program\", \"{email}\"])".into()));
            continue;
        }
        let mut on = Vec::new();
        let mut bad_on = false;
        for r in &c.on {
            match Resource::named(r) {
                Some(r) => on.push(r),
                None => {
                    warnings.push(w(format!(
                        "on: unknown resource '{r}' (contacts, deals, projects)"
                    )));
                    bad_on = true;
                }
            }
        }
        if bad_on {
            continue;
        }
        if on.is_empty() {
            on = Resource::ALL.to_vec();
        }
        let mode = match c.mode.as_deref().map(str::trim) {
            None | Some("suspend") => Mode::Suspend,
            Some("background") => Mode::Background,
            Some(other) => {
                warnings.push(w(format!("mode '{other}': use suspend or background")));
                continue;
            }
        };
        if let Err(e) = check_template(&c.run, c.shell) {
            warnings.push(w(e));
            continue;
        }
        let mut key = None;
        if let Some(k) = &c.key {
            match KeySpec::parse(k) {
                Err(e) => warnings.push(w(e.to_string())),
                Ok(spec) => {
                    if let Some(builtin) = keymap.main_action_for(&spec) {
                        warnings.push(format!(
                            "actions.{name}: key = \"{spec}\" refused: {spec} is already {} on the main screen; :run {name} runs it",
                            builtin.name()
                        ));
                    } else if let Some(other) =
                        out.iter().find(|a| a.key.is_some_and(|o| same(&o, &spec)))
                    {
                        warnings.push(format!(
                            "actions.{name}: key = \"{spec}\" refused: {spec} is already actions.{} on the main screen; :run {name} runs it",
                            other.name
                        ));
                    } else {
                        key = Some(spec);
                    }
                }
            }
        }
        out.push(UserAction {
            name: name.clone(),
            on,
            key,
            run: c.run.clone(),
            mode,
            confirm: c.confirm,
            each: c.each,
            shell: c.shell,
            description: c
                .description
                .clone()
                .unwrap_or_else(|| format!("runs {}", c.run.join(" "))),
            allow_option_values: c.allow_option_values,
        });
    }
    (out, warnings)
}

fn same(a: &KeySpec, b: &KeySpec) -> bool {
    a.to_string() == b.to_string()
}

/// The list placeholders: each expands to one argument per record.
const LISTS: [(&str, &str); 2] = [("ids", "id"), ("emails", "email")];

/// A piece of an argument template.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(String),
    Field(String),
}

/// `mailto:{email}` as text and placeholders; `{{` and `}}` are literal braces.
fn pieces(arg: &str) -> Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = arg.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                text.push('}');
            }
            '{' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => name.push(c),
                        None => {
                            return Err(format!(
                                "'{arg}': {{ without }} (a literal brace is {{{{)"
                            ));
                        }
                    }
                }
                let name = name.trim().to_string();
                if name.is_empty() {
                    return Err(format!("'{arg}': an empty placeholder {{}}"));
                }
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(Piece::Field(name));
            }
            '}' => return Err(format!("'{arg}': }} without {{ (a literal brace is }}}})")),
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}

/// Checks the template at load: placeholders well formed, a list placeholder an argument of
/// its own (without `shell`).
fn check_template(run: &[String], shell: bool) -> Result<(), String> {
    for arg in run {
        let p = pieces(arg)?;
        let has_list = p
            .iter()
            .any(|x| matches!(x, Piece::Field(f) if LISTS.iter().any(|(l, _)| l == f)));
        if has_list && p.len() > 1 && !shell {
            return Err(format!(
                "'{arg}': {{ids}} and {{emails}} must be arguments of their own (one argument per record)"
            ));
        }
    }
    Ok(())
}

/// The value of placeholder `name` for `t`: `id`, `profile`, `web_url`, or a field of the
/// record by name or dotted path (`account.name`, `tags.0`). Missing, null or empty is an
/// error naming the record and the placeholder.
fn value(name: &str, t: &Target, profile: &str) -> Result<String, String> {
    let found = match name {
        "id" => Some(t.id.clone()),
        "profile" => Some(profile.to_string()),
        "web_url" => t.web_url.clone(),
        path => {
            let mut cur = Some(&t.record);
            for part in path.split('.') {
                cur = cur.and_then(|v| match v {
                    Value::Object(m) => m.get(part),
                    Value::Array(a) => part.parse::<usize>().ok().and_then(|i| a.get(i)),
                    _ => None,
                });
            }
            match cur {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(other) => Some(other.to_string()),
            }
        }
    };
    match found {
        Some(v) if !v.is_empty() => Ok(v),
        _ if name == "web_url" => Err(format!(
            "{} {} has no web page: set [ui] web_url to use {{web_url}}",
            t.kind.singular(),
            t.id
        )),
        _ => Err(format!(
            "{} {} has no {name} (the placeholder {{{name}}})",
            t.kind.singular(),
            t.id
        )),
    }
}

/// The argv of each run of `a` over `targets` (the records it applies to): one per record with
/// `each`, else one in all, `{ids}`/`{emails}` listing every record. With `shell`, each argv
/// is `sh -c LINE crmdash-action`, every value in LINE shell-quoted. An error says which
/// record lacks what; nothing runs then.
pub fn plan(a: &UserAction, targets: &[Target], profile: &str) -> Result<Vec<Vec<String>>, String> {
    let fail = |m: String| format!("actions.{}: {m}", a.name);
    if targets.is_empty() {
        return Err(fail("no record to run it on".into()));
    }
    if let Some(t) = targets.iter().find(|t| !a.on.contains(&t.kind)) {
        let on: Vec<&str> = a.on.iter().map(|r| r.noun()).collect();
        return Err(fail(format!(
            "runs on {}, not {}",
            on.join(", "),
            t.kind.noun()
        )));
    }
    let groups: Vec<&[Target]> = if a.each {
        targets.chunks(1).collect()
    } else {
        vec![targets]
    };
    let mut out = Vec::new();
    for group in groups {
        out.push(argv(a, group, profile).map_err(fail)?);
    }
    Ok(out)
}

/// Whether a value placed at the start of an argument would read as an option to the
/// program (`-oProxyCommand=...` to ssh): it starts with `-`.
pub fn option_like(value: &str) -> bool {
    value.starts_with('-')
}

/// The refusal of a value that would become an option.
fn refuse_option(f: &str, v: &str, t: &Target) -> String {
    format!(
        "refused: {} {}'s {{{f}}} is {v:?}, which the program would read as an option; put \"--\" before it in run, or set allow_option_values = true",
        t.kind.singular(),
        t.id
    )
}

fn argv(a: &UserAction, group: &[Target], profile: &str) -> Result<Vec<String>, String> {
    let quote = |s: &str| shell_words::quote(s).into_owned();
    let mut args: Vec<String> = Vec::new();
    // Without `shell`: whether a `--` argument came before (values may then start with `-`).
    let mut after_dashes = false;
    // With `shell`: the line's template so far, each value as `X` (so a value never counts
    // as the template's `--`).
    let mut template = String::new();
    for arg in &a.run {
        let mut built = String::new();
        let mut many: Option<Vec<String>> = None;
        if a.shell && !template.is_empty() {
            template.push(' ');
        }
        for piece in pieces(arg)? {
            // Whether a value put here begins an argument of the program, and may be an option.
            let (begins, options_end) = if a.shell {
                (
                    template.is_empty() || template.ends_with(char::is_whitespace),
                    template.split_whitespace().any(|w| w == "--"),
                )
            } else {
                (built.is_empty(), after_dashes)
            };
            let guarded = begins && !options_end && !a.allow_option_values;
            let check = |f: &str, v: &str, t: &Target| {
                if guarded && option_like(v) {
                    Err(refuse_option(f, v, t))
                } else {
                    Ok(())
                }
            };
            match piece {
                Piece::Text(t) => {
                    template.push_str(&t);
                    built.push_str(&t);
                }
                Piece::Field(f) => {
                    template.push('X');
                    if let Some((_, field)) = LISTS.iter().find(|(l, _)| *l == f) {
                        let values = group
                            .iter()
                            .map(|t| {
                                let v = value(field, t, profile)?;
                                check(&f, &v, t)?;
                                Ok(v)
                            })
                            .collect::<Result<Vec<_>, String>>()?;
                        if a.shell {
                            let q: Vec<String> = values.iter().map(|v| quote(v)).collect();
                            built.push_str(&q.join(" "));
                        } else {
                            many = Some(values);
                        }
                        continue;
                    }
                    if group.len() > 1 {
                        return Err(format!(
                            "{{{f}}} names one record's value and {} records are chosen: set each = true, or use {{ids}} / {{emails}}",
                            group.len()
                        ));
                    }
                    let v = value(&f, &group[0], profile)?;
                    check(&f, &v, &group[0])?;
                    if a.shell {
                        built.push_str(&quote(&v));
                    } else {
                        built.push_str(&v);
                    }
                }
            }
        }
        after_dashes |= arg == "--";
        match many {
            Some(values) => args.extend(values),
            None => args.push(built),
        }
    }
    if a.shell {
        return Ok(vec![
            "sh".into(),
            "-c".into(),
            args.join(" "),
            "crmdash-action".into(),
        ]);
    }
    Ok(args)
}

/// The command for one argv, through [`crate::child::command`].
pub fn command(argv: &[String]) -> std::process::Command {
    let mut c = crate::child::command(&argv[0]);
    c.args(&argv[1..]);
    c
}
