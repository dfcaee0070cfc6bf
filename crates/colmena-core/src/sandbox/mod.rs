//! The sandbox for programs agents run (`cli_exec`, the git tools).
//!
//! A model's tool call is text a stranger may have written (a message, a web
//! page), so a program it starts gets as little as it needs:
//!
//! - **a cleared environment**: an allow-list ([`env`]) — never the app's
//!   variables (`COLMENA_*`, API keys, tokens);
//! - **its own process group**, killed whole on cancel, on timeout, when the
//!   output floods, and when the program ends (nothing it started in the
//!   background outlives the call) — see [`group`];
//! - **capped output**, read as it streams ([`capture`]);
//! - **resource limits**: CPU time, address space, file size, processes,
//!   open files;
//! - **no privileges**: every capability dropped (bounding, ambient,
//!   inheritable, permitted, effective) and `no_new_privs`; never root —
//!   when the app runs as root, programs run as another user ([`user`]),
//!   to whom the workspace is handed;
//! - **a private `/proc`**: PID and mount namespaces of their own, so no
//!   other process's command line or environment is in view (bubblewrap
//!   makes its own; with Landlock, where the system allows namespaces to
//!   the app's user — always as root);
//! - **a syscall filter**: only IPv4 and IPv6 sockets, and not raw ones (no
//!   Unix sockets: the user's session bus, agents and display are out of
//!   reach; no packet sockets sniffing loopback; no netlink), no leaving the
//!   process group, no io_uring, no ptrace, module loading, `bpf`,
//!   `perf_event_open`, keyrings, device nodes or mounts; no sockets at all
//!   for jobs without network (the git tools);
//! - **the file system limited to the agent's workspace** (and a per-run
//!   temporary folder): read-only system folders so programs work, nothing
//!   else — not the data dir with the store and the master key. Landlock
//!   where the kernel has it, else bubblewrap when `bwrap` is installed,
//!   else the program is refused with a message that says what to install
//!   ([`mechanism`]).
//!
//! Limits and Landlock are applied by `colmena-sandbox`, a small launcher
//! that confines itself and then becomes the program (see `launcher.rs` for
//! why this is not done in the app's own process).
//!
//! - **an address policy for the network** (`cli_exec`): the program's
//!   network is a namespace of its own with nothing but its own loopback
//!   (on macOS, Seatbelt allows one port of the loopback, a door that
//!   wants the run's key); its one way out is the app's proxy ([`proxy`],
//!   `http_proxy`), which
//!   applies `web_fetch`'s policy — never metadata addresses; loopback and
//!   private ranges only when the agent may reach the local network. The
//!   git tools have no network at all.
//!
//! On Windows there is no sandbox yet (`Mechanism::Unconfined`): the
//! launcher holds the program in a Job Object, with the cleared environment,
//! the workspace as its folder and capped output, and nothing else; the
//! permission gate asks a person before every call there.
//!
//! The same launcher also keeps the user's MCP servers from outliving the
//! app (`--supervise`, [`supervised_command`]): those are the person's own
//! programs, not confined, but nothing they start survives them or the app
//! — not even a `kill -9` of the app (see `supervisor.rs`).

mod capture;
mod command;
mod env;
mod group;
mod mechanism;
mod protocol;
// Text only; used on macOS, its tests run everywhere.
#[cfg(any(target_os = "macos", test))]
mod seatbelt;
// Sandboxed programs reach it from the network namespace Linux's launcher
// makes, or on macOS at its loopback door; Windows' programs are not
// confined (no proxy to hold them to).
#[cfg_attr(windows, allow(dead_code))]
mod proxy;
mod supervise;
mod user;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::error::{AppError, Result};

pub(crate) use capture::Captured;
pub(crate) use mechanism::{
    Mechanism, UNCONFINED, detect, exit_note, launcher, programs_unconfined,
};
pub(crate) use proxy::Egress;
pub use supervise::{Input, kill_group, release_group, spawn_supervised, supervised_command};
pub(crate) use user::program_user;

