//! `crmdash api METHOD PATH`: any request to the service, like `gh api`: the profile's base URL
//! and token (host binding, TLS and loopback rules as every command), fields as a JSON body or
//! a query string, pages followed, the answer printed as received.

use std::io::{Read, Write};

use reqwest::Method;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::api::Meta;
use crate::api::raw::{Answer, RawRequest};
use crate::cli::context::Ctx;
use crate::cli::exit::CliError;
use crate::cli::shape::{ShapeArgs, Shaper, json_array};

/// `crmdash api`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct ApiArgs {
    /// HTTP method: GET, POST, PUT, PATCH, DELETE, HEAD (any case).
    #[arg(value_name = "METHOD")]
    pub method: String,
    /// A path under /public/v1 (`contacts`, `/public/v1/deals?status=won`); never a host.
    #[arg(value_name = "PATH", add = crate::cli::complete_names::api_paths())]
    pub path: String,
    /// A string field KEY=VALUE (repeatable): the JSON body, or the query string of a GET.
    /// `key[sub]=v` nests, `key[]=v` appends to a list.
    #[arg(short = 'f', long = "raw-field", value_name = "KEY=VALUE")]
    pub raw_fields: Vec<String>,
    /// A typed field KEY=VALUE: true, false, null and numbers become JSON values, `@FILE`
    /// the file's text (`@-` standard input), anything else a string.
    #[arg(short = 'F', long = "field", value_name = "KEY=VALUE")]
    pub fields: Vec<String>,
    /// The request body from FILE (`-` standard input), sent as is; fields then go to the
    /// query string.
    #[arg(long, value_name = "FILE")]
    pub input: Option<String>,
    /// An extra request header `Name: value` (repeatable). Authorization and Host are the
    /// profile's.
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// Follow the pages of a list (GET only): prints one JSON array of every page's `data`,
    /// or one record a line with --format jsonl.
    #[arg(long)]
    pub paginate: bool,
    /// With --paginate: json (one array) or jsonl (one record a line).
    #[arg(long, value_enum, value_name = "FORMAT", requires = "paginate")]
    pub format: Option<PageFormat>,
    /// With --paginate: the most pages to ask for; a list that goes on is cut there
    /// (what came is printed, then an error, exit 1).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_PAGES, requires = "paginate",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_pages: u64,
    /// Print the status line and the response headers before the body.
    #[arg(short = 'i', long)]
    pub include: bool,
    /// A write (any method but GET, HEAD, OPTIONS) to a protected profile: send it (with
    /// --profile NAME on the command line). Writes are journaled and obey read_only.
    #[arg(long, short = 'y')]
    pub yes: bool,
    #[command(flatten)]
    pub shape: ShapeArgs,
}

/// `--max-pages` when not given: a million records at 100 a page.
pub const DEFAULT_MAX_PAGES: u64 = 10_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PageFormat {
    Json,
    Jsonl,
}

pub const EXAMPLES: &str = "\
Examples:
  crmdash api GET contacts -f email=ada@example.com
  crmdash api GET deals --paginate --jq '.[] | select(.status == \"won\") | .id'
  crmdash api POST contacts -f first_name=Ada -f email=ada@example.com
  crmdash api POST appointments/8412/reschedule --input body.json --include

The answer is printed as received (pretty JSON on a terminal). A status other than 2xx prints
the body all the same and exits as every command does (3 unauthorized, 4 not found, 5 rejected,
6 server or network).";

/// Runs `crmdash api`.
pub async fn run(ctx: &Ctx, args: &ApiArgs) -> Result<(), CliError> {
    let method = Method::from_bytes(args.method.trim().to_ascii_uppercase().as_bytes())
        .map_err(|_| CliError::Usage(format!("'{}' is not an HTTP method", args.method)))?;
    if args.paginate && method != Method::GET {
        return Err(CliError::Usage(
            "--paginate follows the pages of a GET".into(),
        ));
    }
    let headers = parse_headers(&args.headers)?;
    // A GET with a body, or with a header naming another method, can change the service as a
    // POST would: it is a write (`RawRequest::reads`).
    let overridden = crate::api::raw::METHOD_OVERRIDES
        .iter()
        .any(|h| headers.contains_key(*h));
    let reads = crate::api::Client::reads_only(&method) && args.input.is_none() && !overridden;
    if !reads {
        // A write: the profile's flags before anything is read or sent.
        ctx.check_write(args.yes)?;
    }
    let shaper = args.shape.compile(&[("--format", args.format.is_some())])?;
    let fields = collect_fields(args)?;
    let body = match &args.input {
        Some(file) => Some(read_input(file)?),
        None if reads || fields.is_empty() => None,
        None => Some(
            serde_json::to_vec(&Value::Object(fields.to_body()?))
                .map_err(|e| CliError::other(format!("cannot encode the fields: {e}")))?,
        ),
    };
    let client = ctx.client().await?;
    let mut url = client.api_url(&args.path)?;
    if reads || args.input.is_some() {
        fields.add_to_query(&mut url);
    }
    let request = RawRequest {
        method,
        url,
        body,
        headers,
    };
    let out = &mut crate::output::stdout();
    if args.paginate {
        return paginate(ctx, request, args, shaper.as_ref(), out).await;
    }
    let answer = if reads {
        client.send_raw(request).await
    } else {
        send_write(ctx, client, args, request).await?
    };
    let answer = match answer {
        Ok(a) => a,
        Err(e) => {
            if let Some(a) = &e.answer {
                print_answer(a, args.include, ctx.tty.stdout, None, out)?;
            }
            return Err(e.into());
        }
    };
    print_answer(&answer, args.include, ctx.tty.stdout, shaper.as_ref(), out)
}

