//! A named pipe server only this user can open.

use std::ffi::OsStr;
use std::io;

use super::security::{Descriptor, attributes, user_sid};
use crate::sddl;
use tokio::net::windows::named_pipe::{NamedPipeServer, ServerOptions};

/// `options.create(name)`, with an access list for this user alone
/// instead of the default one (which lets every user of the machine
/// connect to a pipe another user made).
pub fn private_pipe(options: &ServerOptions, name: &OsStr) -> io::Result<NamedPipeServer> {
    let descriptor = Descriptor::from_sddl(&sddl::owner_only_pipe(&user_sid()?))?;
    let mut attributes = attributes(&descriptor);
    // SAFETY: `attributes` is a valid SECURITY_ATTRIBUTES whose descriptor
    // outlives the call (Windows copies it into the pipe).
    unsafe { options.create_with_security_attributes_raw(name, (&raw mut attributes).cast()) }
}
