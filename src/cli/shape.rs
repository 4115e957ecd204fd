//! `--jq EXPR` and `--template TMPL`: the one pair of options every list, search and api
//! command takes (flatten [`ShapeArgs`] into its arguments), and the one function that prints
//! through them ([`Shaper::emit`]). Both read the JSON as the server sent it: for a list, one
//! array of the records; for `crmdash api`, the response body. Both are checked before any
//! request is sent, so a typo costs nothing.

use std::collections::BTreeMap;
use std::io::Write;

use jaq_core::data::JustLut;
use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, unwrap_valr};
use jaq_json::Val;

use crate::cli::exit::CliError;

/// `--jq` and `--template`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ShapeArgs {
    /// Filter the JSON with a jq expression (jaq): each result on its own line, strings as
    /// plain text, anything else as compact JSON. Replaces --format.
    #[arg(long, value_name = "EXPR", conflicts_with = "template")]
    pub jq: Option<String>,
    /// Render the JSON with a template (minijinja, Jinja2 syntax): `records` is the array of
    /// records, `input` the whole JSON, an object's keys are variables too. Replaces --format.
    #[arg(long, value_name = "TMPL")]
    pub template: Option<String>,
}

/// A compiled `--jq` or `--template`.
pub enum Shaper {
    Jq(Box<jaq_core::Filter<JustLut<Val>>>),
    Template(String),
}

impl ShapeArgs {
    /// The compiled shape, or `None` without `--jq`/`--template`. `others`: the options that
    /// also choose the output (`--format`, `--columns`) and whether each was given: together
    /// they are a usage error (exit 2), as a bad expression is.
    pub fn compile(&self, others: &[(&str, bool)]) -> Result<Option<Shaper>, CliError> {
        let flag = match (&self.jq, &self.template) {
            (Some(_), _) => "--jq",
            (None, Some(_)) => "--template",
            (None, None) => return Ok(None),
        };
        if let Some((other, _)) = others.iter().find(|(_, given)| *given) {
            return Err(CliError::Usage(format!(
                "{flag} prints its own output: leave out {other}"
            )));
        }
        if let Some(expr) = &self.jq {
            return compile_jq(expr).map(|f| Some(Shaper::Jq(Box::new(f))));
        }
        let src = self.template.clone().unwrap_or_default();
        environment()
            .template_from_str(&src)
            .map_err(|e| CliError::Usage(format!("--template: {}", template_error(&e))))?;
        Ok(Some(Shaper::Template(src)))
    }
}

impl Shaper {
    /// Prints `json` (one JSON text) through the filter or template to `out`.
    pub fn emit(&self, json: &str, out: &mut dyn Write) -> Result<(), CliError> {
        crate::api::check_depth(json.as_bytes()).map_err(|e| {
            let what = match self {
                Shaper::Jq(_) => "--jq",
                Shaper::Template(_) => "--template",
            };
            CliError::other(format!("{what}: {e}"))
        })?;
        let written = match self {
            Shaper::Jq(filter) => run_jq(filter, json, out)?,
            Shaper::Template(src) => render(src, json, out)?,
        };
        crate::cli::format::finish(written.map_err(crate::output::OutputError::from))
    }

    /// Prints `records` (each one record's JSON as sent) as one array.
    pub fn emit_records<'a>(
        &self,
        records: impl IntoIterator<Item = &'a str>,
        out: &mut dyn Write,
    ) -> Result<(), CliError> {
        self.emit(&json_array(records), out)
    }
}

/// `[a,b,...]` from JSON texts, without parsing them.
pub fn json_array<'a>(records: impl IntoIterator<Item = &'a str>) -> String {
    let mut s = String::from("[");
    for (i, r) in records.into_iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(r);
    }
    s.push(']');
    s
}

fn compile_jq(expr: &str) -> Result<jaq_core::Filter<JustLut<Val>>, CliError> {
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let funs = jaq_core::funs()
        .chain(jaq_std::funs())
        .chain(jaq_json::funs());
    let loader = Loader::new(defs);
    let arena = Arena::default();
    let program = File {
        code: expr,
        path: (),
    };
    let bad = |what: String| CliError::Usage(format!("--jq: {what}"));
    let modules = loader.load(&arena, program).map_err(|errs| {
        let mut said = Vec::new();
        for (_, e) in errs {
            match e {
                jaq_core::load::Error::Io(v) => {
                    said.extend(v.into_iter().map(|(path, why)| format!("{path}: {why}")))
                }
                jaq_core::load::Error::Lex(v) => said.extend(
                    v.into_iter()
                        .map(|(exp, at)| format!("expected {} at {}", exp.as_str(), near(at))),
                ),
                jaq_core::load::Error::Parse(v) => said.extend(
                    v.into_iter()
                        .map(|(exp, at)| format!("expected {} at {}", exp.as_str(), near(at))),
                ),
            }
        }
        bad(said.join("; "))
    })?;
    Compiler::default()
        .with_funs(funs)
        .compile(modules)
        .map_err(|errs| {
            let said: Vec<String> = errs
                .into_iter()
                .flat_map(|(_, v)| v)
                .map(|(name, undefined)| format!("undefined {} {name}", undefined.as_str()))
                .collect();
            bad(said.join("; "))
        })
}

