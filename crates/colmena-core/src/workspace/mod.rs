//! The composition root: the one place that opens a workspace and starts
//! what runs beside it, and so the one place that may name every floor of
//! the core. Everything below takes the open workspace ([`Ctx`], a plain
//! container) and never reaches back up here.
//!
//! - [`open`] / [`open_with_bus`]: a workspace ready for the first call;
//! - [`Services`]: the background work the desktop and `colmena serve`
//!   start, from one list;
//! - `seed`: the rows the code owns, put back at every open;
//! - [`shutdown`]: stops what the process started for it.
//!
//! [`Ctx`]: crate::ctx::Ctx

mod open;
mod seed;
mod services;

pub use open::{OpenOptions, open, open_with_bus, shutdown};
pub use services::Services;
