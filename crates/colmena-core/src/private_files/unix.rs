//! Unix: the mode is set as the file or folder is made.

use std::fs::{DirBuilder, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};

pub(super) fn private_dir(builder: &mut DirBuilder) {
    builder.mode(0o700);
}

pub(super) fn private_file(options: &mut OpenOptions) {
    options.mode(0o600);
}
