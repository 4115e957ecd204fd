//! Links the `crmdash` binary with packed relative relocations (`-z pack-relative-relocs`,
//! DT_RELR) when it is built for the machine it is built on and that machine's glibc can load
//! them (2.36 or later). A position-independent executable's tens of thousands of relative
//! relocations otherwise dirty about 1 MB of pages at every start (resident memory, start-up
//! time); packed, they take a few KB. ASLR is kept. Elsewhere (cross builds, musl, older glibc)
//! nothing changes. `CRMDASH_NO_RELR=1` opts out.

use std::env;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CRMDASH_NO_RELR");
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
