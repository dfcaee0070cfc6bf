//! The Windows calls. Every `unsafe` block says why it is sound; handles
//! and buffers Windows allocates are owned by a type that frees them.

#![allow(unsafe_code)]

mod job;
mod owned;
mod pipe;
mod security;

pub use job::{Job, JobSettings};
pub use pipe::private_pipe;
pub use security::{create_private_dir, create_private_file, dacl_of, dacl_of_handle, user_sid};

#[cfg(test)]
mod tests;