/// A write through the gate: the flags of the service, the intent journaled before it leaves,
/// the answer after.
async fn send_write(
    ctx: &Ctx,
    client: &crate::api::Client,
    args: &ApiArgs,
    request: RawRequest,
) -> Result<Result<Answer, crate::api::ApiError>, CliError> {
    let body = request.body.as_deref().map(|b| {
        serde_json::from_slice::<Value>(b)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(b).into_owned()))
    });
    let sent = serde_json::json!({
        "method": request.method.as_str(),
        "path": request.url.path(),
        "query": request.url.query(),
        "body": body,
    });
    let intent = ctx
        .intent(crate::journal::WriteKind::Api, sent.clone())
        .await?;
    let ticket = ctx.admit(args.yes, &intent).await?;
    let answer = client.send_raw_write(&ticket, request).await;
    let journaled = match &answer {
        Ok(a) => crate::journal::Answer::accepted(a.status),
        Err(e) => crate::journal::Answer::failed(e),
    };
    let entry = ctx
        .write_record(crate::journal::WriteKind::Api, sent, journaled)
        .await?
        .answering(ticket.id());
    crate::journal::record_or_warn(ctx.journal_path().as_deref(), &entry);
    Ok(answer)
}

/// Prints one answer: headers with --include, then the body (shaped, pretty on a terminal,
/// else as received, ended by a newline).
fn print_answer(
    a: &Answer,
    include: bool,
    tty: bool,
    shaper: Option<&Shaper>,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let mut written = Ok(());
    if include {
        written = write_head(a, out);
    }
    if written.is_ok()
        && let Some(shaper) = shaper
    {
        let text = std::str::from_utf8(&a.body)
            .map_err(|_| CliError::other("the response is not UTF-8 text"))?;
        return shaper.emit(text, out);
    }
    if written.is_ok() {
        let pretty = tty
            .then(|| serde_json::from_slice::<Value>(&a.body).ok())
            .flatten()
            .and_then(|v| serde_json::to_string_pretty(&v).ok());
        written = match pretty {
            Some(p) => writeln!(out, "{p}"),
            None => out.write_all(&a.body).and_then(|()| {
                if a.body.is_empty() || a.body.ends_with(b"\n") {
                    Ok(())
                } else {
                    out.write_all(b"\n")
                }
            }),
        };
    }
    crate::cli::format::finish(
        written
            .and_then(|()| out.flush())
            .map_err(crate::output::OutputError::from),
    )
}

