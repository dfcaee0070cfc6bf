//! One app per workspace (issue 16): a second launch on the same data dir
//! hands its arguments to the running app, which comes to the front, and
//! exits.
//!
//! Why our own and per workspace, not the single-instance plugin: the
//! plugin keys on the app identifier through the D-Bus session bus, so a
//! second workspace (`--data-dir`, the tests, a second person's folder) could
//! not run next to the first, and without a session bus (a headless login)
//! there would be no single instance at all. Here the running app listens on
//! a Unix socket inside its own data dir (a private folder), so "the same
//! store" is exactly what decides. What arrives is only ever arguments:
//! `colmena://` links become a place in the window (`links`), nothing more.
//!
//! One interface, an implementation per OS: Unix listens on a socket in
//! the data dir (`unix.rs`); Windows on a named pipe whose name and both
//! ends are tied to a secret in the data dir (`windows.rs`: other users
//! can list pipe names, so the name alone proves nothing).
//!
//! Here in the core rather than in the desktop crate so the Windows
//! implementation is tested under Wine by the core's tests, which need no
//! window.

use std::path::PathBuf;
use std::sync::mpsc;

/// What a second launch sends: its arguments and its folder.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Handover {
    pub args: Vec<String>,
    pub cwd: String,
}

/// The most a handover may carry (arguments are short).
pub(crate) const MAX_HANDOVER: u64 = 64 * 1024;

/// The outcome of a launch.
pub enum Claim {
    /// No app runs on this workspace: this one listens (and already
    /// answers: handovers wait in `Listening` until the app exists).
    First(Listening),
    /// The running app took the arguments; this launch should exit.
    HandedOver,
    /// Neither (the socket or pipe could not be made safely): run without handover.
    Alone,
}

/// The socket (Unix) or pipe (Windows) this app holds, answering from the
/// moment it exists.
pub struct Listening {
    /// The socket's path (removed when the app quits), or the pipe's name.
    pub path: PathBuf,
    received: mpsc::Receiver<Handover>,
}

impl Listening {
    /// Hands every launch, the ones that came while the app was starting
    /// first, to `on_handover`, on a thread of its own.
    pub fn forward(self, on_handover: impl Fn(Handover) + Send + 'static) {
        std::thread::spawn(move || {
            for handover in self.received {
                on_handover(handover);
            }
        });
    }
}

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{claim, socket_path};
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::claim;

#[cfg(test)]
mod tests;
