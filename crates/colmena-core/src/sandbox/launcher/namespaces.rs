//! `--private-proc`: the program in PID and mount namespaces of its own
//! (Linux), so that `/proc` lists only its own processes. Landlock confines
//! paths, and `/proc/<pid>/cmdline` needs no more than a path: without a
//! PID namespace a program reads every process's command line — the
//! password in `colmena serve --store postgres://…`, an MCP server's
//! `--api-key`. Landlock cannot grant "only `/proc/self`" either: a rule
//! binds one process's folder.
//!
//! A PID namespace applies to the children of whoever made it, so the
//! launcher works in two stages:
//!
//! 1. **outside** ([`unshare_for_child`], [`start_first_process`]): new
//!    mount and PID namespaces — as a user other than root, with a user
//!    namespace that maps only that user (so it may make them, and so
//!    nothing else changes for the program) — then this launcher again
//!    with `--init` and the same options; it waits and exits with the same
//!    status;
//! 2. **inside**, as the namespace's first process (pid 1,
//!    [`prepare_first_process`], then the usual confinement, then
//!    [`run_program`]): mounts made private, a fresh `/proc`; then the
//!    program as pid 2, every process reaped, and the program's status as
//!    its own. When it exits, the kernel ends everything left in the
//!    namespace.
//!
//! The app still sees one process group: both stages and the program are in
//! the group the app kills (SIGKILL from outside reaches pid 1 of a
//! namespace). The first stage stays outside and never confines itself: it
//! only waits, and the program cannot see or signal it.
//!
//! Where the system refuses the namespaces (a container without
//! `CAP_SYS_ADMIN`, user namespaces turned off for this user, AppArmor's
//! restricted user namespaces, which are not even tried), the program runs
//! with the host's `/proc`,
//! as without the option: its environment files are still out of reach
//! (another user's, or outside the Landlock domain), its command lines are
//! not.

use std::ffi::{CStr, OsString};
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitCode};

use rustix::io::Errno;
use rustix::mount::{MountFlags, MountPropagationFlags, mount, mount_change};
use rustix::process::{Signal, WaitOptions, getgid, getuid, set_parent_process_death_signal};
use rustix::thread::{
    CapabilitySet, CapabilitySets, UnshareFlags, capabilities, configure_capability_in_ambient_set,
    set_capabilities,
};

use crate::launcher::fail;
use crate::protocol as p;

/// Stage 1: new namespaces for this launcher's next child; `false` when the
/// system refuses them (the module docs say what then).
/// `network`: a network namespace too (`--proxy`, `forward.rs`); it is
/// all or nothing — without it the program gets no network at all.
pub(crate) fn unshare_for_child(root: bool, network: bool) -> Result<bool, String> {
    if !root && user_namespaces_restricted() {
        return Ok(false);
    }
    let (uid, gid) = (getuid().as_raw(), getgid().as_raw());
    let mut wanted = UnshareFlags::NEWNS | UnshareFlags::NEWPID;
    if !root {
        wanted |= UnshareFlags::NEWUSER;
    }
    if network {
        wanted |= UnshareFlags::NEWNET;
    }
    // Deprecated because it is unsound with CLONE_FILES, not asked for here.
    #[allow(deprecated)]
    let made = rustix::thread::unshare(wanted);
    if made.is_err() {
        return Ok(false);
    }
    if !root {
        map_only(uid, gid)?;
        // Without it the first process cannot mount /proc and keeps the
        // host's: the same as when the namespaces are refused.
        let _ = keep_for_first_process();
    }
    Ok(true)
}

/// AppArmor's restricted user namespaces (Ubuntu 23.10 and later): a
/// program without a profile of its own may make one but holds no
/// capability in it, not even to write its own user map — and a user
/// namespace without a map cannot be left or used. Not tried there.
fn user_namespaces_restricted() -> bool {
    std::fs::read_to_string("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
        .is_ok_and(|value| value.trim() == "1")
}

/// The new user namespace maps this user and group to themselves, nothing
/// else (supplementary groups cannot be changed in it).
fn map_only(uid: u32, gid: u32) -> Result<(), String> {
    let write = |file: &str, text: String| {
        std::fs::OpenOptions::new()
            .write(true)
            .open(format!("/proc/self/{file}"))
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| {
                format!("cannot write /proc/self/{file} for the sandbox's user namespace: {e}")
            })
    };
    write("setgroups", "deny".to_owned())?;
    write("uid_map", format!("{uid} {uid} 1\n"))?;
    write("gid_map", format!("{gid} {gid} 1\n"))
}

