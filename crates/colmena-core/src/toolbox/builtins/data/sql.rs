//! The locked-down SQLite connection the data tools query, and running one
//! read-only statement on it within its budget.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::Instant;

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, ErrorCode as SqliteCode};
use serde_json::{Number, Value};

use super::Limits;
use crate::error::{AppError, Result};

/// Longest text or blob one value may become (a `zeroblob(1e9)` stops here).
const MAX_VALUE_BYTES: i32 = 10 * 1024 * 1024;
/// Longest text cell handed back.
const MAX_CELL_CHARS: usize = 2000;
/// SQLite VM instructions between progress checks.
const OPS_PER_CHECK: i32 = 1000;

const STOPPED_STEPS: u8 = 1;
const STOPPED_TIME: u8 = 2;
const STOPPED_CANCEL: u8 = 3;

/// An empty in-memory database with tight limits, for loading.
pub(super) fn open() -> Result<Connection> {
    let conn = Connection::open_in_memory()?;
    conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)?;
    conn.set_limit(Limit::SQLITE_LIMIT_SQL_LENGTH, 100_000)?;
    conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
    conn.set_limit(Limit::SQLITE_LIMIT_COLUMN, 2000)?;
    Ok(conn)
}

/// After loading: nothing but reading, from here on.
pub(super) fn lock_down(conn: &Connection) -> Result<()> {
    conn.pragma_update(None, "query_only", true)?;
    conn.authorizer(Some(|ctx: AuthContext<'_>| match ctx.action {
        AuthAction::Select | AuthAction::Read { .. } | AuthAction::Recursive => {
            Authorization::Allow
        }
        AuthAction::Function { function_name }
            if !function_name.eq_ignore_ascii_case("load_extension") =>
        {
            Authorization::Allow
        }
        _ => Authorization::Deny,
    }))?;
    Ok(())
}

/// The first word of `sql`, past spaces, comments and opening parentheses.
fn first_word(sql: &str) -> String {
    let mut rest = sql;
    loop {
        let trimmed = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '(');
        if let Some(comment) = trimmed.strip_prefix("--") {
            rest = comment.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(comment) = trimmed.strip_prefix("/*") {
            rest = comment.split_once("*/").map_or("", |(_, after)| after);
        } else {
            rest = trimmed;
            break;
        }
    }
    rest.chars()
        .take_while(char::is_ascii_alphabetic)
        .collect::<String>()
        .to_ascii_lowercase()
}

fn refused(message: impl Into<String>) -> AppError {
    AppError::invalid_field("sql", "not_a_select", message)
}

/// The rows one SELECT gives: its columns, at most `max_rows` rows within
/// `limits.max_output_chars`, and whether more were left out.
pub(super) struct Rows {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
    pub more: bool,
}

/// Runs `sql` if it is one read-only SELECT (or WITH … SELECT).
pub(super) fn select(
    conn: &Connection,
    sql: &str,
    max_rows: u64,
    limits: &Limits,
    stop: &Arc<AtomicBool>,
    describe_tables: &dyn Fn() -> String,
) -> Result<Rows> {
    let word = first_word(sql);
    if word != "select" && word != "with" {
        return Err(refused(format!(
            "only a SELECT (or WITH … SELECT) statement runs here, not '{}'; the files are read, never changed",
            if word.is_empty() { sql.trim() } else { &word }
        )));
    }
    let failed = |e: rusqlite::Error| sql_error(e, describe_tables);
    let mut stmt = conn.prepare(sql).map_err(failed)?;
    if !stmt.readonly() {
        return Err(refused(
            "the statement would change the database; only reading runs here",
        ));
    }
    let reason = Arc::new(AtomicU8::new(0));
    install_budget(conn, limits, stop, &reason)?;
    let outcome = collect(&mut stmt, max_rows, limits);
    conn.progress_handler(0, None::<fn() -> bool>)?;
    outcome.map_err(|e| match reason.load(Ordering::SeqCst) {
        STOPPED_STEPS => AppError::invalid_field(
            "sql",
            "too_much_work",
            format!(
                "the query was stopped after {} million steps: narrow it (filter, aggregate, add LIMIT)",
                limits.steps / 1_000_000
            ),
        ),
        STOPPED_TIME => AppError::invalid_field(
            "sql",
            "too_slow",
            format!(
                "the query was stopped after {} s: narrow it (filter, aggregate, add LIMIT)",
                limits.time.as_secs()
            ),
        ),
        STOPPED_CANCEL => crate::llm::http::cancelled(),
        _ => failed(e),
    })
}

