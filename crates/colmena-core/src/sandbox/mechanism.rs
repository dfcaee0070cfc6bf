//! Which confinement this system offers, and where the launcher is.
//!
//! On macOS: Seatbelt (`sandbox-exec`, part of every macOS), see
//! `seatbelt.rs`. On Linux:
//! Landlock (ABI 6, Linux 6.12+, enabled at boot — most distributions do)
//! needs no privilege and no extra program. Where the kernel lacks it (or
//! has only an older Landlock, which leaves truncation and signals open),
//! bubblewrap
//! (`bwrap`, `apt install bubblewrap`) builds a private mount namespace with
//! the same view. With neither, programs are refused: running them with the
//! whole file system open is what the sandbox exists to prevent.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::error::{AppError, Result};

/// Names the launcher explicitly (a packaged layout this code does not
/// know, or a development build).
pub(crate) const LAUNCHER_ENV: &str = "COLMENA_SANDBOX_LAUNCHER";

/// The launcher's file name; it ships next to `colmena` and the app.
#[cfg(not(windows))]
const LAUNCHER_NAME: &str = "colmena-sandbox";
#[cfg(windows)]
const LAUNCHER_NAME: &str = "colmena-sandbox.exe";

/// Where `bwrap` is looked for (never through the app's own `PATH`).
#[cfg_attr(windows, allow(dead_code))]
const BWRAP: [&str; 3] = ["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"];

/// How programs are confined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mechanism {
    /// The launcher applies a Landlock ruleset to itself.
    Landlock,
    /// `bwrap` at this path builds the view; the launcher applies the limits.
    Bubblewrap(PathBuf),
    /// macOS: `sandbox-exec` at this path holds the launcher and the
    /// program in a Seatbelt profile; the launcher applies the limits.
    #[cfg(target_os = "macos")]
    Seatbelt(PathBuf),
    /// Windows: no confinement of the file system or the network in
    /// Colmena yet. The launcher runs the program in a Job Object (its
    /// whole tree ends on a stop, a timeout, a flood or the app's death;
    /// the job caps each process's memory and CPU time and the number of
    /// processes — against a runaway program: a hostile one runs as the
    /// person and could change its own job) with a cleared environment, the workspace as its folder
    /// and output caps; the permission gate asks a person before every
    /// call and says what is not confined ([`UNCONFINED`]).
    #[cfg(windows)]
    Unconfined,
}

/// What a program run on a system without a sandbox can reach, as the
/// person deciding on it (and the model) is told.
pub(crate) const UNCONFINED: &str = "Windows has no sandbox in Colmena yet: the program runs \
     as you, and can read and change every file you can and reach the network; only its \
     environment is cleared, its folder is the agent's workspace, its output is capped, and \
     it and what it starts share a job that limits their memory, CPU time and processes (a \
     guard against a runaway program, not a hostile one) and is stopped with them";

/// What an exit code says beyond itself: on Windows, 1816
/// (`ERROR_NOT_ENOUGH_QUOTA`) is how a process ends when its job's limit
/// stops it (Unix says the same with a signal, "killed by a signal").
pub(crate) fn exit_note(code: i32) -> Option<&'static str> {
    (cfg!(windows) && code == 1816).then_some(
        "the program reached a limit of its job (memory, CPU time or number of processes) \
         and was stopped",
    )
}

impl Mechanism {
    /// For `colmena doctor` and messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            Mechanism::Landlock => "Landlock".to_owned(),
            Mechanism::Bubblewrap(path) => format!("bubblewrap ({})", path.display()),
            #[cfg(target_os = "macos")]
            Mechanism::Seatbelt(path) => format!("Seatbelt ({})", path.display()),
            #[cfg(windows)]
            Mechanism::Unconfined => {
                "none: a Job Object with limits only (the file system and the network are open)"
                    .to_owned()
            }
        }
    }

    /// Whether the program is held to the workspace (files and network).
    pub(crate) fn confines(&self) -> bool {
        #[cfg(windows)]
        return !matches!(self, Mechanism::Unconfined);
        #[cfg(not(windows))]
        true
    }
}

/// True when programs agents run here are not confined (Windows): the gate
/// then asks a person before every such call.
pub(crate) fn programs_unconfined() -> bool {
    detect().is_ok_and(|m| !m.confines())
}

