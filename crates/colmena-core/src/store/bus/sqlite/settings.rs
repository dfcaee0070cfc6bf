//! The SQLite bus's settings: numbers in the workspace's `meta` table,
//! under the keys [`Setting::key`] names (the same a PostgreSQL bus keeps
//! in its `settings` table).

use rusqlite::Connection;

use crate::error::Result;
use crate::store::bus::port::Setting;
use crate::store::meta;

/// A setting, or its default (an unreadable value reads as the default).
pub(super) fn read_setting(conn: &Connection, setting: Setting) -> Result<u32> {
    Ok(meta::get(conn, setting.key())?
        .and_then(|v| v.parse().ok())
        .unwrap_or(setting.default_value()))
}

pub(super) fn write_setting(conn: &Connection, setting: Setting, value: u32) -> Result<()> {
    meta::set(conn, setting.key(), &value.to_string())
}
