//! Making the granted paths reachable for the program's user (Linux, as
//! root). The workspace of an app running as root usually sits under
//! root's home (`/root`, mode 0700) — the tests' under a private temporary
//! folder — and the program's user cannot walk through a folder it may not
//! enter, whatever Landlock grants.
//!
//! Opening those folders up would open them to every other user too. In
//! the launcher's own mount namespace (`namespaces.rs`; mounts there never
//! reach the host) it can do better, while still root: it opens each
//! granted path, mounts an empty tmpfs over the highest folder the user
//! cannot enter, recreates the paths inside it, and binds each path back
//! (through `/proc/self/fd/N` of the handle opened before the tmpfs hid
//! it). The paths stay the same — `HOME`, `pwd` and what the model was told
//! still hold — and everything else under that folder (the store, the
//! master key, other agents' workspaces) is no longer in the program's view
//! at all. Without a namespace of its own (the system refused it) the
//! launcher refuses to run the program rather than open the folder.
//!
//! "Cannot enter" is read from the mode bits (owner, group, others) as
//! they apply to the program's user and group; an ACL that grants more is
//! not read (the path is then covered although it needed not be).

use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};
use rustix::mount::{MountFlags, mount, mount_bind_recursive};

use crate::plan::ProgramUser;

/// Makes every path of `granted` that exists reachable for `user`; the
/// module docs say how. `private_mounts`: this process has a mount
/// namespace whose mounts never reach the host.
pub(crate) fn make_reachable(
    granted: &[PathBuf],
    user: ProgramUser,
    private_mounts: bool,
) -> Result<(), String> {
    // Canonical: the folders that matter are those the kernel walks.
    let targets: Vec<PathBuf> = granted
        .iter()
        .filter_map(|path| std::fs::canonicalize(path).ok())
        .collect();
    let closed = outermost(
        targets
            .iter()
            .filter_map(|target| first_closed_ancestor(target, user))
            .collect(),
    );
    let Some(first) = closed.first() else {
        return Ok(());
    };
    if !private_mounts {
        return Err(format!(
            "the program's user (uid {}) cannot enter {}, and this system gave the sandbox no \
             mount namespace of its own to open a way through; keep Colmena's data dir out of \
             it (--data-dir), or run Colmena as an ordinary user",
            user.uid,
            first.display()
        ));
    }
    let here = std::env::current_dir().ok();
    for top in &closed {
        if top.parent().is_none() {
            return Err("the program's user cannot enter the root folder".into());
        }
        let beneath = outermost(
            targets
                .iter()
                .filter(|target| target.starts_with(top))
                .cloned()
                .collect(),
        );
        cover(top, &beneath)?;
    }
    // The working folder (the workspace) now lies on the bind.
    if let Some(here) = here {
        std::env::set_current_dir(&here)
            .map_err(|e| format!("cannot enter {} again: {e}", here.display()))?;
    }
    Ok(())
}

/// The highest folder above `target` that `user` cannot enter.
fn first_closed_ancestor(target: &Path, user: ProgramUser) -> Option<PathBuf> {
    let mut above: Vec<&Path> = target.ancestors().skip(1).collect();
    above.reverse();
    above
        .into_iter()
        .find(|dir| !enterable(dir, user))
        .map(Path::to_path_buf)
}

/// Whether `user` (no supplementary groups) may search folder `dir`.
fn enterable(dir: &Path, user: ProgramUser) -> bool {
    let Ok(meta) = std::fs::metadata(dir) else {
        return false;
    };
    let bit = if meta.uid() == user.uid {
        0o100
    } else if meta.gid() == user.gid {
        0o010
    } else {
        0o001
    };
    meta.mode() & bit != 0
}

/// `paths` without those beneath another of them (covering or binding the
/// outer one brings the inner one along).
fn outermost(mut paths: Vec<PathBuf>) -> Vec<PathBuf> {
    // Component order: a folder sorts before what is beneath it.
    paths.sort();
    paths.dedup();
    let mut kept: Vec<PathBuf> = Vec::new();
    for path in paths {
        if !kept.iter().any(|outer| path.starts_with(outer)) {
            kept.push(path);
        }
    }
    kept
}

/// An empty tmpfs over `top`, and each of `targets` (beneath it) bound back
/// at its own path.
fn cover(top: &Path, targets: &[PathBuf]) -> Result<(), String> {
    // Handles first: once the tmpfs is mounted, the paths lead into it.
    let mut handles = Vec::new();
    for target in targets {
        let is_dir = std::fs::metadata(target)
            .map_err(|e| format!("cannot read {}: {e}", target.display()))?
            .is_dir();
        let handle = rustix::fs::open(target, OFlags::PATH | OFlags::CLOEXEC, Mode::empty())
            .map_err(|e| format!("cannot open {}: {e}", target.display()))?;
        handles.push((target, is_dir, handle));
    }
    mount(
        "tmpfs",
        top,
        "tmpfs",
        MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
        c"mode=0755,size=1m",
    )
    .map_err(|e| format!("cannot cover {}: {e}", top.display()))?;
    for (target, is_dir, handle) in handles {
        make_path(top, target, is_dir)?;
        let source = format!("/proc/self/fd/{}", handle.as_raw_fd());
        mount_bind_recursive(source.as_str(), target.as_path())
            .map_err(|e| format!("cannot bind {} back: {e}", target.display()))?;
    }
    Ok(())
}

/// The folders from `top` down to `target` inside the tmpfs (mode 0755,
/// whatever the umask), and `target` itself: a folder, or an empty file to
/// bind a file on.
fn make_path(top: &Path, target: &Path, is_dir: bool) -> Result<(), String> {
    let below = target
        .strip_prefix(top)
        .map_err(|_| format!("{} is not beneath {}", target.display(), top.display()))?;
    let parts: Vec<_> = below.components().collect();
    let mut at = top.to_path_buf();
    for (index, part) in parts.iter().enumerate() {
        at.push(part);
        let why = |e: std::io::Error| format!("cannot make {}: {e}", at.display());
        if index + 1 == parts.len() && !is_dir {
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(&at)
                .map_err(why)?;
            continue;
        }
        match std::fs::create_dir(&at) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(why(e)),
        }
        std::fs::set_permissions(&at, std::fs::Permissions::from_mode(0o755)).map_err(why)?;
    }
    Ok(())
}
