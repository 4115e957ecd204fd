//! Links the `crmdash` binary with packed relative relocations (`-z pack-relative-relocs`,
//! DT_RELR) when it is built for the machine it is built on and that machine's glibc can load
//! them (2.36 or later). A position-independent executable's tens of thousands of relative
//! relocations otherwise dirty about 1 MB of pages at every start (resident memory, start-up
//! time); packed, they take a few KB. ASLR is kept. Elsewhere (cross builds, musl, older glibc)
//! nothing changes. `CRMDASH_NO_RELR=1` opts out.
//!
//! In a release build linked by LLD (rustc's default linker on x86_64 Linux since 1.90), the
//! functions named in `layout/hot.order` (the ones the dashboard runs to start, browse and
//! idle, recorded by `layout/record.sh`) are laid out first and together. The kernel maps a
//! binary's code in 64 KiB windows (fault-around): scattered through 20 MB of code, the few
//! hundred KB that run made 14-16 MB resident; together they fit in a few windows. A name the
//! list has and the build does not (code changed since it was recorded) is skipped; the rest
//! keeps the linker's order. A linker that does not take the list (checked by linking a small
//! program with it first) links as before. `CRMDASH_NO_LAYOUT=1` opts out.
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
    hot_code_first(&target, &host);
    if env::var_os("CRMDASH_NO_RELR").is_some()
        || target != host
        || !target.ends_with("-linux-gnu")
        || !glibc_at_least(2, 36)
    {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
}

/// Passes `layout/hot.order` to the linker as its symbol ordering file (see the top), when the
/// linker takes one: a small program is linked first with the same linker, flags and option
/// (LLD takes it; GNU ld, a distribution's rustc without LLD or a configured `linker` may not).
/// A missing file or a linker without the option builds as before; a stale list (names the
/// build no longer has) is skipped name by name. Never fails the build.
fn hot_code_first(target: &str, host: &str) {
    // The folder (cargo looks at every file in it): a missing file would rerun the script at
    // every build.
    println!("cargo:rerun-if-changed=layout");
    println!("cargo:rerun-if-env-changed=CRMDASH_NO_LAYOUT");
    println!("cargo:rerun-if-env-changed=CRMDASH_LINK_MAP");
    let order = std::path::Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap_or_default())
        .join("layout")
        .join("hot.order");
    if env::var_os("CRMDASH_NO_LAYOUT").is_some()
        || env::var("PROFILE").as_deref() != Ok("release")
        || target != "x86_64-unknown-linux-gnu"
        || target != host
    {
        return;
    }
    if !order.is_file() {
        println!(
            "cargo:warning=layout/hot.order is missing: the release binary keeps the linker's \
             order (more of it resident; layout/record.sh writes the file)"
        );
        return;
    }
    let args = [
        format!("-Wl,--symbol-ordering-file={}", order.display()),
        "-Wl,--no-warn-symbol-ordering".to_string(),
    ];
    if !links_with(&args) {
        return;
    }
    for arg in &args {
        println!("cargo:rustc-link-arg-bins={arg}");
    }
    // `CRMDASH_LINK_MAP=path`: the linker also writes its map (each function's address), to
    // check where the ordered code went.
    if let Some(map) = env::var_os("CRMDASH_LINK_MAP") {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,-Map={}",
            map.to_string_lossy()
        );
    }
}

/// Whether a small program links with `args` added, with the linker and flags the crate's
/// binaries will be linked with (`RUSTC_LINKER` and `CARGO_ENCODED_RUSTFLAGS`, as cargo sets
/// them for this script).
fn links_with(args: &[String]) -> bool {
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let Some(out_dir) = env::var_os("OUT_DIR").map(std::path::PathBuf::from) else {
        return false;
    };
    let source = out_dir.join("link_probe.rs");
    if std::fs::write(&source, "fn main() {}\n").is_err() {
        return false;
    }
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let mut cmd = Command::new(rustc);
    cmd.arg("--edition=2021")
        .arg("--crate-type=bin")
        .arg("--crate-name=link_probe")
        .arg("-o")
        .arg(out_dir.join("link_probe"))
        .arg(&source);
    if let Ok(target) = env::var("TARGET") {
        cmd.arg("--target").arg(target);
    }
    if let Some(linker) = env::var_os("RUSTC_LINKER") {
        cmd.arg("-C")
            .arg(format!("linker={}", linker.to_string_lossy()));
    }
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    cmd.args(flags.split('\x1f').filter(|f| !f.is_empty()));
    for arg in args {
        cmd.arg("-C").arg(format!("link-arg={arg}"));
    }
    let ok = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let _ = std::fs::remove_file(out_dir.join("link_probe"));
    ok
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
