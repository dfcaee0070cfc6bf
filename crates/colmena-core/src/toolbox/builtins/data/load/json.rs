//! JSON files: an array of objects (or of plain values, as one `value`
//! column), an object holding exactly one such array, or JSON Lines. Keys
//! become columns in the order first seen.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, params_from_iter};
use serde_json::{Map, Value};

use super::{
    Column, Guess, Kind, Limits, bad_file, check_stop, column_names, create_table, strip_bom,
    too_many_columns, too_many_rows,
};
use crate::error::Result;

/// The objects of a JSON file: an array (of objects, or of plain values
/// as one `value` column), an object holding exactly one such array, or
/// one object per line.
pub(super) fn records(path: &str, bytes: &[u8], lines: bool) -> Result<Vec<Map<String, Value>>> {
    let text = String::from_utf8_lossy(strip_bom(bytes));
    let shape = "must hold an array of objects (one per row) or one object per line";
    let items: Vec<Value> = if lines {
        let mut items = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            items.push(
                serde_json::from_str(line)
                    .map_err(|e| bad_file(path, format!("line {} is not JSON: {e}", n + 1)))?,
            );
        }
        // A pretty-printed single object is not JSON Lines but a document.
        if items.is_empty() || text.trim_start().starts_with('{') && items.len() == 1 {
            let whole: Value = serde_json::from_str(&text)
                .map_err(|e| bad_file(path, format!("is not JSON: {e}")))?;
            match whole {
                Value::Object(map) => inner_array(map).ok_or_else(|| bad_file(path, shape))?,
                _ => return Err(bad_file(path, shape)),
            }
        } else {
            items
        }
    } else {
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Array(items)) => items,
            Ok(Value::Object(map)) => inner_array(map).ok_or_else(|| bad_file(path, shape))?,
            Ok(_) => return Err(bad_file(path, shape)),
            Err(e) => return Err(bad_file(path, format!("is not JSON: {e}"))),
        }
    };
    Ok(items
        .into_iter()
        .map(|item| match item {
            Value::Object(map) => map,
            other => Map::from_iter([("value".to_owned(), other)]),
        })
        .collect())
}

/// The one array in `{"results": […]}`-shaped documents.
fn inner_array(map: Map<String, Value>) -> Option<Vec<Value>> {
    let mut arrays = map.into_iter().filter_map(|(_, v)| match v {
        Value::Array(a) => Some(a),
        _ => None,
    });
    let first = arrays.next()?;
    arrays.next().is_none().then_some(first)
}

pub(super) fn load(
    conn: &Connection,
    name: &str,
    path: &str,
    records: &[Map<String, Value>],
    limits: &Limits,
    stop: &Arc<AtomicBool>,
) -> Result<(u64, Vec<Column>)> {
    if records.len() as u64 > limits.max_rows {
        return Err(too_many_rows(path, limits));
    }
    let mut keys: Vec<String> = Vec::new();
    let mut guesses: Vec<Guess> = Vec::new();
    for (n, record) in records.iter().enumerate() {
        check_stop(stop, n as u64 + 1)?;
        for (key, value) in record {
            let i = match keys.iter().position(|k| k == key) {
                Some(i) => i,
                None => {
                    if keys.len() >= limits.max_columns {
                        return Err(too_many_columns(path, limits));
                    }
                    keys.push(key.clone());
                    guesses.push(Guess::default());
                    keys.len() - 1
                }
            };
            let guess = &mut guesses[i];
            match value {
                // Booleans count as 0 and 1.
                Value::Null | Value::Bool(_) => {}
                Value::Number(n) => guess.integer &= n.is_i64(),
                _ => {
                    guess.integer = false;
                    guess.real = false;
                }
            }
        }
    }
    let names = column_names(keys.clone(), keys.len());
    let columns: Vec<Column> = names
        .into_iter()
        .zip(&guesses)
        .map(|(name, g)| Column {
            name,
            kind: g.kind(),
        })
        .collect();
    let insert = create_table(conn, name, &columns)?;
    conn.execute_batch("BEGIN")?;
    {
        let mut stmt = conn.prepare(&insert)?;
        for record in records {
            let values =
                keys.iter()
                    .zip(&columns)
                    .map(|(key, c)| match (record.get(key), c.kind) {
                        (None | Some(Value::Null), _) => Sql::Null,
                        (Some(Value::Bool(b)), Kind::Integer | Kind::Real) => {
                            Sql::Integer(i64::from(*b))
                        }
                        (Some(Value::Number(n)), Kind::Integer) => {
                            n.as_i64().map_or(Sql::Null, Sql::Integer)
                        }
                        (Some(Value::Number(n)), Kind::Real) => {
                            n.as_f64().map_or(Sql::Null, Sql::Real)
                        }
                        (Some(Value::String(s)), _) => Sql::Text(s.clone()),
                        (Some(other), _) => Sql::Text(other.to_string()),
                    });
            stmt.execute(params_from_iter(values))?;
        }
    }
    conn.execute_batch("COMMIT")?;
    Ok((records.len() as u64, columns))
}
