//! `colmena-sandbox --supervise`: the launcher stays as the program's
//! parent (compiled only into that binary; the app side is `supervise.rs`).
//!
//! The user's MCP servers (`npx -y @modelcontextprotocol/server-everything`,
//! which starts `node`, which may start more) must never outlive Colmena —
//! not even when Colmena is killed with SIGKILL and cleans nothing up. The
//! app starts this launcher as the leader of a new process group (if it
//! is not, it makes itself one: the group it kills must never be the
//! app's); the
//! launcher starts the program as its child (same group, same stdin,
//! stdout, stderr and environment) and then watches:
//!
//! - **the program ends**: the launcher kills everything that is left —
//!   every member of its group and every child of its own — waits until it
//!   has no child at all, and exits with the program's status: its exit
//!   code, or 128 + the signal that killed it (as a shell reports it). The
//!   app thus reads the program's code from the launcher's own status, and
//!   when it sees the launcher end, nothing the program started is alive.
//! - **the app dies**: the launcher polls `getppid()` every 250 ms; once it
//!   differs from the app's pid the launcher was re-parented, so the app is
//!   gone. It kills everything as above and then its whole group, itself
//!   included. `getppid` names the parent *process* (when the thread that
//!   spawned us ends, we are re-parented to another thread of the same
//!   process and `getppid` does not change), so it never fires while the
//!   app lives.
//! - **the launcher itself is killed alone** (the app's `kill_on_drop`, the
//!   OOM killer): a watchdog — this binary again, `--watchdog PID`, in the
//!   same group, started before the program — polls *its* parent the same
//!   way and kills the group when the launcher is gone.
//!
//! Why not the parent-death signal (`PR_SET_PDEATHSIG`): it fires when the
//! *thread* that forked us ends, and tokio spawns from whichever worker or
//! blocking thread it is on (blocking threads end after 10 s idle) — it
//! would kill healthy servers. And acting on any signal other than SIGKILL
//! needs a signal handler, which needs `unsafe`; SIGKILL would kill only
//! this launcher and leave the program running — the leak this prevents.
//!
//! Why the launcher is a **child subreaper** (Linux): a program that leaves
//! the group (`setsid`, a daemon that double-forks) escapes a group kill,
//! but when its parent dies it is re-parented to the nearest subreaper — the
//! launcher — instead of to init. Killing every child and waiting until
//! there is none therefore ends the whole tree, escapers included, whenever
//! the launcher does the cleaning (the program ended, the app died). Only
//! the watchdog's path (the launcher killed on its own) can miss them: it
//! can kill the group, not a tree it is not the root of.
//!
//! No Landlock or syscall filter unless the app asks (`--landlock`,
//! `--no-network`): an MCP server is a program the person configured
//! themselves, not text a model wrote; it needs their home folder, caches
//! (`~/.npm`), Unix sockets (Docker, a browser) and `setsid`. Resource
//! limits (`--limit`) still apply: they were set on this launcher and the
//! program inherits them.

use std::ffi::OsString;
use std::io::Write;
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use rustix::process::{Pid, Signal, WaitOptions, WaitStatus, getpgrp, getpid, getppid};

use crate::protocol as p;

/// How often the launcher (and its watchdog) checks that its parent lives.
const POLL: Duration = Duration::from_millis(250);

/// A message on standard error that cannot fail the launcher (`eprintln!`
/// panics when the reader is gone).
fn say(message: &str) {
    let _ = writeln!(std::io::stderr(), "{}{message}", p::ERROR_PREFIX);
}

fn raw(pid: Option<Pid>) -> Option<i32> {
    pid.map(Pid::as_raw_pid)
}

