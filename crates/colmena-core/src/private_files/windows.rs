//! Windows: each folder is created with an owner-only access list that
//! what is made in it inherits (`colmena_win32::create_private_dir`), so
//! it is private from the moment it exists; the folders a recursive create
//! makes on the way get the same. A file needs nothing of its own: it
//! inherits its folder's list.

use std::fs::OpenOptions;
use std::io;
use std::path::Path;

use colmena_win32::create_private_dir;

pub(super) fn create_dir(path: &Path, recursive: bool) -> io::Result<()> {
    if !recursive {
        return create_private_dir(path);
    }
    let missing: Vec<&Path> = path
        .ancestors()
        .take_while(|dir| !dir.as_os_str().is_empty() && !dir.exists())
        .collect();
    for dir in missing.into_iter().rev() {
        match create_private_dir(dir) {
            Ok(()) => {}
            // Made by another thread or launch meanwhile.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

pub(super) fn private_file(_options: &mut OpenOptions) {}
