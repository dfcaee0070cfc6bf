//! The command line that starts a program under a mechanism: the launcher
//! (limits, Landlock and a private /proc), or `bwrap` around the launcher
//! (limits; bubblewrap builds the view and the namespaces), or on macOS
//! `sandbox-exec` around the launcher (limits; the Seatbelt profile of
//! `seatbelt.rs` confines both). As root, Linux's name the user the program
//! runs as (`user.rs`).

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::Path;

use tokio::process::Command;

use super::mechanism::{DEVICES, Mechanism, SYSTEM_READ, exists};
use super::user::{ProgramUser, program_user};
use super::{Job, env, protocol as p};
use crate::error::Result;

/// The launcher's options for `job`'s limits.
fn limits(job: &Job) -> Vec<OsString> {
    let l = &job.limits;
    let cpu = super::cpu_seconds(job);
    [
        ("cpu", cpu),
        ("as", l.memory),
        ("fsize", l.file_size),
        ("nproc", l.processes),
        ("nofile", l.open_files),
    ]
    .iter()
    .flat_map(|(name, n)| {
        [
            OsString::from(p::LIMIT),
            OsString::from(format!("{name}={n}")),
        ]
    })
    .collect()
}

/// `--uid`, `--gid` and the folders handed to that user: the workspace and
/// the run's temporary folder.
fn user_options(user: &ProgramUser, workspace: &Path, tmp: &Path) -> Vec<OsString> {
    vec![
        p::UID.into(),
        user.uid.to_string().into(),
        p::GID.into(),
        user.gid.to_string().into(),
        p::OWN.into(),
        workspace.into(),
        p::OWN.into(),
        tmp.into(),
    ]
}

/// The app's proxy for a job with network (`proxy/`).
#[cfg_attr(windows, allow(dead_code))]
pub(super) enum Proxy<'a> {
    /// Linux: the Unix socket the launcher hands connections over from its
    /// network namespace (`--proxy`), and the socket's folder; the program
    /// finds the proxy on its own loopback at [`p::PROXY_PORT`].
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Forwarded { socket: &'a Path, dir: &'a Path },
    /// macOS: the app's listener on the loopback (`proxy/loopback.rs`): the
    /// one port Seatbelt lets the program reach, and its URL with the key.
    #[cfg_attr(not(target_os = "macos"), allow(dead_code))]
    Loopback { port: u16, url: String },
}

impl Proxy<'_> {
    /// The program's `http_proxy`.
    fn url(&self) -> String {
        match self {
            Proxy::Forwarded { .. } => format!("http://127.0.0.1:{}", p::PROXY_PORT),
            Proxy::Loopback { url, .. } => url.clone(),
        }
    }
}

/// `--proxy SOCKET` when the job has network and the app serves a proxy
/// through the launcher; else `--no-network`: never the host's network as
/// it is (on macOS, Seatbelt's profile is what holds the program to the
/// loopback door).
fn network_options(proxy: Option<&Proxy<'_>>) -> Vec<OsString> {
    match proxy {
        Some(Proxy::Forwarded { socket, .. }) => vec![p::PROXY.into(), socket.into()],
        Some(Proxy::Loopback { .. }) | None => vec![p::NO_NETWORK.into()],
    }
}

/// bubblewrap's namespaces, a network namespace always (with network, the
/// proxy is the way out). As root it must not make a user namespace: it
/// would map uid 0 alone, and the launcher could neither switch to the
/// program's user nor hand it the workspace (bubblewrap run by root keeps
/// every capability; the launcher drops them).
fn bubblewrap_namespaces(as_root: bool) -> Vec<OsString> {
    let mut flags = vec!["--die-with-parent", "--new-session"];
    if as_root {
        flags.extend([
            "--unshare-ipc",
            "--unshare-pid",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--unshare-net",
        ]);
    } else {
        flags.push("--unshare-all");
    }
    flags.into_iter().map(OsString::from).collect()
}

/// `--perms 0755 --dir` for every folder above `paths`: bubblewrap makes
/// the folders it creates on the way to a bind 0700, which the program's
/// user could not enter. Folders that exist in the view (the system's,
/// bound read-only) are left as they are.
fn enterable_parents(paths: &[&Path]) -> Vec<OsString> {
    let parents: BTreeSet<&Path> = paths
        .iter()
        .flat_map(|path| path.ancestors().skip(1))
        .filter(|dir| dir.parent().is_some())
        .collect();
    parents
        .into_iter()
        .flat_map(|dir| {
            [
                OsString::from("--perms"),
                OsString::from("0755"),
                OsString::from("--dir"),
                OsString::from(dir),
            ]
        })
        .collect()
}

