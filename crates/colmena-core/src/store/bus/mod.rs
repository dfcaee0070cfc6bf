//! The bus's store: the port every bus operation goes through
//! ([`port::BusStore`]), its rows, the refusals both stores word the same
//! way, and its two implementations — this workspace's SQLite file
//! ([`sqlite`]) and a PostgreSQL database that replicas share
//! ([`postgres`], issue 17).
//!
//! Nothing here imports the bus service (`inbox/`): the service stands on
//! the store, never the other way round.

pub(crate) mod errors;
pub mod port;
pub mod postgres;
pub(crate) mod replay;
mod rows;
pub mod sqlite;
pub(crate) mod time;

pub use port::{Bus, BusStore};
pub use rows::{Author, AuthorKind, Message, Priority};
pub(crate) use rows::{command_column, command_from_column};
