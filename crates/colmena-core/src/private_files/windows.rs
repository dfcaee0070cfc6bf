//! Windows: a new file or folder inherits its parent's access list; the
//! parents Colmena uses are in the user's profile (see the module doc), so
//! nothing is added here.

use std::fs::{DirBuilder, OpenOptions};

pub(super) fn private_dir(_builder: &mut DirBuilder) {}

pub(super) fn private_file(_options: &mut OpenOptions) {}