fn write_head(a: &Answer, out: &mut dyn Write) -> std::io::Result<()> {
    let reason = reqwest::StatusCode::from_u16(a.status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("");
    writeln!(out, "HTTP/1.1 {} {reason}", a.status)?;
    for (name, value) in &a.headers {
        writeln!(out, "{name}: {}", String::from_utf8_lossy(value.as_bytes()))?;
    }
    writeln!(out)
}

/// A list page as sent: its records and `meta`.
#[derive(serde::Deserialize)]
struct RawPage {
    #[serde(default)]
    data: Option<Vec<Box<RawValue>>>,
    #[serde(default)]
    meta: Option<Meta>,
}

/// GETs page after page (from the path's `page`, or 1) until `meta` says the last one came
/// (or a page is empty, or has no `meta`), then prints every record. The pages are counted
/// here, not by the server's `current_page` (a service that always says "page 1 of 2" would
/// be asked for page 2 forever); a page whose records are the previous page's ends the list
/// (said on stderr), and `--max-pages` caps the walk (an error after what came is printed).
async fn paginate(
    ctx: &Ctx,
    first: RawRequest,
    args: &ApiArgs,
    shaper: Option<&Shaper>,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let client = ctx.client().await?;
    let mut page: u64 = first
        .url
        .query_pairs()
        .find(|(k, _)| k == "page")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(1);
    let mut records: Vec<Box<RawValue>> = Vec::new();
    let mut asked: u64 = 0;
    let mut previous: Option<Vec<u8>> = None;
    let mut cut = false;
    loop {
        if asked == args.max_pages {
            cut = true;
            break;
        }
        asked += 1;
        let mut req = first.clone();
        set_page(&mut req.url, page);
        let answer = match client.send_raw(req).await {
            Ok(a) => a,
            Err(e) => {
                if let Some(a) = &e.answer {
                    print_answer(a, args.include, ctx.tty.stdout, None, out)?;
                }
                return Err(e.into());
            }
        };
        if args.include {
            crate::cli::format::finish(
                write_head(&answer, out).map_err(crate::output::OutputError::from),
            )?;
        }
        let (data, meta) = match serde_json::from_slice::<RawPage>(&answer.body) {
            Ok(RawPage {
                data: Some(d),
                meta,
            }) => (d, meta),
            // A bare array is the whole list.
            _ => match serde_json::from_slice::<Vec<Box<RawValue>>>(&answer.body) {
                Ok(d) => (d, None),
                Err(_) => {
                    return Err(CliError::other(format!(
                        "--paginate: page {page} is not a list ({{\"data\": [...]}} or an array)"
                    )));
                }
            },
        };
        let empty = data.is_empty();
        // The page's records as sent: the same as the page before means the service repeats
        // itself, and the list is what came before.
        let sent: Vec<u8> = data
            .iter()
            .flat_map(|r| r.get().bytes().chain([b'\n']))
            .collect();
        if !empty && previous.as_ref() == Some(&sent) {
            crmdash_domain::say!(
                "crmdash api --paginate: page {page} repeats page {} record for record; stopped there",
                page - 1
            );
            break;
        }
        previous = Some(sent);
        records.extend(data);
        let current = meta.as_ref().and_then(|m| m.current_page).unwrap_or(page);
        let last = meta.as_ref().and_then(|m| m.last_page);
        match last {
            Some(last) if !empty && page < last && current <= last => page += 1,
            _ => break,
        }
    }
    let texts = records.iter().map(|r| r.get());
    let printed = if let Some(shaper) = shaper {
        shaper.emit_records(texts, out)
    } else {
        let written = match args.format.unwrap_or(PageFormat::Json) {
            PageFormat::Json => writeln!(out, "{}", json_array(texts)),
            PageFormat::Jsonl => texts.into_iter().try_for_each(|t| writeln!(out, "{t}")),
        };
        crate::cli::format::finish(
            written
                .and_then(|()| out.flush())
                .map_err(crate::output::OutputError::from),
        )
    };
    printed?;
    if cut {
        return Err(CliError::other(format!(
            "--paginate: stopped after {} pages (--max-pages); the list goes on",
            args.max_pages
        )));
    }
    Ok(())
}

fn set_page(url: &mut url::Url, page: u64) {
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| k != "page")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    url.query_pairs_mut()
        .clear()
        .extend_pairs(kept)
        .append_pair("page", &page.to_string());
}

fn parse_headers(given: &[String]) -> Result<HeaderMap, CliError> {
    let mut map = HeaderMap::new();
    for h in given {
        let Some((name, value)) = h.split_once(':') else {
            return Err(CliError::Usage(format!(
                "-H '{h}': give a header as 'Name: value'"
            )));
        };
        let name = HeaderName::from_bytes(name.trim().as_bytes())
            .map_err(|_| CliError::Usage(format!("-H: '{}' is not a header name", name.trim())))?;
        if name == reqwest::header::AUTHORIZATION || name == reqwest::header::HOST {
            return Err(CliError::Usage(format!(
                "-H: {name} is set by crmdash (the profile's token and base URL)"
            )));
        }
        let value = HeaderValue::from_str(value.trim())
            .map_err(|_| CliError::Usage(format!("-H: the value of {name} is not allowed")))?;
        map.append(name, value);
    }
    Ok(map)
}

fn read_input(file: &str) -> Result<Vec<u8>, CliError> {
    if file == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| CliError::other(format!("cannot read standard input: {e}")))?;
        return Ok(buf);
    }
    std::fs::read(file).map_err(|e| CliError::other(format!("cannot read {file}: {e}")))
}

/// The `-f`/`-F` fields in the order given.
struct Fields(Vec<(String, Value)>);