pub(super) fn build(
    mechanism: &Mechanism,
    launcher: &Path,
    job: &Job,
    tmp: &Path,
    proxy: Option<Proxy<'_>>,
) -> Result<Command> {
    let mut args: Vec<OsString> = Vec::new();
    let proxy = proxy.filter(|_| job.network);
    let network = network_options(proxy.as_ref());
    let user = program_user();
    let as_user = user
        .as_ref()
        .map(|user| user_options(user, &job.workspace, tmp))
        .unwrap_or_default();
    let mut command = match mechanism {
        Mechanism::Landlock => {
            args.push(p::LANDLOCK.into());
            args.push(p::PRIVATE_PROC.into());
            args.extend(network);
            args.extend(as_user);
            for dir in SYSTEM_READ.iter().map(Path::new).filter(|d| exists(d)) {
                args.extend([p::READ.into(), dir.into()]);
            }
            for dev in DEVICES.iter().map(Path::new).filter(|d| exists(d)) {
                args.extend([p::WRITE.into(), dev.into()]);
            }
            args.extend([p::WRITE.into(), job.workspace.clone().into()]);
            args.extend([p::WRITE.into(), tmp.into()]);
            args.extend(limits(job));
            Command::new(launcher)
        }
        Mechanism::Bubblewrap(bwrap) => {
            let bind = |flag: &str, path: &Path| -> [OsString; 3] {
                [flag.into(), path.into(), path.into()]
            };
            args.extend(bubblewrap_namespaces(user.is_some()));
            for dir in SYSTEM_READ
                .iter()
                .map(Path::new)
                .filter(|d| *d != Path::new("/proc"))
            {
                args.extend(bind("--ro-bind-try", dir));
            }
            args.extend([
                "--proc".into(),
                "/proc".into(),
                "--dev".into(),
                "/dev".into(),
            ]);
            args.extend(["--tmpfs".into(), "/tmp".into()]);
            if user.is_some() {
                args.extend(enterable_parents(&[job.workspace.as_path(), tmp]));
            }
            args.extend(bind("--bind", &job.workspace));
            args.extend(bind("--bind", tmp));
            args.extend(bind("--ro-bind", launcher));
            if let Some(Proxy::Forwarded { dir, .. }) = &proxy {
                // For the launcher, which connects before confining itself
                // (a socket on a read-only mount can still be connected to).
                args.extend(bind("--ro-bind", dir));
            }
            args.extend(["--chdir".into(), job.workspace.clone().into()]);
            args.extend([p::END.into(), launcher.into()]);
            args.extend(network);
            args.extend(as_user);
            args.extend(limits(job));
            Command::new(bwrap)
        }
        #[cfg(target_os = "macos")]
        Mechanism::Seatbelt(sandbox_exec) => {
            // Seatbelt matches real paths (`/var` is `/private/var`).
            let real = |path: &Path| path.canonicalize();
            let port = match &proxy {
                Some(Proxy::Loopback { port, .. }) => Some(*port),
                _ => None,
            };
            args.extend(super::seatbelt::arguments(
                &real(&job.workspace)?,
                &real(tmp)?,
                &real(launcher)?,
                port,
            ));
            args.push(launcher.into());
            // The launcher has no network to take away on macOS: the
            // profile allows the loopback door's port alone, or nothing.
            args.extend(network);
            args.extend(limits(job));
            Command::new(sandbox_exec)
        }
        // The launcher holds the program in the app's Job Object (see
        // `spawn_supervised`); nothing else is confined (`UNCONFINED`).
        #[cfg(windows)]
        Mechanism::Unconfined => {
            args.push(p::SUPERVISE.into());
            let mut launcher = Command::new(launcher);
            launcher.creation_flags(super::supervise::CREATE_NO_WINDOW);
            launcher
        }
    };
    let proxy_url = proxy.as_ref().map(Proxy::url);
    let env = env::allowed(&job.workspace, tmp, &job.env, proxy_url.as_deref());
    args.push(p::END.into());
    args.push(program(mechanism, job, &env)?);
    args.extend(job.args.iter().map(OsString::from));
    command.args(args).env_clear().envs(env);
    Ok(command)
}

/// The program as the launcher is to start it. Windows: found here, in
/// the program's own `PATH` with `PATHEXT` (`npm` is `npm.cmd`), so the
/// launcher's folder — the app's own programs — is never searched first,
/// as Windows would; elsewhere the name as given (the launcher `exec`s it
/// with the program's `PATH`).
fn program(mechanism: &Mechanism, job: &Job, env: &[(String, String)]) -> Result<OsString> {
    #[cfg(windows)]
    if *mechanism == Mechanism::Unconfined {
        let path = env
            .iter()
            .find(|(name, _)| name == "PATH")
            .map(|(_, value)| OsString::from(value));
        let found = super::supervise::resolve(&job.program, path.as_deref(), Some(&job.workspace))?;
        return Ok(found.into_os_string());
    }
    let _ = (mechanism, env);
    Ok(job.program.clone().into())
}
