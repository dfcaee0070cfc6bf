//! `data_describe`: what a table holds, computed by SQLite over the loaded
//! rows — counts, missing and distinct values, the range and mean of
//! numbers, the commonest values of text, and a few rows as they are.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::{Map, Value, json};

use super::Limits;
use super::load::{Database, quoted};
use super::sql;
use crate::error::{AppError, Result};

/// Columns described in detail; the rest are listed with their type.
const DETAILED_COLUMNS: usize = 100;
const TOP_VALUES: u64 = 5;

pub(super) fn describe(
    db: &Database,
    sample: u64,
    limits: &Limits,
    stop: &Arc<AtomicBool>,
) -> Result<Value> {
    let table = db
        .tables
        .first()
        .ok_or_else(|| AppError::internal("no table was loaded"))?;
    let name = quoted(&table.table);
    let summary = || db.summary();
    let one_row = |query: &str| -> Result<Vec<Value>> {
        let rows = sql::select(&db.conn, query, 1, limits, stop, &summary)?;
        Ok(rows.rows.into_iter().next().unwrap_or_default())
    };
    let mut columns = Vec::new();
    for (i, column) in table.columns.iter().enumerate() {
        let mut out = Map::new();
        out.insert("name".into(), json!(column.name));
        out.insert("type".into(), json!(column.kind));
        if i >= DETAILED_COLUMNS {
            columns.push(Value::Object(out));
            continue;
        }
        let c = quoted(&column.name);
        if column.kind.is_number() {
            let row = one_row(&format!(
                "SELECT count(*) - count({c}), count(DISTINCT {c}), min({c}), max({c}), avg({c}) FROM {name}"
            ))?;
            for (key, value) in ["missing", "distinct", "min", "max", "mean"]
                .iter()
                .zip(row)
            {
                out.insert((*key).into(), value);
            }
        } else {
            let row = one_row(&format!(
                "SELECT count(*) - count({c}), count(DISTINCT {c}), min(length({c})), max(length({c})) FROM {name}"
            ))?;
            for (key, value) in ["missing", "distinct", "shortest", "longest"]
                .iter()
                .zip(row)
            {
                out.insert((*key).into(), value);
            }
            let top = sql::select(
                &db.conn,
                &format!(
                    "SELECT {c}, count(*) AS n FROM {name} WHERE {c} IS NOT NULL \
                     GROUP BY {c} ORDER BY n DESC, {c} LIMIT {TOP_VALUES}"
                ),
                TOP_VALUES,
                limits,
                stop,
                &summary,
            )?;
            let top: Vec<Value> = top
                .rows
                .into_iter()
                .map(|r| json!({ "value": r[0], "count": r[1] }))
                .collect();
            out.insert("top".into(), Value::Array(top));
        }
        columns.push(Value::Object(out));
    }
    let rows = sql::select(
        &db.conn,
        &format!("SELECT * FROM {name} LIMIT {sample}"),
        sample.max(1),
        limits,
        stop,
        &summary,
    )?;
    let sample_rows: Vec<Value> = rows
        .rows
        .into_iter()
        .take(sample as usize)
        .map(|values| {
            Value::Object(
                rows.columns
                    .iter()
                    .cloned()
                    .zip(values)
                    .collect::<Map<String, Value>>(),
            )
        })
        .collect();
    let mut answer = json!({
        "file": table.file,
        "table": table.table,
        "format": table.format,
        "rows": table.rows,
        "columns": columns,
        "sample": sample_rows,
    });
    if table.columns.len() > DETAILED_COLUMNS {
        answer["note"] = json!(format!(
            "only the first {DETAILED_COLUMNS} of {} columns are described in detail",
            table.columns.len()
        ));
    }
    Ok(answer)
}