/// Where a syntax error is: the next few characters, or the end.
fn near(rest: &str) -> String {
    let shown: String = rest.chars().take(20).collect();
    if shown.is_empty() {
        "the end".to_string()
    } else {
        format!("`{shown}`")
    }
}

fn run_jq(
    filter: &jaq_core::Filter<JustLut<Val>>,
    json: &str,
    out: &mut dyn Write,
) -> Result<std::io::Result<()>, CliError> {
    let input = jaq_json::read::parse_single(json.as_bytes())
        .map_err(|e| CliError::other(format!("--jq: the input is not JSON: {e}")))?;
    let ctx = Ctx::<JustLut<Val>>::new(&filter.lut, Vars::new([]));
    for value in filter.id.run((ctx, input)).map(unwrap_valr) {
        let value = value.map_err(|e| CliError::other(format!("--jq: {e}")))?;
        let line = match &value {
            Val::TStr(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            other => other.to_string(),
        };
        if let Err(e) = writeln!(out, "{line}") {
            return Ok(Err(e));
        }
    }
    Ok(out.flush())
}

fn environment() -> minijinja::Environment<'static> {
    let mut env = minijinja::Environment::new();
    // Records are printed as text, never into HTML.
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    env
}

fn render(src: &str, json: &str, out: &mut dyn Write) -> Result<std::io::Result<()>, CliError> {
    let input: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| CliError::other(format!("--template: the input is not JSON: {e}")))?;
    use serde::Deserialize as _;
    let value = |v: &serde_json::Value| {
        minijinja::Value::deserialize(v)
            .map_err(|e| CliError::other(format!("--template: cannot read the input: {e}")))
    };
    let mut vars: BTreeMap<String, minijinja::Value> = BTreeMap::new();
    match &input {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                vars.insert(k.clone(), value(v)?);
            }
        }
        serde_json::Value::Array(_) => {
            vars.insert("records".into(), value(&input)?);
        }
        _ => {}
    }
    vars.insert("input".into(), value(&input)?);
    let env = environment();
    let text = env
        .template_from_str(src)
        .and_then(|t| t.render(minijinja::Value::from(vars)))
        .map_err(|e| CliError::other(format!("--template: {}", template_error(&e))))?;
    let mut written = out.write_all(text.as_bytes());
    if written.is_ok() && !text.is_empty() && !text.ends_with('\n') {
        written = out.write_all(b"\n");
    }
    Ok(written.and_then(|()| out.flush()))
}

/// minijinja's error with its position, on one line.
fn template_error(e: &minijinja::Error) -> String {
    match e.line() {
        Some(line) => format!("{} (line {line})", e),
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shaped(args: ShapeArgs, json: &str) -> String {
        let shaper = args.compile(&[]).unwrap().unwrap();
        let mut out = Vec::new();
        shaper.emit(json, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn jq(expr: &str) -> ShapeArgs {
        ShapeArgs {
            jq: Some(expr.into()),
            template: None,
        }
    }

    #[test]
    fn jq_prints_strings_plain_and_the_rest_as_json() {
        let json = r#"[{"id":"1","name":"Ada","value":"12.50"},{"id":"2","name":"Bo","n":1.10}]"#;
        assert_eq!(shaped(jq(".[].name"), json), "Ada\nBo\n");
        assert_eq!(shaped(jq("length"), json), "2\n");
        // Numbers keep the server's digits.
        assert_eq!(shaped(jq(".[1].n"), json), "1.10\n");
        assert_eq!(shaped(jq(".[0] | {id}"), json), "{\"id\":\"1\"}\n");
    }

    #[test]
    fn a_template_sees_records_and_the_keys_of_an_object() {
        let t = |src: &str| ShapeArgs {
            jq: None,
            template: Some(src.into()),
        };
        let json = r#"[{"id":"1","name":"Ada <a@x>"}]"#;
        assert_eq!(
            shaped(
                t("{% for r in records %}{{ r.id }} {{ r.name }}{% endfor %}"),
                json
            ),
            "1 Ada <a@x>\n"
        );
        let json = r#"{"data":[{"id":"9"}],"meta":{"total":1}}"#;
        assert_eq!(
            shaped(t("{{ meta.total }}:{{ data[0].id }}"), json),
            "1:9\n"
        );
    }

    #[test]
    fn mistakes_are_usage_errors_before_anything_runs() {
        for args in [
            jq(".[] |"),
            jq("nosuchfunction(1)"),
            ShapeArgs {
                jq: None,
                template: Some("{% for %}".into()),
            },
        ] {
            let err = args.compile(&[]).err().expect("refused");
            assert!(matches!(err, CliError::Usage(_)), "{err:?}");
        }
        let err = jq(".").compile(&[("--format", true)]).err().unwrap();
        assert_eq!(
            err.to_string(),
            "--jq prints its own output: leave out --format"
        );
    }
}
