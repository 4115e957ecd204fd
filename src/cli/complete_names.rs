//! Dynamic shell completion (`source <(COMPLETE=bash crmdash)`): clap_complete's engine asks
//! these functions for the values of an argument while the user presses TAB. They answer
//! offline from local files only: profiles from the config file, saved views, appointment ids
//! from the reschedule log, contact, deal and project ids with their names from the mirror.
//! Nothing here may print, prompt or touch the network; a failure is no candidates.

use std::ffi::OsStr;

use clap_complete::engine::{ArgValueCompleter, CompletionCandidate};

use crate::config::{self, EnvOverrides, Settings};
use crate::mirror::{Mirror, MirrorLocation};
use crate::resource::Resource;

/// Candidates offered at most (a shell shows no more usefully).
const LIMIT: usize = 50;

/// Answers a completion request when `COMPLETE` is set (and exits); returns otherwise.
pub fn answer_if_asked() {
    clap_complete::CompleteEnv::with_factory(|| {
        use clap::CommandFactory;
        crate::cli::Cli::command()
    })
    .complete();
}

/// `--profile`: the profiles of the config file, with their base URLs.
pub fn profiles() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let typed = current.to_string_lossy();
        let settings = settings();
        settings
            .profiles
            .iter()
            .filter(|(name, _)| name.starts_with(typed.as_ref()))
            .map(|(name, p)| {
                CompletionCandidate::new(name).help(p.base_url.as_ref().map(|u| u.into()))
            })
            .collect()
    })
}

/// `--view`: saved views (of the resource named on the command line, when one is), each with
/// its resource and filters.
pub fn views() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let typed = current.to_string_lossy();
        let Some(path) = config::views::views_path() else {
            return Vec::new();
        };
        let resource = words().iter().find_map(|w| Resource::named(w));
        config::views::load_views(&path)
            .views
            .into_iter()
            .filter(|(name, v)| {
                name.starts_with(typed.as_ref()) && resource.is_none_or(|r| r.noun() == v.resource)
            })
            .map(|(name, v)| {
                let filters: Vec<String> = v
                    .filters
                    .iter()
                    .map(|(k, val)| format!("{k}={val}"))
                    .collect();
                let help = format!("{} {}", v.resource, filters.join(" "));
                CompletionCandidate::new(name).help(Some(help.trim_end().to_string().into()))
            })
            .collect()
    })
}

/// `appointments reschedule <ID>`: appointments rescheduled before (the reschedule log, the
/// profile's first), newest first, each with when it was moved to.
pub fn appointments() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let typed = current.to_string_lossy();
        let Some(path) = crate::reschedule::log::default_path() else {
            return Vec::new();
        };
        let Ok(entries) = crate::reschedule::read_log(&path, 500) else {
            return Vec::new();
        };
        let settings = settings();
        let profile = resolved(&settings).map(|(p, _)| p);
        let Ok(zone) = crate::cli::times::zone_named(settings.display_zone()) else {
            return Vec::new();
        };
        let mut seen: Vec<String> = Vec::new();
        let mut out = Vec::new();
        let mut newest_first: Vec<_> = entries.into_iter().rev().collect();
        // The profile's own reschedules first, keeping each list newest first.
        newest_first.sort_by_key(|e| Some(&e.profile) != profile.as_ref());
        for e in newest_first {
            if !e.id.starts_with(typed.as_ref()) || seen.contains(&e.id) {
                continue;
            }
            seen.push(e.id.clone());
            let (start, end) = e.times_in(&settings.reschedule, &zone);
            let help = format!("moved to {start}–{end} ({})", e.profile);
            out.push(CompletionCandidate::new(&e.id).help(Some(help.into())));
            if out.len() == LIMIT {
                break;
            }
        }
        out
    })
}

/// Ids of `resource` from the mirror, each with its name (see [`Mirror::complete_ids`]).
pub fn record_ids(resource: Resource) -> ArgValueCompleter {
    ArgValueCompleter::new(move |current: &OsStr| ids(resource, &current.to_string_lossy(), ""))
}

/// `crmdash api METHOD PATH`: the resources' paths, then `contacts/<id>` with names.
pub fn api_paths() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let typed = current.to_string_lossy();
        let bare = typed.trim_start_matches('/');
        let lead = &typed[..typed.len() - bare.len()];
        let bare = bare.strip_prefix("public/v1/").unwrap_or(bare);
        let prefix_len = typed.len() - bare.len();
        if let Some((noun, rest)) = bare.split_once('/')
            && let Some(resource) = Resource::named(noun)
            && !rest.contains('/')
        {
            let prefix = format!("{}{noun}/", &typed[..prefix_len]);
            return ids(resource, rest, &prefix);
        }
        let nouns = Resource::ALL
            .iter()
            .map(|r| r.noun())
            .chain(["appointments"]);
        nouns
            .flat_map(|n| [n.to_string(), format!("{n}/")])
            .filter(|p| p.starts_with(bare))
            .map(|p| CompletionCandidate::new(format!("{lead}{p}")))
            .collect()
    })
}

fn ids(resource: Resource, typed: &str, prefix: &str) -> Vec<CompletionCandidate> {
    let settings = settings();
    let Some((profile, base_url)) = resolved(&settings) else {
        return Vec::new();
    };
    let Ok(loc) = MirrorLocation::for_settings(&settings.cache, &profile, &base_url) else {
        return Vec::new();
    };
    let Ok(Some(opened)) = Mirror::open_existing(&loc.db_path()) else {
        return Vec::new();
    };
    let Ok(found) = opened.mirror.complete_ids(resource, typed, LIMIT) else {
        return Vec::new();
    };
    found
        .into_iter()
        .map(|(id, label)| {
            CompletionCandidate::new(format!("{prefix}{id}")).help(Some(label.into()))
        })
        .collect()
}

/// The config file's settings, warnings dropped (completion prints nothing of its own).
fn settings() -> Settings {
    config::load(None).settings
}

/// The command line being completed (after the `--` the shell script puts before it).
fn words() -> Vec<String> {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == "--") {
        Some(i) => args[i + 1..].to_vec(),
        None => args,
    }
}

/// `--profile` and `--base-url` as typed on the line being completed.
fn flag(words: &[String], name: &str) -> Option<String> {
    let long = format!("--{name}");
    let eq = format!("--{name}=");
    let mut it = words.iter();
    while let Some(w) = it.next() {
        if *w == long {
            return it.next().cloned();
        }
        if let Some(v) = w.strip_prefix(&eq) {
            return Some(v.to_string());
        }
    }
    None
}

/// The profile and base URL the completed command would use (flags on the line, then the
/// environment, then the config file), or `None` for `--demo` or without a base URL.
fn resolved(settings: &Settings) -> Option<(String, String)> {
    let words = words();
    if words.iter().any(|w| w == "--demo") {
        return None;
    }
    let env = EnvOverrides::from_env();
    let r = config::resolve(
        settings,
        flag(&words, "profile").as_deref(),
        flag(&words, "base-url").as_deref(),
        &env,
    )
    .ok()?;
    Some((r.profile, r.base_url))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_read_in_both_spellings() {
        let w: Vec<String> = ["crmdash", "--profile", "work", "api", "--base-url=http://x"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(flag(&w, "profile").as_deref(), Some("work"));
        assert_eq!(flag(&w, "base-url").as_deref(), Some("http://x"));
        assert_eq!(flag(&w, "view"), None);
    }
}