impl Fields {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn add_to_query(&self, url: &mut url::Url) {
        if self.0.is_empty() {
            return;
        }
        let mut q = url.query_pairs_mut();
        for (k, v) in &self.0 {
            let text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            q.append_pair(k, &text);
        }
    }

    /// The fields as one JSON object, `a[b]` nested and `a[]` appended.
    fn to_body(&self) -> Result<Map<String, Value>, CliError> {
        let mut root = Value::Object(Map::new());
        for (key, value) in &self.0 {
            put(&mut root, key, value.clone())?;
        }
        match root {
            Value::Object(m) => Ok(m),
            _ => unreachable!("the root is an object"),
        }
    }
}

fn collect_fields(args: &ApiArgs) -> Result<Fields, CliError> {
    let mut out = Vec::new();
    // clap keeps each option's values apart; -f before -F within each kind, in the order given.
    for (raw, typed) in args
        .raw_fields
        .iter()
        .map(|f| (f, false))
        .chain(args.fields.iter().map(|f| (f, true)))
    {
        let Some((key, value)) = raw.split_once('=') else {
            return Err(CliError::Usage(format!(
                "field '{raw}': give it as KEY=VALUE"
            )));
        };
        if key.is_empty() {
            return Err(CliError::Usage(format!("field '{raw}' has no name")));
        }
        let value = if typed {
            typed_value(value)?
        } else {
            Value::String(value.to_string())
        };
        out.push((key.to_string(), value));
    }
    Ok(Fields(out))
}

/// `-F`'s value: JSON literals and numbers as such, `@FILE` the file's text.
fn typed_value(v: &str) -> Result<Value, CliError> {
    Ok(match v {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "null" => Value::Null,
        _ if v.starts_with('@') => {
            let bytes = read_input(&v[1..])?;
            Value::String(
                String::from_utf8(bytes)
                    .map_err(|_| CliError::other(format!("{} is not UTF-8 text", &v[1..])))?,
            )
        }
        _ => match serde_json::from_str::<serde_json::Number>(v) {
            Ok(n) if !v.starts_with('+') => Value::Number(n),
            _ => Value::String(v.to_string()),
        },
    })
}

/// Sets `key` (`a`, `a[b][c]`, `a[]`) in `root` to `value`.
fn put(root: &mut Value, key: &str, value: Value) -> Result<(), CliError> {
    let bad = || CliError::Usage(format!("field name '{key}': use a, a[b] or a[]"));
    let (head, mut rest) = match key.find('[') {
        Some(i) => (&key[..i], &key[i..]),
        None => (key, ""),
    };
    let mut parts = vec![head.to_string()];
    while !rest.is_empty() {
        let end = rest.find(']').ok_or_else(bad)?;
        if !rest.starts_with('[') {
            return Err(bad());
        }
        parts.push(rest[1..end].to_string());
        rest = &rest[end + 1..];
    }
    let mut cur = root;
    let last = parts.len() - 1;
    for (i, part) in parts.iter().enumerate() {
        let next_is_list = parts.get(i + 1).is_some_and(|p| p.is_empty());
        let fresh = || {
            if next_is_list {
                Value::Array(Vec::new())
            } else {
                Value::Object(Map::new())
            }
        };
        cur = match cur {
            Value::Object(m) if !part.is_empty() => {
                if i == last {
                    m.insert(part.clone(), value);
                    return Ok(());
                }
                m.entry(part.clone()).or_insert_with(fresh)
            }
            Value::Array(a) if part.is_empty() => {
                if i == last {
                    a.push(value);
                    return Ok(());
                }
                a.push(fresh());
                a.last_mut().expect("just pushed")
            }
            _ => return Err(bad()),
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_nest_and_append_and_type() {
        let mut root = Value::Object(Map::new());
        put(&mut root, "first_name", Value::String("Ada".into())).unwrap();
        put(&mut root, "address[city]", Value::String("Oslo".into())).unwrap();
        put(&mut root, "tags[]", typed_value("7").unwrap()).unwrap();
        put(&mut root, "tags[]", typed_value("true").unwrap()).unwrap();
        assert_eq!(
            root,
            serde_json::json!({"first_name": "Ada", "address": {"city": "Oslo"}, "tags": [7, true]})
        );
        assert_eq!(
            typed_value("+1 555").unwrap(),
            Value::String("+1 555".into())
        );
        assert!(put(&mut root, "a[b", Value::Null).is_err());
    }

    #[test]
    fn authorization_cannot_be_given_as_a_header() {
        assert!(parse_headers(&["Authorization: Bearer x".into()]).is_err());
        assert!(parse_headers(&["no colon".into()]).is_err());
        let h = parse_headers(&["X-Trace: 1".into()]).unwrap();
        assert_eq!(h["x-trace"], "1");
    }
}
