//! Links the `crmdash` binary with packed relative relocations (`-z pack-relative-relocs`,
//! DT_RELR) when it is built for the machine it is built on and that machine's glibc can load
//! them (2.36 or later). A position-independent executable's tens of thousands of relative
//! relocations otherwise dirty about 1 MB of pages at every start (resident memory, start-up
//! time); packed, they take a few KB. ASLR is kept. Elsewhere (cross builds, musl, older glibc)
//! nothing changes. `CRMDASH_NO_RELR=1` opts out.
//!
//! It also says which build this is (`crmdash --version`): the git commit and its date, or,
//! outside a git checkout (a source tarball), `CRMDASH_BUILD_COMMIT` if set and the date of
//! `SOURCE_DATE_EPOCH` or of the build.

use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CRMDASH_NO_RELR");
    build_info();
    let target = env::var("TARGET").unwrap_or_default();
    let host = env::var("HOST").unwrap_or_default();
    if env::var_os("CRMDASH_NO_RELR").is_some()
        || target != host
        || !target.ends_with("-linux-gnu")
        || !glibc_at_least(2, 36)
    {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
}

/// The running (build machine's) glibc version, compared with `major.minor`.
fn glibc_at_least(major: u32, minor: u32) -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: returns a pointer to a static NUL-terminated string owned by glibc.
        let version = unsafe { std::ffi::CStr::from_ptr(libc::gnu_get_libc_version()) };
        let mut parts = version
            .to_str()
            .unwrap_or_default()
            .split('.')
            .map(|p| p.parse::<u32>().unwrap_or(0));
        let (a, b) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        (a, b) >= (major, minor)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = (major, minor);
        false
    }
}

/// Sets `CRMDASH_COMMIT` and `CRMDASH_BUILD_DATE` for the crate, and reruns when HEAD moves.
fn build_info() {
    println!("cargo:rerun-if-env-changed=CRMDASH_BUILD_COMMIT");
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").args(args).output().ok()?;
        let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
        (out.status.success() && !text.is_empty()).then_some(text)
    };
    let from_git = git(&["rev-parse", "--short=12", "HEAD"]).zip(git(&[
        "log",
        "-1",
        "--format=%cd",
        "--date=format:%Y-%m-%d",
    ]));
    let (commit, date) = match from_git {
        Some((commit, date)) => {
            // A new commit or checkout changes HEAD or the branch it names.
            // (Only files that exist: cargo reruns the script for a missing one every build.)
            let mut watch = vec!["HEAD".to_string(), "packed-refs".to_string()];
            watch.extend(git(&["symbolic-ref", "-q", "HEAD"]));
            for path in watch {
                if let Some(p) = git(&["rev-parse", "--git-path", &path])
                    && std::path::Path::new(&p).exists()
                {
                    println!("cargo:rerun-if-changed={p}");
                }
            }
            (commit, date)
        }
        None => (
            env::var("CRMDASH_BUILD_COMMIT").unwrap_or_else(|_| "unknown commit".to_string()),
            build_date(),
        ),
    };
    println!("cargo:rustc-env=CRMDASH_COMMIT={commit}");
    println!("cargo:rustc-env=CRMDASH_BUILD_DATE={date}");
}

/// `SOURCE_DATE_EPOCH` (reproducible builds) or now, as `YYYY-MM-DD` in UTC.
fn build_date() -> String {
    let secs = env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0)
        });
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
