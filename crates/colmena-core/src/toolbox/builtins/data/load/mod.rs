//! Files into tables: CSV/TSV (delimiter found from the header line), a
//! JSON array of objects (or an object holding one), JSON Lines.
//!
//! Each column gets one type for all its values, inferred from them:
//! INTEGER when every value is a whole number written without leading
//! zeros (so `007`, a code, stays text), REAL when every value is a number,
//! TEXT otherwise. Empty cells are NULL. Per-column types keep `ORDER BY`
//! and comparisons meaning what a person expects.

mod delimited;
mod json;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rusqlite::Connection;
use serde::Serialize;

use super::{Limits, sql};
use crate::error::{AppError, Result};
use crate::toolbox::builtins::files;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Kind {
    Integer,
    Real,
    Text,
}

impl Kind {
    pub fn sql(self) -> &'static str {
        match self {
            Kind::Integer => "INTEGER",
            Kind::Real => "REAL",
            Kind::Text => "TEXT",
        }
    }

    pub fn is_number(self) -> bool {
        self != Kind::Text
    }
}

#[derive(Debug, Clone, Serialize)]
pub(super) struct Column {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: Kind,
}

/// One loaded file.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Table {
    pub table: String,
    pub file: String,
    pub format: &'static str,
    pub rows: u64,
    pub columns: Vec<Column>,
}

/// The files of one call, loaded and locked down.
pub(super) struct Database {
    pub conn: Connection,
    pub tables: Vec<Table>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Format {
    Csv(u8),
    Json,
    JsonLines,
}

impl Format {
    fn of(path: &str, bytes: &[u8]) -> Format {
        let lower = path.to_ascii_lowercase();
        let extension = lower.rsplit_once('.').map_or("", |(_, e)| e);
        let start = bytes
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .copied()
            .unwrap_or(b' ');
        match extension {
            "tsv" | "tab" => Format::Csv(b'\t'),
            "jsonl" | "ndjson" => Format::JsonLines,
            "json" if start == b'[' => Format::Json,
            "json" => Format::JsonLines,
            "csv" => Format::Csv(delimited::sniff_delimiter(bytes)),
            _ if start == b'[' => Format::Json,
            _ if start == b'{' => Format::JsonLines,
            _ => Format::Csv(delimited::sniff_delimiter(bytes)),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Format::Csv(b'\t') => "tsv",
            Format::Csv(_) => "csv",
            Format::Json => "json",
            Format::JsonLines => "jsonl",
        }
    }
}

pub(super) fn bad_file(path: &str, why: impl std::fmt::Display) -> AppError {
    AppError::invalid_field("files", "unreadable_table", format!("'{path}': {why}"))
}

impl Database {
    /// Loads `paths` (relative to `root`), one table each, then locks the
    /// connection down to reading.
    pub fn open(
        root: &Path,
        paths: &[String],
        limits: &Limits,
        stop: &Arc<AtomicBool>,
    ) -> Result<Database> {
        let conn = sql::open()?;
        let mut tables: Vec<Table> = Vec::new();
        let mut total = 0u64;
        for path in paths {
            let path = path.trim();
            let cap = limits.max_file;
            let bytes = files::read_bytes(root, path, cap).map_err(|e| too_large(e, path, cap))?;
            total += bytes.len() as u64;
            if total > limits.max_total {
                return Err(AppError::invalid_field(
                    "files",
                    "too_large",
                    format!(
                        "together the files are more than {} MB; name fewer or smaller files",
                        limits.max_total / 1024 / 1024
                    ),
                ));
            }
            if bytes.iter().take(8192).any(|b| *b == 0) {
                return Err(bad_file(path, "is binary, not a CSV, TSV or JSON table"));
            }
            let format = Format::of(path, &bytes);
            if matches!(format, Format::Json | Format::JsonLines)
                && bytes.len() as u64 > limits.max_json_file
            {
                return Err(AppError::invalid_field(
                    "files",
                    "too_large",
                    format!(
                        "'{path}' is {:.1} MB; JSON files are read up to {} MB (save it as CSV for more)",
                        bytes.len() as f64 / 1_048_576.0,
                        limits.max_json_file / 1024 / 1024
                    ),
                ));
            }
            let name = table_name(path, &tables);
            let (rows, columns) = match format {
                Format::Csv(delimiter) => {
                    delimited::load(&conn, &name, path, &bytes, delimiter, limits, stop)?
                }
                Format::Json | Format::JsonLines => {
                    let records = json::records(path, &bytes, format == Format::JsonLines)?;
                    json::load(&conn, &name, path, &records, limits, stop)?
                }
            };
            tables.push(Table {
                table: name,
                file: path.to_owned(),
                format: format.name(),
                rows,
                columns,
            });
        }
        sql::lock_down(&conn)?;
        Ok(Database { conn, tables })
    }

