//! Unix: the mode is set as the file or folder is made.

use std::fs::{DirBuilder, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;

pub(super) fn create_dir(path: &Path, recursive: bool) -> io::Result<()> {
    DirBuilder::new()
        .mode(0o700)
        .recursive(recursive)
        .create(path)
}

pub(super) fn private_file(options: &mut OpenOptions) {
    options.mode(0o600);
}