/// Stops the statement past its step or time budget, or when the run is
/// cancelled; `reason` says which.
fn install_budget(
    conn: &Connection,
    limits: &Limits,
    stop: &Arc<AtomicBool>,
    reason: &Arc<AtomicU8>,
) -> Result<()> {
    let (stop, reason) = (Arc::clone(stop), Arc::clone(reason));
    let checks_allowed = (limits.steps / OPS_PER_CHECK as u64).max(1);
    let deadline = Instant::now() + limits.time;
    let mut checks = 0u64;
    conn.progress_handler(
        OPS_PER_CHECK,
        Some(move || {
            checks += 1;
            let why = if stop.load(Ordering::SeqCst) {
                STOPPED_CANCEL
            } else if checks > checks_allowed {
                STOPPED_STEPS
            } else if checks.is_multiple_of(64) && Instant::now() > deadline {
                STOPPED_TIME
            } else {
                return false;
            };
            reason.store(why, Ordering::SeqCst);
            true
        }),
    )?;
    Ok(())
}

fn collect(
    stmt: &mut rusqlite::Statement<'_>,
    max_rows: u64,
    limits: &Limits,
) -> rusqlite::Result<Rows> {
    let columns: Vec<String> = stmt
        .column_names()
        .iter()
        .map(|c| (*c).to_owned())
        .collect();
    let width = columns.len();
    let mut rows = Vec::new();
    let mut chars = 0usize;
    let mut more = false;
    let mut cursor = stmt.query([])?;
    while let Some(row) = cursor.next()? {
        if rows.len() as u64 >= max_rows {
            more = true;
            break;
        }
        let mut values = Vec::with_capacity(width);
        for i in 0..width {
            values.push(json_of(row.get_ref(i)?));
        }
        chars += Value::Array(values.clone()).to_string().len() + 1;
        if chars > limits.max_output_chars && !rows.is_empty() {
            more = true;
            break;
        }
        rows.push(values);
    }
    Ok(Rows {
        columns,
        rows,
        more,
    })
}

/// A SQLite value as JSON: numbers stay numbers, long text is cut.
pub(super) fn json_of(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => {
            Number::from_f64(f).map_or_else(|| Value::from(f.to_string()), Value::Number)
        }
        ValueRef::Text(bytes) => {
            let text = String::from_utf8_lossy(bytes);
            if text.chars().count() > MAX_CELL_CHARS {
                let mut cut: String = text.chars().take(MAX_CELL_CHARS).collect();
                cut.push('…');
                Value::from(cut)
            } else {
                Value::from(text.into_owned())
            }
        }
        ValueRef::Blob(bytes) => Value::from(format!("<{} bytes of binary data>", bytes.len())),
    }
}

/// A failed statement in words, with the tables the model can use.
fn sql_error(e: rusqlite::Error, describe_tables: &dyn Fn() -> String) -> AppError {
    let text = match &e {
        rusqlite::Error::MultipleStatement => {
            return refused(
                "only one statement runs at a time; remove everything after the first `;`",
            );
        }
        rusqlite::Error::SqliteFailure(f, _)
            if f.code == SqliteCode::AuthorizationForStatementDenied =>
        {
            return refused(
                "the statement does more than read (ATTACH, PRAGMA, writing…); only reading runs here",
            );
        }
        rusqlite::Error::SqliteFailure(f, _) if f.code == SqliteCode::ReadOnly => {
            return refused("the statement would change the database; only reading runs here");
        }
        rusqlite::Error::SqliteFailure(f, _) if f.code == SqliteCode::TooBig => {
            "a value grew past 10 MB".to_owned()
        }
        other => other.to_string(),
    };
    AppError::invalid_field(
        "sql",
        "invalid_sql",
        format!("the SQL failed: {text}. Tables: {}", describe_tables()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_word_skips_comments_and_parentheses() {
        assert_eq!(first_word("  -- note\n /* x */ (SELECT 1)"), "select");
        assert_eq!(first_word("with t as (select 1) select * from t"), "with");
        assert_eq!(first_word("/* unterminated"), "");
        assert_eq!(first_word("DELETE FROM t"), "delete");
    }
}
