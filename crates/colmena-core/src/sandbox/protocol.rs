//! The launcher's command line, shared by the app (which writes it) and by
//! `colmena-sandbox` (which reads it; `src/bin/colmena-sandbox.rs` includes
//! this file by path, so both sides always agree).
//!
//! `colmena-sandbox [--supervise [--parent PID]] [--landlock] [--private-proc] [--no-network | --proxy SOCKET] [--uid N --gid N [--own DIR]…] [--ro DIR]… [--rw DIR]… [--limit NAME=N]… -- PROGRAM ARG…`
//!
//! (and `colmena-sandbox --watchdog PID`, which only the launcher itself
//! starts in supervise mode, see `supervisor.rs`; and `--init` followed by
//! the same options, which only the launcher itself starts inside the
//! namespaces of `--private-proc`, see `launcher/namespaces.rs`).

/// Stay as the program's parent instead of becoming it: nothing it starts
/// outlives it or the app (MCP servers; see `supervisor.rs`). The syscall
/// filter then applies only with [`LANDLOCK`] or [`NO_NETWORK`].
pub const SUPERVISE: &str = "--supervise";
/// Windows, with [`SUPERVISE`]: the one byte the app writes on the
/// launcher's standard input once the launcher is in the app's Job Object;
/// the launcher starts the program only then, so everything the program
/// starts is born inside the job (see `supervise.rs`).
#[cfg_attr(not(windows), allow(dead_code))]
pub const GO: u8 = 0x06;
/// With [`SUPERVISE`]: the process id of the app that starts the launcher.
/// A launcher whose parent is already someone else (the app died while
/// starting it) starts nothing.
pub const PARENT: &str = "--parent";
/// Internal: the launcher's watchdog, `--watchdog LAUNCHER_PID`, kills the
/// group when the launcher is killed on its own.
#[allow(dead_code)]
pub const WATCHDOG: &str = "--watchdog";
/// Confine the file system with Landlock before running the program.
pub const LANDLOCK: &str = "--landlock";
/// No sockets at all (the git tools); without it only IPv4 and IPv6
/// sockets that are not raw may be opened.
pub const NO_NETWORK: &str = "--no-network";
/// The program's network is a namespace of its own with nothing but its
/// own loopback, `--proxy SOCKET`: no route to the host's loopback, the
/// local network, metadata addresses or anywhere else. The one way out is
/// 127.0.0.1:[`PROXY_PORT`] in there, where the launcher accepts
/// connections and hands each one to the app through the Unix socket
/// SOCKET; the app's proxy (`proxy.rs`) applies the agent's address policy.
/// With the Landlock mechanism it goes with [`PRIVATE_PROC`] (the launcher
/// makes the namespace with the others); under bubblewrap, bubblewrap makes
/// it. Where the system refuses the namespace the program runs with no
/// network at all, and says so on standard error.
pub const PROXY: &str = "--proxy";
/// The port of the proxy inside the sandbox (`http_proxy` points there).
pub const PROXY_PORT: u16 = 3128;
/// Run the program in PID and mount namespaces of its own, with a `/proc`
/// that lists only its own processes (the Landlock mechanism; bubblewrap
/// builds its own). Where the system refuses namespaces to this user, the
/// program sees the host's `/proc`, as without this option.
pub const PRIVATE_PROC: &str = "--private-proc";
/// Internal: the launcher again, as the first process of the namespaces
/// `PRIVATE_PROC` made.
#[allow(dead_code)]
pub const INIT: &str = "--init";
/// The user the program runs as, `--uid N`; with [`GID`]. Required when the
/// launcher runs as root (it refuses to run a program as root), refused
/// otherwise; never 0.
pub const UID: &str = "--uid";
/// The group the program runs as, `--gid N`; with [`UID`]; never 0.
pub const GID: &str = "--gid";
/// With [`UID`]: a folder handed to that user before the program starts
/// (the workspace, the run's temporary folder), so that it can write it.
pub const OWN: &str = "--own";
/// A file or folder the program may read and execute (not write).
pub const READ: &str = "--ro";
/// A file or folder the program may read, write, create in and delete from.
pub const WRITE: &str = "--rw";
/// A resource limit, `NAME=N`, one of [`LIMITS`].
pub const LIMIT: &str = "--limit";
/// Everything after it is the program and its arguments.
pub const END: &str = "--";

/// The resource limits the launcher knows: CPU seconds, address space,
/// largest file written, processes of the user, open files (bytes for `as`
/// and `fsize`).
#[allow(dead_code)]
pub const LIMITS: [&str; 5] = ["cpu", "as", "fsize", "nproc", "nofile"];

/// The oldest Landlock the sandbox accepts: ABI 6 (Linux 6.12), the first
/// that confines truncation, signals and abstract sockets. Older kernels
/// use bubblewrap.
#[cfg(target_os = "linux")]
pub const MIN_ABI: landlock::ABI = landlock::ABI::V6;

/// The launcher's exit status when it could not set the sandbox up; its
/// standard error then starts with [`ERROR_PREFIX`].
pub const SETUP_FAILED: u8 = 125;
/// The launcher's exit status when the program could not be executed.
#[allow(dead_code)]
pub const EXEC_FAILED: u8 = 127;
/// How the launcher's own messages start.
pub const ERROR_PREFIX: &str = "colmena-sandbox: ";