/// A user other than root loses every capability at `exec`, inside its own
/// user namespace too; the ambient set is what survives. The first process
/// needs `CAP_SYS_ADMIN` in the new namespaces (to mount /proc),
/// `CAP_NET_ADMIN` (to bring its loopback up) and `CAP_SETPCAP` (to empty
/// its bounding set); it drops them all before the program starts
/// (`privileges.rs`).
fn keep_for_first_process() -> Result<(), Errno> {
    let keep = [
        CapabilitySet::SYS_ADMIN,
        CapabilitySet::NET_ADMIN,
        CapabilitySet::SETPCAP,
    ];
    let now = capabilities(None)?;
    let inheritable = keep.iter().fold(now.inheritable, |set, &c| set | c);
    set_capabilities(None, CapabilitySets { inheritable, ..now })?;
    for capability in keep {
        configure_capability_in_ambient_set(capability, true)?;
    }
    Ok(())
}

/// Stage 1, once the namespaces exist: this launcher again, as their first
/// process; its status is this one's.
pub(crate) fn start_first_process() -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return fail(&format!("cannot find the launcher itself: {e}")),
    };
    let first = Command::new(exe)
        .arg(p::INIT)
        .args(std::env::args_os().skip(1))
        .spawn();
    let status = match first.and_then(|mut child| child.wait()) {
        Ok(status) => status,
        Err(e) => return fail(&format!("cannot start the sandbox's first process: {e}")),
    };
    let code = status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
        .unwrap_or(1);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// Stage 2, before the usual confinement: mounts made private and a fresh
/// `/proc`. Returns whether mounts are private (they never reach the host:
/// paths may then be opened for the program's user, `reach.rs`). As root,
/// mounts that are not private could reach the host: an error. As another
/// user, a mount namespace made with a user namespace never propagates back,
/// and a system that refuses the mounts leaves the host's /proc.
/// With `own_network` (the namespace has a network of its own), its
/// loopback is brought up first: the only interface there is.
pub(crate) fn prepare_first_process(root: bool, own_network: bool) -> Result<bool, String> {
    if own_network {
        crate::forward::loopback_up()?;
    }
    let private = MountPropagationFlags::PRIVATE | MountPropagationFlags::REC;
    if let Err(e) = mount_change("/", private) {
        return if root {
            Err(format!("cannot make the sandbox's mounts private: {e}"))
        } else {
            Ok(false)
        };
    }
    // Over the host's: a failure leaves that one in place.
    let _ = mount(
        "proc",
        "/proc",
        "proc",
        MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
        None::<&CStr>,
    );
    Ok(true)
}

/// Stage 2, confined: the program as a child (pid 2); every process that
/// ends up here is reaped; the program's status — its code, or 128 + the
/// signal that ended it — is this process's. With a `forwarder`, its
/// connections are passed on to the app meanwhile (`forward.rs`). Under
/// bubblewrap (not the namespace's first process) the same, with `--proxy`.
pub(crate) fn run_program(
    program: &OsString,
    args: &[OsString],
    forwarder: Option<crate::forward::Forwarder>,
) -> ExitCode {
    // The first stage waits for this one; if it is killed on its own, so is
    // this one (and with it the namespace). Set here, after the switch of
    // user, which clears it. The app kills the whole group anyway.
    let _ = set_parent_process_death_signal(Some(Signal::KILL));
    let child = match Command::new(program).args(args).spawn() {
        Ok(child) => child,
        Err(error) => {
            let _ = writeln!(
                std::io::stderr(),
                "{}cannot run {}: {error}",
                p::ERROR_PREFIX,
                program.to_string_lossy()
            );
            return ExitCode::from(p::EXEC_FAILED);
        }
    };
    if let Some(forwarder) = forwarder {
        // The program runs as this process's user: not dumpable, this
        // process's memory and descriptors are out of its reach.
        let _ =
            rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
        forwarder.start();
    }
    let program = i32::try_from(child.id()).ok();
    // Reaped below with every orphan, never by `std`.
    drop(child);
    loop {
        match rustix::process::wait(WaitOptions::empty()) {
            Ok(Some((pid, status))) if Some(pid.as_raw_pid()) == program => {
                return crate::supervisor::exit_code(status);
            }
            Ok(_) | Err(Errno::INTR) => {}
            // No child left before the program was reaped: cannot happen.
            Err(_) => return ExitCode::FAILURE,
        }
    }
}
