//! `data_*`: CSV, TSV, JSON and JSON Lines files of the agent's workspace,
//! loaded into an in-memory SQLite database, one table per file.
//!
//! Why SQLite: the model already writes SQL well, and a query engine that
//! has nothing on disk can be locked down completely — after loading, the
//! connection is `query_only`, an authorizer lets through nothing but
//! reading and functions (no ATTACH, no PRAGMA, no writes), and only one
//! statement that SQLite itself calls read-only runs. Work is bounded
//! everywhere: file sizes are checked before reading (the same path rules as
//! `fs_read`: relative, no `..`, no links), rows and columns are counted
//! while loading, a progress handler stops a query past its time or step
//! budget, and the answer is cut to a number of rows and characters.

mod chart;
mod describe;
mod load;
mod sql;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::error::{AppError, Result};

/// What the data tools allow themselves.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Largest CSV, TSV or JSON Lines file.
    pub max_file: u64,
    /// Largest JSON file (an array is parsed whole, so it costs more).
    pub max_json_file: u64,
    /// Most bytes of all files of one call together.
    pub max_total: u64,
    pub max_rows: u64,
    pub max_columns: usize,
    /// A query's time budget.
    pub time: Duration,
    /// A query's budget of SQLite virtual-machine steps.
    pub steps: u64,
    /// Most characters of one answer.
    pub max_output_chars: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_file: 50 * 1024 * 1024,
            max_json_file: 20 * 1024 * 1024,
            max_total: 100 * 1024 * 1024,
            max_rows: 1_000_000,
            max_columns: 500,
            time: Duration::from_secs(10),
            steps: 200_000_000,
            max_output_chars: 12_000,
        }
    }
}

/// Runs a data tool off the async threads; cancelling the run stops a
/// query at its next progress check.
pub(crate) async fn call(
    root: PathBuf,
    name: &str,
    args: &Value,
    cancel: &CancellationToken,
) -> Result<String> {
    let stop = Arc::new(AtomicBool::new(false));
    let (name, args, flag) = (name.to_owned(), args.clone(), Arc::clone(&stop));
    let job =
        tokio::task::spawn_blocking(move || run(&root, &name, &args, &Limits::default(), &flag));
    tokio::select! {
        _ = cancel.cancelled() => {
            stop.store(true, Ordering::SeqCst);
            Err(crate::llm::http::cancelled())
        }
        done = job => done.map_err(|e| AppError::internal(format!("the data tool failed: {e}")))?,
    }
}

pub(crate) fn run(
    root: &Path,
    name: &str,
    args: &Value,
    limits: &Limits,
    stop: &Arc<AtomicBool>,
) -> Result<String> {
    match name {
        "data_query_csv" => {
            let files = file_list(args)?;
            let max_rows = args["max_rows"].as_u64().unwrap_or(100).clamp(1, 1000);
            let db = load::Database::open(root, &files, limits, stop)?;
            Ok(serde_json::to_string(&query(
                &db,
                text(args, "sql"),
                max_rows,
                limits,
                stop,
            )?)?)
        }
        "data_describe" => {
            let file = text(args, "file").to_owned();
            let sample = args["sample_rows"].as_u64().unwrap_or(5).min(20);
            let db = load::Database::open(root, &[file], limits, stop)?;
            Ok(serde_json::to_string_pretty(&describe::describe(
                &db, sample, limits, stop,
            )?)?)
        }
        "data_chart" => chart::chart(root, args, limits, stop),
        other => Err(AppError::internal(format!("{other} is not a data tool"))),
    }
}

/// `data_query_csv`'s answer: the tables it loaded, then the rows.
fn query(
    db: &load::Database,
    sql_text: &str,
    max_rows: u64,
    limits: &Limits,
    stop: &Arc<AtomicBool>,
) -> Result<Value> {
    let summary = || db.summary();
    let rows = sql::select(&db.conn, sql_text, max_rows, limits, stop, &summary)?;
    let tables: Vec<Value> = db
        .tables
        .iter()
        .map(|t| {
            let columns: Vec<String> = t
                .columns
                .iter()
                .map(|c| format!("{} ({})", c.name, serde_json::json!(c.kind).as_str().unwrap_or("text")))
                .collect();
            serde_json::json!({ "table": t.table, "file": t.file, "rows": t.rows, "columns": columns })
        })
        .collect();
    let mut answer = serde_json::json!({
        "tables": tables,
        "columns": rows.columns,
        "rows": rows.rows,
        "returned": rows.rows.len(),
        "more_rows": rows.more,
    });
    if rows.more {
        answer["note"] = Value::from(format!(
            "more rows matched than are shown (at most {max_rows} rows or {} characters): aggregate, filter or page with LIMIT/OFFSET",
            limits.max_output_chars
        ));
    }
    Ok(answer)
}

fn text<'a>(args: &'a Value, key: &str) -> &'a str {
    args[key].as_str().unwrap_or_default()
}

fn file_list(args: &Value) -> Result<Vec<String>> {
    let files: Vec<String> = args["files"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if files.is_empty() || files.len() > 8 {
        return Err(AppError::invalid_field(
            "files",
            "invalid_files",
            "name 1 to 8 files of your workspace",
        ));
    }
    Ok(files)
}

#[cfg(all(test, unix))]
mod tests;