/// Bytes of each stream (stdout, stderr) kept for the model.
pub(crate) const OUTPUT_CAP: usize = 32 * 1024;
/// Bytes a program may write in all before it is stopped: enough for a
/// chatty build, and `yes` stops within milliseconds.
pub(crate) const FLOOD_LIMIT: u64 = 8 * 1024 * 1024;
/// How long the readers wait for the pipes to close once the group is dead.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// What a program may use.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Address space, bytes.
    pub memory: u64,
    /// Largest file it may write, bytes.
    pub file_size: u64,
    /// Processes (and threads) of the user, counted by the kernel for the
    /// whole user: a fork bomb stops here.
    pub processes: u64,
    pub open_files: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory: 8 << 30,
            file_size: 1 << 30,
            processes: 4096,
            open_files: 1024,
        }
    }
}

/// CPU seconds a program may use: its time limit and a little more (the
/// wall clock stops it first; this stops a program that hides from it).
pub(super) fn cpu_seconds(job: &Job) -> u64 {
    job.timeout.as_secs().saturating_add(5)
}

/// Processes alive at once in a program's job on Windows. Linux counts
/// [`Limits::processes`] for the whole user (the desktop's own processes
/// included); a job counts only the program's tree, where a build tool's
/// parallel compilers stay far below this and a fork bomb stops.
const JOB_PROCESSES: u32 = 256;

/// The limits of a program's process tree on Windows, set on its Job
/// Object (the launcher sets them itself on Unix, see `command.rs`): the
/// same memory and CPU time per process as Unix, and at most
/// [`JOB_PROCESSES`] processes at once.
pub(super) fn tree_limits(job: &Job) -> colmena_win32::JobLimits {
    colmena_win32::JobLimits {
        memory: Some(job.limits.memory),
        cpu_time: Some(Duration::from_secs(cpu_seconds(job))),
        processes: Some(
            u32::try_from(job.limits.processes)
                .unwrap_or(u32::MAX)
                .min(JOB_PROCESSES),
        ),
    }
}

/// One program to run in an agent's workspace.
#[derive(Debug, Clone)]
pub(crate) struct Job {
    pub program: String,
    pub args: Vec<String>,
    /// The agent's workspace: the working folder, `HOME`, and the only
    /// folder it may write.
    pub workspace: PathBuf,
    /// Variables added to the allow-list (the git tools' `GIT_*`).
    pub env: Vec<(String, String)>,
    pub timeout: Duration,
    pub limits: Limits,
    /// The program may open network sockets (`cli_exec`), and reaches
    /// what [`Job::egress`] allows through the app's proxy; the git tools
    /// run without.
    pub network: bool,
    /// Where its network may go (the agent's local-network switch).
    pub egress: Egress,
}

impl Job {
    pub(crate) fn new(
        workspace: &Path,
        program: &str,
        args: Vec<String>,
        timeout: Duration,
    ) -> Job {
        Job {
            program: program.to_owned(),
            args,
            workspace: workspace.to_owned(),
            env: Vec::new(),
            timeout,
            limits: Limits::default(),
            network: true,
            egress: Egress::new(false),
        }
    }
}

/// Why a program was stopped before it ended by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    Timeout,
    /// It wrote more than [`FLOOD_LIMIT`] bytes.
    Flood,
}

/// How a program ended and what it wrote.
#[derive(Debug)]
pub(crate) struct Finished {
    /// The exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    pub stdout: Captured,
    pub stderr: Captured,
    pub stopped: Option<Stop>,
}

/// Runs `job` in the sandbox this system has; see the module docs.
pub(crate) async fn run(job: &Job, cancel: &CancellationToken) -> Result<Finished> {
    let mechanism = mechanism::detect()?;
    run_with(&mechanism, job, cancel).await
}