/// The launcher in supervise mode; `expected` is the app's pid as the app
/// said (`--parent`).
pub fn run(program: &OsString, args: &[OsString], expected: Option<u32>) -> ExitCode {
    let parent = raw(getppid());
    if let Some(expected) = expected
        && parent != i32::try_from(expected).ok()
    {
        // The app died while starting us: start nothing.
        return crate::launcher::fail("the app that started the program has already exited");
    }
    let me = getpid();
    // The group is what gets killed: one this launcher does not lead is
    // the app's own (a caller that forgot `process_group(0)`).
    if getpgrp() != me
        && let Err(e) = rustix::process::setpgid(None, None)
    {
        return crate::launcher::fail(&format!(
            "cannot lead a process group of its own ({e}); the program was not run"
        ));
    }
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::process::set_child_subreaper(Some(me)) {
        say(&format!(
            "cannot become a subreaper ({e}): programs that leave the process group may outlive it"
        ));
    }
    let watchdog = std::env::current_exe().and_then(|exe| {
        Command::new(exe)
            .arg(p::WATCHDOG)
            .arg(me.as_raw_pid().to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
    });
    let watchdog = match watchdog {
        Ok(child) => Some(child.id()),
        Err(e) => {
            say(&format!(
                "cannot start the watchdog ({e}): if the launcher alone is killed, the program survives it"
            ));
            None
        }
    };
    let child = match Command::new(program).args(args).spawn() {
        Ok(child) => child,
        Err(error) => {
            say(&format!(
                "cannot run {}: {error}",
                program.to_string_lossy()
            ));
            end_everything(me, watchdog, &reap_all());
            return ExitCode::from(p::EXEC_FAILED);
        }
    };
    let program = i32::try_from(child.id()).ok();
    // Reaped by `reap_all` from now on, never by `std`.
    drop(child);
    let reaped = reap_all();

    let mut ended = None;
    let mut orphaned = false;
    loop {
        match reaped.recv_timeout(POLL) {
            Ok((pid, status)) if Some(pid.as_raw_pid()) == program => ended = Some(status),
            Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            // No child left, and none can appear: the tree is gone.
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        orphaned = orphaned || raw(getppid()) != parent;
        if ended.is_some() || orphaned {
            kill_the_rest(me, watchdog);
        }
    }
    if orphaned {
        // Belt and braces (and the whole cleanup where there is no /proc):
        // the group, this launcher included.
        let _ = rustix::process::kill_process_group(getpgrp(), Signal::KILL);
    }
    ended.map_or(ExitCode::FAILURE, exit_code)
}

/// A thread that reaps every child (the program, the watchdog, and
/// descendants re-parented to this subreaper) and reports each; the channel
/// closes once there is no child left.
fn reap_all() -> mpsc::Receiver<(Pid, WaitStatus)> {
    let (tx, rx) = mpsc::channel();
    let reaper = std::thread::Builder::new()
        .name("reaper".into())
        .spawn(move || {
            loop {
                match rustix::process::wait(WaitOptions::empty()) {
                    Ok(Some(reaped)) => {
                        if tx.send(reaped).is_err() {
                            return;
                        }
                    }
                    Ok(None) | Err(rustix::io::Errno::INTR) => {}
                    // ECHILD: nothing left to wait for.
                    Err(_) => return,
                }
            }
        });
    if let Err(e) = reaper {
        say(&format!("cannot watch the program ({e}); stopping it"));
        let _ = rustix::process::kill_process_group(getpgrp(), Signal::KILL);
    }
    rx
}

/// After a failed start: the watchdog goes, then wait for it.
fn end_everything(me: Pid, watchdog: Option<u32>, reaped: &mpsc::Receiver<(Pid, WaitStatus)>) {
    kill_the_rest(me, watchdog);
    while reaped.recv().is_ok() {
        kill_the_rest(me, watchdog);
    }
}

/// SIGKILL to every live process in this launcher's group and every child
/// of it, except the launcher itself. Repeated after each reap: a process
/// that forked just before it was killed, or an escaper re-parented to us,
/// is found the next time.
#[cfg(target_os = "linux")]
fn kill_the_rest(me: Pid, watchdog: Option<u32>) {
    let me = me.as_raw_pid();
    let group = getpgrp().as_raw_pid();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        kill_watchdog(watchdog);
        return;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<i32>().ok())
            .filter(|&pid| pid != me)
            .and_then(Pid::from_raw)
        else {
            continue;
        };
        // Open a handle first and check membership after, so that a pid
        // reused between the check and the kill is never hit.
        let handle = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty());
        if !ours(pid.as_raw_pid(), me, group) {
            continue;
        }
        let _ = match handle {
            Ok(fd) => rustix::process::pidfd_send_signal(&fd, Signal::KILL),
            Err(rustix::io::Errno::NOSYS) => rustix::process::kill_process(pid, Signal::KILL),
            Err(_) => Ok(()),
        };
    }
}

/// Without /proc only the watchdog is known; stragglers in the group die
/// when the app kills the group (it does when the launcher ends).
#[cfg(not(target_os = "linux"))]
fn kill_the_rest(_me: Pid, watchdog: Option<u32>) {
    kill_watchdog(watchdog);
}

fn kill_watchdog(watchdog: Option<u32>) {
    if let Some(pid) = watchdog
        .and_then(|pid| i32::try_from(pid).ok())
        .and_then(Pid::from_raw)
    {
        let _ = rustix::process::kill_process(pid, Signal::KILL);
    }
}

/// A live (not zombie) process in `group` or a child of `me`.
#[cfg(target_os = "linux")]
fn ours(pid: i32, me: i32, group: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // `pid (name) state ppid pgrp …`; the name may hold anything.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return false;
    };
    let mut fields = rest.split_whitespace();
    let state = fields.next().unwrap_or("Z");
    let ppid = fields.next().and_then(|f| f.parse::<i32>().ok());
    let pgrp = fields.next().and_then(|f| f.parse::<i32>().ok());
    state != "Z" && state != "X" && (ppid == Some(me) || pgrp == Some(group))
}

/// The launcher's status for the program's: its code, or 128 + the signal
/// that killed it.
pub(crate) fn exit_code(status: WaitStatus) -> ExitCode {
    let code = status
        .exit_status()
        .or_else(|| status.terminating_signal().map(|s| 128 + s))
        .unwrap_or(1);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// `--watchdog LAUNCHER_PID`: when the launcher is no longer this
/// process's parent, kill the group (this watchdog included).
pub fn watchdog(launcher: Option<OsString>) -> ExitCode {
    let Some(launcher) = launcher.and_then(|pid| pid.to_str()?.parse::<i32>().ok()) else {
        return crate::launcher::fail("--watchdog needs the launcher's process id");
    };
    loop {
        if raw(getppid()) != Some(launcher) {
            let _ = rustix::process::kill_process_group(getpgrp(), Signal::KILL);
            return ExitCode::FAILURE;
        }
        std::thread::sleep(POLL);
    }
}
