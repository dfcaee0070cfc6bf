//! The bus's store: its rows, the refusals both stores word the same way,
//! and the PostgreSQL store that replicas share (`postgres/`, issue 17).
//! The SQLite store is this workspace's own `Store` (`crate::store`).
//!
//! Nothing here imports the bus service (`inbox/`): the service stands on
//! the store, never the other way round.

pub(crate) mod errors;
pub mod postgres;
pub(crate) mod replay;
mod rows;
pub(crate) mod time;

pub use rows::{Author, AuthorKind, Message, Priority};
pub(crate) use rows::{command_column, command_from_column};
