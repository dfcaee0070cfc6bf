//! Killing a program's whole process group. The launcher is started as the
//! leader of a new group (`process_group(0)`), and everything it and the
//! program start stays in that group unless it leaves on purpose (`setsid`;
//! under bubblewrap the PID namespace catches even those).

/// Sends SIGKILL to every process of group `id`. A group that is already
/// gone is fine.
#[cfg(unix)]
pub(super) fn kill(id: u32) {
    use rustix::process::{Pid, Signal, kill_process_group};
    // Group 1 would mean "every process we may signal": never.
    let Some(pid) = i32::try_from(id)
        .ok()
        .filter(|&id| id > 1)
        .and_then(Pid::from_raw)
    else {
        return;
    };
    let _ = kill_process_group(pid, Signal::KILL);
}

#[cfg(not(unix))]
pub(super) fn kill(_id: u32) {}