/// [`run`] with a chosen mechanism (tests force each one).
pub(crate) async fn run_with(
    mechanism: &Mechanism,
    job: &Job,
    cancel: &CancellationToken,
) -> Result<Finished> {
    let launcher = mechanism::launcher()?;
    let tmp = RunTmp::create()?;
    #[cfg(target_os = "linux")]
    let door = job.network.then(proxy::Door::open).transpose()?;
    #[cfg(target_os = "linux")]
    let proxy = door.as_ref().map(|door| command::Proxy::Forwarded {
        socket: door.socket(),
        dir: door.dir(),
    });
    #[cfg(target_os = "macos")]
    let door = job.network.then(proxy::LoopbackDoor::open).transpose()?;
    #[cfg(target_os = "macos")]
    let proxy = door.as_ref().map(|door| command::Proxy::Loopback {
        port: door.port(),
        url: door.url(),
    });
    #[cfg(windows)]
    let proxy = None;
    let mut command = command::build(mechanism, &launcher, job, tmp.path(), proxy)?;
    command
        .current_dir(&job.workspace)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    // No input; on Windows the launcher enters the Job Object first.
    let limits = tree_limits(job);
    let mut child = supervise::spawn_limited(&mut command, supervise::Input::Closed, &limits)
        .await
        .map_err(|e| AppError::precondition(format!("cannot start {}: {e}", job.program)))?;
    let group = child.id();
    // Connections end with the run (the guard is dropped on every return).
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    let _proxy = door.map(|door| door.serve(job.egress.clone()));
    let budget = Arc::new(capture::Budget::new(FLOOD_LIMIT));
    let stop_reading = CancellationToken::new();
    let stdout = child.stdout.take().map(|pipe| {
        tokio::spawn(capture::read(
            pipe,
            OUTPUT_CAP,
            budget.clone(),
            stop_reading.clone(),
        ))
    });
    let stderr = child.stderr.take().map(|pipe| {
        tokio::spawn(capture::read(
            pipe,
            OUTPUT_CAP,
            budget.clone(),
            stop_reading.clone(),
        ))
    });

    enum Ended {
        Exited(std::io::Result<std::process::ExitStatus>),
        Cancelled,
        Stopped(Stop),
    }
    let ended = tokio::select! {
        status = child.wait() => Ended::Exited(status),
        _ = cancel.cancelled() => Ended::Cancelled,
        _ = tokio::time::sleep(job.timeout) => Ended::Stopped(Stop::Timeout),
        _ = budget.flooded() => Ended::Stopped(Stop::Flood),
    };
    // Whatever ended the call, nothing the program started survives it.
    if let Some(group) = group {
        group::kill(group);
    }
    let (status, stopped, cancelled) = match ended {
        Ended::Exited(status) => (Some(status), None, false),
        Ended::Cancelled => (None, None, true),
        Ended::Stopped(why) => (None, Some(why), false),
    };
    if status.is_none() {
        let _ = child.wait().await;
    }
    let grace = stop_reading.clone();
    tokio::spawn(async move {
        tokio::time::sleep(DRAIN_GRACE).await;
        grace.cancel();
    });
    let stdout = join(stdout).await;
    let stderr = join(stderr).await;
    stop_reading.cancel();

    if cancelled {
        return Err(crate::llm::http::cancelled());
    }
    let code = match status {
        Some(status) => status
            .map_err(|e| AppError::internal(format!("{} failed: {e}", job.program)))?
            .code(),
        None => None,
    };
    if code == Some(i32::from(protocol::SETUP_FAILED))
        && stderr.kept.starts_with(protocol::ERROR_PREFIX.as_bytes())
    {
        return Err(AppError::precondition(format!(
            "{} was not run: {}",
            job.program,
            String::from_utf8_lossy(&stderr.kept).trim()
        )));
    }
    Ok(Finished {
        code,
        stdout,
        stderr,
        stopped,
    })
}

async fn join(reader: Option<tokio::task::JoinHandle<Captured>>) -> Captured {
    match reader {
        Some(handle) => handle.await.unwrap_or_default(),
        None => Captured::default(),
    }
}

/// A private temporary folder for one run (`TMPDIR`), removed afterwards.
struct RunTmp(PathBuf);

impl RunTmp {
    fn create() -> Result<RunTmp> {
        let dir =
            std::env::temp_dir().join(format!("colmena-run-{}", uuid::Uuid::now_v7().simple()));
        crate::private_files::create_dir(&dir).map_err(|e| {
            AppError::precondition(format!(
                "cannot create a temporary folder for the program in {}: {e}",
                std::env::temp_dir().display()
            ))
        })?;
        Ok(RunTmp(dir))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for RunTmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(all(test, windows))]
mod windows_tests;

#[cfg(test)]
mod limits_tests;

// The attacks run for real against the Linux mechanisms.
#[cfg(test)]
#[cfg(target_os = "linux")]
mod tests;