    /// `sales(region text, total real), …` for error messages.
    pub fn summary(&self) -> String {
        self.tables
            .iter()
            .map(|t| {
                let columns: Vec<String> = t
                    .columns
                    .iter()
                    .map(|c| {
                        format!(
                            "{} {}",
                            quote_if_needed(&c.name),
                            c.kind.sql().to_lowercase()
                        )
                    })
                    .collect();
                format!("{}({}) from {}", t.table, columns.join(", "), t.file)
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The size refusal in the data tools' words.
fn too_large(e: AppError, path: &str, cap: u64) -> AppError {
    let is_size = e
        .details
        .as_ref()
        .is_some_and(|d| d["reason"] == "too_large");
    if !is_size {
        return e;
    }
    AppError::invalid_field(
        "files",
        "too_large",
        format!(
            "'{path}' is larger than {} MB, the most the data tools load; filter or split it first",
            cap / 1024 / 1024
        ),
    )
}

const SQL_WORDS: &[&str] = &[
    "all",
    "and",
    "as",
    "by",
    "case",
    "check",
    "create",
    "default",
    "delete",
    "distinct",
    "drop",
    "else",
    "end",
    "from",
    "group",
    "having",
    "in",
    "index",
    "insert",
    "is",
    "join",
    "key",
    "like",
    "limit",
    "not",
    "null",
    "on",
    "or",
    "order",
    "primary",
    "references",
    "select",
    "set",
    "table",
    "then",
    "union",
    "update",
    "values",
    "when",
    "where",
    "with",
];

/// `Sales 2024.csv` → `sales_2024`: lowercase letters, digits and `_`,
/// never a number first nor an SQL word, unique among `taken`.
fn table_name(path: &str, taken: &[Table]) -> String {
    let file = Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut name = String::new();
    for c in deunicode::deunicode(&file).chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            name.push(c);
        } else if !name.ends_with('_') {
            name.push('_');
        }
    }
    let mut name = name.trim_matches('_').to_owned();
    if name.is_empty() {
        name = "data".to_owned();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name = format!("t_{name}");
    }
    if SQL_WORDS.contains(&name.as_str()) || name.starts_with("sqlite_") {
        name = format!("{name}_data");
    }
    let base = name.clone();
    let mut n = 2;
    while taken.iter().any(|t| t.table == name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
}

/// An identifier in double quotes.
pub(super) fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A column name as the model writes it in SQL: bare when it can be.
fn quote_if_needed(name: &str) -> String {
    let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && !SQL_WORDS.contains(&name.to_ascii_lowercase().as_str());
    if plain { name.to_owned() } else { quoted(name) }
}

/// Column names from a header: trimmed, never empty, unique ignoring case
/// (SQLite compares names that way).
pub(super) fn column_names(header: Vec<String>, width: usize) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(width);
    for i in 0..width {
        let given = header
            .get(i)
            .map(|h| h.trim().to_owned())
            .unwrap_or_default();
        let base = if given.is_empty() {
            format!("column_{}", i + 1)
        } else {
            given
        };
        let mut name = base.clone();
        let mut n = 2;
        while names.iter().any(|t| t.eq_ignore_ascii_case(&name)) {
            name = format!("{base}_{n}");
            n += 1;
        }
        names.push(name);
    }
    names
}

/// What a column's values allow so far.
#[derive(Debug, Clone, Copy)]
pub(super) struct Guess {
    pub integer: bool,
    pub real: bool,
}

impl Default for Guess {
    fn default() -> Guess {
        Guess {
            integer: true,
            real: true,
        }
    }
}

impl Guess {
    pub fn kind(self) -> Kind {
        if self.integer {
            Kind::Integer
        } else if self.real {
            Kind::Real
        } else {
            Kind::Text
        }
    }
}

/// Digits with a leading zero (`007`, `00.5`) are codes, not numbers.
fn leading_zero(text: &str) -> bool {
    let digits = text.trim_start_matches(['+', '-']);
    let whole = digits.split(['.', 'e', 'E']).next().unwrap_or_default();
    whole.len() > 1 && whole.starts_with('0')
}

pub(super) fn as_integer(text: &str) -> Option<i64> {
    if leading_zero(text) {
        return None;
    }
    text.parse().ok()
}

pub(super) fn as_real(text: &str) -> Option<f64> {
    let numeric = text.chars().any(|c| c.is_ascii_digit())
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E'));
    if !numeric || leading_zero(text) {
        return None;
    }
    text.parse::<f64>().ok().filter(|f| f.is_finite())
}

pub(super) fn check_stop(stop: &AtomicBool, rows: u64) -> Result<()> {
    if rows.is_multiple_of(10_000) && stop.load(Ordering::SeqCst) {
        return Err(crate::llm::http::cancelled());
    }
    Ok(())
}

pub(super) fn too_many_rows(path: &str, limits: &Limits) -> AppError {
    AppError::invalid_field(
        "files",
        "too_many_rows",
        format!(
            "'{path}' has more than {} rows, the most the data tools load",
            limits.max_rows
        ),
    )
}

pub(super) fn too_many_columns(path: &str, limits: &Limits) -> AppError {
    AppError::invalid_field(
        "files",
        "too_many_columns",
        format!(
            "'{path}' has more than {} columns, the most the data tools load",
            limits.max_columns
        ),
    )
}

pub(super) fn create_table(conn: &Connection, name: &str, columns: &[Column]) -> Result<String> {
    let defs: Vec<String> = columns
        .iter()
        .map(|c| format!("{} {}", quoted(&c.name), c.kind.sql()))
        .collect();
    conn.execute_batch(&format!(
        "CREATE TABLE {} ({})",
        quoted(name),
        defs.join(", ")
    ))?;
    let marks = vec!["?"; columns.len()].join(", ");
    Ok(format!("INSERT INTO {} VALUES ({marks})", quoted(name)))
}

pub(super) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_with_leading_zeros_stay_text() {
        assert_eq!(as_integer("42"), Some(42));
        assert_eq!(as_integer("-7"), Some(-7));
        assert_eq!(as_integer("007"), None);
        assert_eq!(as_real("0.5"), Some(0.5));
        assert_eq!(as_real("1e3"), Some(1000.0));
        assert_eq!(as_real("00.5"), None);
        assert_eq!(as_real("inf"), None);
        assert_eq!(as_real("1,5"), None);
    }

    #[test]
    fn table_names_are_plain_unique_and_never_sql_words() {
        assert_eq!(table_name("data/Sales 2024.csv", &[]), "sales_2024");
        assert_eq!(table_name("2024.csv", &[]), "t_2024");
        assert_eq!(table_name("order.csv", &[]), "order_data");
        assert_eq!(table_name("Año.json", &[]), "ano");
        let taken = [Table {
            table: "sales".into(),
            file: "a/sales.csv".into(),
            format: "csv",
            rows: 0,
            columns: vec![],
        }];
        assert_eq!(table_name("b/sales.csv", &taken), "sales_2");
    }

    #[test]
    fn headers_become_unique_names() {
        let names = column_names(vec!["id".into(), " ".into(), "ID".into()], 4);
        assert_eq!(names, ["id", "column_2", "ID_2", "column_4"]);
    }
}