/// The mechanism of this system, found once per process.
pub(crate) fn detect() -> Result<Mechanism> {
    static FOUND: OnceLock<std::result::Result<Mechanism, String>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            #[cfg(target_os = "macos")]
            if let Some(sandbox_exec) = seatbelt() {
                return Ok(Mechanism::Seatbelt(sandbox_exec));
            }
            #[cfg(windows)]
            return Ok(Mechanism::Unconfined);
            #[cfg(not(windows))]
            choose(landlock_available(), bubblewrap())
        })
        .clone()
        .map_err(AppError::precondition)
}

/// Landlock first, then bubblewrap, else why programs cannot run.
#[cfg_attr(windows, allow(dead_code))]
pub(super) fn choose(
    landlock: bool,
    bwrap: Option<PathBuf>,
) -> std::result::Result<Mechanism, String> {
    match (landlock, bwrap) {
        (true, _) => Ok(Mechanism::Landlock),
        (false, Some(bwrap)) => Ok(Mechanism::Bubblewrap(bwrap)),
        (false, None) => Err(NONE_AVAILABLE.to_owned()),
    }
}

#[cfg_attr(windows, allow(dead_code))]
const NONE_AVAILABLE: &str = "programs cannot run here: Colmena runs them confined to the agent's \
     workspace, and this system has neither Landlock (Linux 6.12 or newer, with the \
     'landlock' security module enabled at boot) nor bubblewrap; install bubblewrap \
     (for example `sudo apt install bubblewrap`) and try again";

/// True when the kernel accepts a Landlock ruleset of at least
/// [`MIN_ABI`](super::protocol::MIN_ABI), as the launcher builds it (creating
/// one has no effect on this process until it is enforced, which we never
/// do here).
#[cfg(target_os = "linux")]
pub(crate) fn landlock_available() -> bool {
    use landlock::{Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, Scope};
    let min = super::protocol::MIN_ABI;
    Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(min))
        .and_then(|r| r.scope(Scope::from_all(min)))
        .and_then(|r| r.create())
        .is_ok()
}

#[cfg(not(target_os = "linux"))]
#[cfg_attr(windows, allow(dead_code))]
pub(crate) fn landlock_available() -> bool {
    false
}

/// `sandbox-exec`, on macOS (where every version has it).
#[cfg(target_os = "macos")]
pub(crate) fn seatbelt() -> Option<PathBuf> {
    Some(PathBuf::from(super::seatbelt::SANDBOX_EXEC)).filter(|p| p.is_file())
}

/// `bwrap`, when installed in a system folder.
#[cfg_attr(windows, allow(dead_code))]
pub(crate) fn bubblewrap() -> Option<PathBuf> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    BWRAP.iter().map(PathBuf::from).find(|p| p.is_file())
}

/// The launcher: [`LAUNCHER_ENV`], else next to this program (the app,
/// `colmena`), else one folder up (test binaries live in `target/*/deps`).
pub(crate) fn launcher() -> Result<PathBuf> {
    if let Some(named) = std::env::var_os(LAUNCHER_ENV).filter(|v| !v.is_empty()) {
        let named = PathBuf::from(named);
        return if named.is_file() {
            Ok(named)
        } else {
            Err(AppError::precondition(format!(
                "{LAUNCHER_ENV} names {}, which is not a file",
                named.display()
            )))
        };
    }
    let exe = std::env::current_exe()
        .map_err(|e| AppError::precondition(format!("cannot find this program's folder: {e}")))?;
    let candidates: Vec<PathBuf> = exe
        .ancestors()
        .skip(1)
        .take(2)
        .map(|dir| dir.join(LAUNCHER_NAME))
        .collect();
    candidates.iter().find(|p| p.is_file()).cloned().ok_or_else(|| {
        AppError::precondition(format!(
            "programs cannot run here: the sandbox launcher {LAUNCHER_NAME} is missing (looked for {}); \
             reinstall Colmena, or build it with `cargo build -p colmena-core --bin colmena-sandbox`, \
             or name it in {LAUNCHER_ENV}",
            candidates
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// Folders a program may read and run things from (not write).
pub(super) const SYSTEM_READ: [&str; 10] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc",
];

/// Device files a program may read and write (`> /dev/null` must work).
pub(super) const DEVICES: [&str; 5] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// True when `path` exists (a rule for a missing folder is skipped).
pub(super) fn exists(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}
