//! `--own DIR`: a folder handed to the program's user before the program
//! starts (Linux, as root). When the app runs as root the program runs as
//! another user (`privileges.rs`), and the agent's workspace — made by
//! root, and written by the app's file tools as root — must be that user's
//! for the program to write it (and for git, which refuses a repository
//! another user owns). The walk runs before every program: whatever the app
//! wrote since is handed over too. Root still reads and writes everything.
//!
//! A program of an earlier run may still be in the workspace, racing the
//! walk. So every entry is opened without following links (`O_PATH |
//! O_NOFOLLOW`) beneath a folder already open, checked and changed through
//! that handle: swapping a folder for a link to `/etc` can at most make the
//! walk change what it opened, never what the link names. Left alone:
//! links themselves, files with more than one name (a hard link to a file
//! elsewhere would hand that file over), anything on another file system
//! (a mount inside the workspace), and what lies deeper than [`MAX_DEPTH`].
//! An entry that cannot be handed over stays as it is: the program then
//! cannot write it, and says so itself.

use std::ffi::CString;
use std::os::fd::OwnedFd;
use std::path::Path;

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags, chownat, fstat, open, openat};
use rustix::process::{Gid, Uid};

use crate::plan::ProgramUser;

/// How many folders deep the walk goes (each level holds one open folder).
const MAX_DEPTH: usize = 64;

/// Hands `dir` and everything beneath it to `user` (the module docs say
/// what is left alone). Only `dir` itself must succeed.
pub(crate) fn hand_over(dir: &Path, user: ProgramUser) -> Result<(), String> {
    let why = |e: rustix::io::Errno| {
        format!(
            "cannot hand {} to the program's user (uid {}): {e}",
            dir.display(),
            user.uid
        )
    };
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let top = open(dir, flags, Mode::empty()).map_err(why)?;
    let stat = fstat(&top).map_err(why)?;
    if stat.st_uid != user.uid || stat.st_gid != user.gid {
        give(&top, user).map_err(why)?;
    }
    walk(&top, stat.st_dev, user, 0);
    Ok(())
}

/// Everything beneath the open folder `dir`, on device `device`.
fn walk(dir: &OwnedFd, device: u64, user: ProgramUser, depth: usize) {
    for name in names(dir) {
        let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let Ok(entry) = openat(dir, name.as_c_str(), flags, Mode::empty()) else {
            continue;
        };
        let Ok(stat) = fstat(&entry) else {
            continue;
        };
        let kind = FileType::from_raw_mode(stat.st_mode);
        let linked_elsewhere = kind == FileType::RegularFile && stat.st_nlink > 1;
        if stat.st_dev != device || kind == FileType::Symlink || linked_elsewhere {
            continue;
        }
        if stat.st_uid != user.uid || stat.st_gid != user.gid {
            let _ = give(&entry, user);
        }
        if kind == FileType::Directory
            && depth < MAX_DEPTH
            && let Ok(inside) = openat(
                &entry,
                c".",
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
        {
            walk(&inside, device, user, depth + 1);
        }
    }
}

/// The names in the open folder `dir`, read before anything in it changes.
fn names(dir: &OwnedFd) -> Vec<CString> {
    let Ok(listing) = Dir::read_from(dir) else {
        return Vec::new();
    };
    listing
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_owned())
        .filter(|name| name.as_bytes() != b"." && name.as_bytes() != b"..")
        .collect()
}

/// The entry `handle` (open, links not followed) to `user`.
fn give(handle: &OwnedFd, user: ProgramUser) -> Result<(), rustix::io::Errno> {
    chownat(
        handle,
        c"",
        Some(Uid::from_raw(user.uid)),
        Some(Gid::from_raw(user.gid)),
        AtFlags::EMPTY_PATH,
    )
}
