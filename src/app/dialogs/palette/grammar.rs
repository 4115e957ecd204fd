//! The palette's commands: words in, a checked `Command` out, or a message saying what
//! would have been accepted. Query words (`status=open sort=-value`) go through
//! `view_query`, the grammar saved views and the CLI's `--view` use too.

use crate::app::effects::ExportFormat;
use crate::config::views::check_view_name;
use crate::resource::Resource;
use crate::view_query::{self as views, QueryWords, ViewQuery, check_includes, check_per_page};

/// What the palette knows when it opens: the active tab, the names it can offer.
#[derive(Debug, Clone)]
pub struct PaletteContext {
    pub active: Resource,
    pub views: Vec<String>,
    /// Views that name something their resource does not have, and what.
    pub view_errors: std::collections::BTreeMap<String, String>,
    pub profiles: Vec<String>,
    pub active_profile: String,
    /// Status values seen so far, per tab (index: `Resource::index`).
    pub statuses: Vec<Vec<String>>,
}

/// One checked palette command.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `:deals status=open sort=-value`: that tab, with these filters (replacing the
    /// tab's) and settings; bare `:deals` only switches.
    Query(ViewQuery),
    Page(u32),
    Per(u32),
    Include(Vec<&'static str>),
    /// `:export` (asks where), `:export csv` / `json` (that format preselected).
    Export(Option<ExportFormat>),
    View(String),
    Save(String),
    Views,
    /// `:profile NAME` switches; bare `:profile` opens the picker.
    Profile(Option<String>),
    /// `:columns` opens the picker; `:columns name,value` sets them.
    Columns(Option<Vec<&'static str>>),
    Sync,
    /// `:select status=open` marks every record matching the tab's filters with these put
    /// over them (bare: every match, as `*`); `:unselect` unmarks them (bare: all).
    Select {
        filters: Vec<(&'static str, String)>,
        unmark: bool,
    },
    /// `:copy ids|emails|json`: the marked records (or the row under the cursor).
    Copy(crate::app::jobs::SelectionUse),
    /// `:open`: the marked records (or the row) in the browser.
    Open,
    /// `:jobs`: long work, running and finished.
    Jobs,
    /// `:plan PATH [shift=+1d] [end=30m]`: a reschedule plan's preview, then its run.
    Plan {
        path: std::path::PathBuf,
        words: crate::app::plan::PlanWords,
    },
    /// `:import PATH [dupes=skip] ...`: a contact import's preview, then its run.
    Import {
        path: std::path::PathBuf,
        words: crate::app::import::ImportWords,
    },
    /// `:log`: the write journal.
    Log,
    /// `:today`: the Today screen.
    Today,
    /// `:changes`: the newest changes the syncs saw, filtered as one types.
    Changes,
    /// `:dupes`: the near duplicate contacts of the local mirror.
    Dupes,
    Help,
    /// `:requests`: the request log.
    Requests,
    /// `:run NAME`: a user action (`[actions.NAME]`).
    Run(String),
    Quit,
}

/// Every command word, in the order `:help` and completion list them.
pub const COMMANDS: &[(&str, &str)] = &[
    (
        "contacts",
        "Contacts [email=S full_name=S sort=-KEY include=A,B]",
    ),
    (
        "deals",
        "Deals [status=S name=S sort=-value include=A,B per=N]",
    ),
    (
        "projects",
        "Projects [status=S name=S sort=KEY include=A,B per=N]",
    ),
    ("view", "NAME: open a saved view"),
    ("save", "NAME: save this tab's query as a view"),
    ("views", "list saved views (open, rename, delete)"),
    ("page", "N: go to page N"),
    ("per", "N: page size (10, 25, 50, 100)"),
    ("include", "A,B: related records to include (- for none)"),
    ("columns", "[A,B,...]: choose and order the columns"),
    ("export", "[csv|json]: export the view"),
    ("profile", "[NAME]: switch profile (without NAME: pick one)"),
    ("help", "keys and commands"),
    ("sync", "refresh the local mirror"),
    ("dupes", "near duplicate contacts (local mirror)"),
    (
        "select",
        "[KEY=VALUE...]: mark every match (status=open); bare: as *",
    ),
    (
        "unselect",
        "[KEY=VALUE...]: unmark the matches; bare: every mark",
    ),
    (
        "copy",
        "ids|emails|json: copy the marked records (or the row)",
    ),
    ("open", "the marked records (or the row) in the browser"),
    (
        "jobs",
        "exports, readings, syncs and selections, with outcome",
    ),
    (
        "plan",
        "FILE [shift=+1d] [end=30m]: preview a reschedule plan, then run it",
    ),
    (
        "import",
        "FILE [dupes=skip] [map=H=F]...: preview a contact import, then run it",
    ),
    (
        "log",
        "the write journal: every write sent from this machine",
    ),
    ("requests", "this session's requests (show, copy as curl)"),
    (
        "run",
        "NAME: run your action [actions.NAME] on the selected record",
    ),
    ("today", "what changed since your last visit (local mirror)"),
    (
        "changes",
        "the newest changes the syncs saw (type to filter)",
    ),
    ("q", "quit"),
];

/// Splits on spaces, keeping double-quoted stretches together (`name="Acme Corp"`).
pub fn split_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

fn command_list() -> String {
    COMMANDS
        .iter()
        .map(|(c, _)| *c)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses and checks a line (with or without its leading `:`).
pub fn parse(line: &str, cx: &PaletteContext) -> Result<Command, String> {
    let line = line.trim().trim_start_matches(':');
    let words = split_words(line);
    let Some((head, args)) = words.split_first() else {
        return Err(format!("type a command: {}", command_list()));
    };
    let head = head.to_ascii_lowercase();
    if let Some(kind) = Resource::named(&head) {
        return query_command(kind, args).map(Command::Query);
    }
    let one = |what: &str| -> Result<&String, String> {
        match args {
            [a] => Ok(a),
            [] => Err(format!(":{head} needs {what}")),
            _ => Err(format!(":{head} takes one word: {what}")),
        }
    };
    let none = || -> Result<(), String> {
        if args.is_empty() {
            Ok(())
        } else {
            Err(format!(":{head} takes no arguments"))
        }
    };
    let active = cx.active;
    match head.as_str() {
        "page" => {
            let n = one("a page number")?;
            match n.parse::<u32>() {
                Ok(p) if p >= 1 => Ok(Command::Page(p)),
                _ => Err(format!("page '{n}': use a number, 1 or more")),
            }
        }
        "per" | "per_page" => {
            let n = one("a page size (10, 25, 50, 100)")?;
            let p = n
                .parse::<u32>()
                .map_err(|_| format!("page size '{n}': use 10, 25, 50 or 100"))?;
            check_per_page(p).map(Command::Per)
        }
        "include" | "includes" => {
            if args.is_empty() {
                return Err(format!(
                    ":include needs relations: {} (- for none)",
                    active.includes().join(", ")
                ));
            }
            let list: Vec<String> = args
                .iter()
                .flat_map(|a| a.split(','))
                .filter(|s| *s != "-" && *s != "none")
                .map(str::to_string)
                .collect();
            check_includes(active, &list).map(Command::Include)
        }
        "export" => match args {
            [] => Ok(Command::Export(None)),
            [f] if f.eq_ignore_ascii_case("csv") => Ok(Command::Export(Some(ExportFormat::Csv))),
            [f] if f.eq_ignore_ascii_case("json") => Ok(Command::Export(Some(ExportFormat::Json))),
            _ => Err(format!(
                "export format '{}': use csv or json",
                args.join(" ")
            )),
        },
        "view" => {
            let name = one("a view name")?;
            if let Some(e) = cx.view_errors.get(name) {
                Err(e.clone())
            } else if cx.views.iter().any(|v| v == name) {
                Ok(Command::View(name.clone()))
            } else if cx.views.is_empty() {
                Err(format!(
                    "no view '{name}': none saved yet (:save NAME saves this tab's query)"
                ))
            } else {
                Err(format!("no view '{name}': use {}", cx.views.join(", ")))
            }
        }
        "save" => {
            let name = one("a name for the view")?;
            check_view_name(name)?;
            Ok(Command::Save(name.clone()))
        }
        "views" => none().map(|()| Command::Views),
        "profile" | "profiles" => {
            if args.is_empty() {
                return Ok(Command::Profile(None));
            }
            let name = one(&format!("a profile: {}", cx.profiles.join(", ")))?;
            if cx.profiles.iter().any(|p| p == name) {
                Ok(Command::Profile(Some(name.clone())))
            } else {
                Err(format!(
                    "no profile '{name}': use {} (profiles are [profiles.NAME] in the config file)",
                    cx.profiles.join(", ")
                ))
            }
        }
        "columns" | "cols" => {
            if args.is_empty() {
                return Ok(Command::Columns(None));
            }
            let list: Vec<String> = args
                .iter()
                .flat_map(|a| a.split(','))
                .map(str::to_string)
                .collect();
            views::check_columns(active, &list).map(|c| Command::Columns(Some(c)))
        }
        "sync" => none().map(|()| Command::Sync),
        "select" | "unselect" => {
            let q = query_command(active, args)?;
            if q.sort.is_some()
                || q.includes.is_some()
                || q.per_page.is_some()
                || q.page.is_some()
                || q.columns.is_some()
            {
                let keys: Vec<&str> = active.filters().iter().map(|f| f.key).collect();
                return Err(format!(":{head} takes filters only: {}", keys.join(", ")));
            }
            Ok(Command::Select {
                filters: q.filters,
                unmark: head == "unselect",
            })
        }
        "copy" => {
            use crate::app::jobs::SelectionUse;
            match one("what to copy: ids, emails or json")?
                .to_ascii_lowercase()
                .as_str()
            {
                "ids" | "id" => Ok(Command::Copy(SelectionUse::CopyIds)),
                "emails" | "email" | "e-mails" => Ok(Command::Copy(SelectionUse::CopyEmails)),
                "json" => Ok(Command::Copy(SelectionUse::CopyJson)),
                other => Err(format!("copy '{other}': use ids, emails or json")),
            }
        }
        "open" => none().map(|()| Command::Open),
        "jobs" => none().map(|()| Command::Jobs),
        "plan" => match args.split_first() {
            None => Err(":plan needs a file: :plan moves.csv [shift=+1d] [end=30m]".into()),
            Some((path, words)) => Ok(Command::Plan {
                path: std::path::PathBuf::from(path),
                words: crate::app::plan::PlanWords::parse(words)?,
            }),
        },
        "import" => match args.split_first() {
            None => Err(
                ":import needs a file: :import people.csv [dupes=warn|skip|create] [map=HEADER=FIELD]"
                    .into(),
            ),
            Some((path, words)) => Ok(Command::Import {
                path: std::path::PathBuf::from(path),
                words: crate::app::import::ImportWords::parse(words)?,
            }),
        },
        "log" => none().map(|()| Command::Log),
        "requests" => none().map(|()| Command::Requests),
        "run" => one("an action's name ([actions.NAME] in the config file)")
            .map(|n| Command::Run(n.clone())),
        "today" => none().map(|()| Command::Today),
        "changes" => none().map(|()| Command::Changes),
        "dupes" | "duplicates" => none().map(|()| Command::Dupes),
        "help" | "h" | "?" => none().map(|()| Command::Help),
        "q" | "quit" | "q!" | "exit" => none().map(|()| Command::Quit),
        other => Err(format!("unknown command '{other}': use {}", command_list())),
    }
}

/// `status=open sort=-value include=account per=50 page=2` for `kind`.
pub fn query_command(kind: Resource, args: &[String]) -> Result<ViewQuery, String> {
    let mut words = QueryWords::default();
    for a in args {
        let Some((key, value)) = a.split_once('=') else {
            return Err(format!(
                "'{a}' is not KEY=VALUE: {} take {}",
                kind.noun(),
                views::query_keys(kind).join(", ")
            ));
        };
        let key = key.trim().to_ascii_lowercase();
        let value = value.trim().to_string();
        match key.as_str() {
            "sort" | "sort_by" => words.sort = Some(value),
            "include" | "includes" => {
                words.include = Some(
                    value
                        .split(',')
                        .filter(|s| *s != "-" && *s != "none")
                        .map(str::to_string)
                        .collect(),
                )
            }
            "per" | "per_page" => {
                let p = value
                    .parse()
                    .map_err(|_| format!("per={value}: use 10, 25, 50 or 100"))?;
                words.per_page = Some(p);
            }
            "page" => {
                let p = value
                    .parse()
                    .map_err(|_| format!("page={value}: use a number, 1 or more"))?;
                words.page = Some(p);
            }
            "columns" | "cols" => {
                words.columns = Some(value.split(',').map(str::to_string).collect())
            }
            _ => {
                words.filters.insert(key, value);
            }
        }
    }
    views::resolve(kind, &words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::SortDirection;

    fn cx() -> PaletteContext {
        PaletteContext {
            active: Resource::Deals,
            views: vec!["open-big".into()],
            view_errors: Default::default(),
            profiles: vec!["default".into(), "work".into()],
            active_profile: "default".into(),
            statuses: vec![Vec::new(); Resource::ALL.len()],
        }
    }

    #[test]
    fn parses_the_commands() {
        let c = parse(":deals status=open sort=-value", &cx()).unwrap();
        let Command::Query(q) = c else { panic!() };
        assert_eq!(q.kind, Resource::Deals);
        assert_eq!(q.sort, Some(("value", SortDirection::Desc)));
        assert_eq!(
            parse("contacts name=\"Ada L\"", &cx()).unwrap_err(),
            "contacts have no filter 'name': use full_name, email, created_after, updated_after, sort, include, per, page, columns"
        );
        assert_eq!(parse("page 5", &cx()), Ok(Command::Page(5)));
        assert_eq!(parse("per 100", &cx()), Ok(Command::Per(100)));
        assert!(parse("per 7", &cx()).unwrap_err().contains("10, 25, 50"));
        assert_eq!(
            parse("include account,contacts", &cx()),
            Ok(Command::Include(vec!["account", "contacts"]))
        );
        assert_eq!(
            parse("export csv", &cx()),
            Ok(Command::Export(Some(ExportFormat::Csv)))
        );
        assert_eq!(
            parse("view open-big", &cx()),
            Ok(Command::View("open-big".into()))
        );
        assert!(parse("view nope", &cx()).unwrap_err().contains("open-big"));
        assert_eq!(parse("q", &cx()), Ok(Command::Quit));
        let e = parse("dela", &cx()).unwrap_err();
        assert!(
            e.starts_with("unknown command 'dela': use contacts, deals"),
            "{e}"
        );
    }

    #[test]
    fn quoted_words_keep_their_spaces() {
        assert_eq!(
            split_words("deals name=\"Acme Corp\"  status=open"),
            ["deals", "name=Acme Corp", "status=open"]
        );
    }
}
