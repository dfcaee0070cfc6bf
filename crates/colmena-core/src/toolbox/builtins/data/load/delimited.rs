//! CSV and TSV files: the header line names the columns, two passes over
//! the bytes — the first infers each column's type, the second inserts.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, params_from_iter};

use super::{
    Column, Guess, Kind, Limits, as_integer, as_real, bad_file, check_stop, column_names,
    create_table, strip_bom, too_many_columns, too_many_rows,
};
use crate::error::Result;

/// The delimiter the header line uses most, outside quotes: `,` by default.
pub(super) fn sniff_delimiter(bytes: &[u8]) -> u8 {
    let line = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
    let mut counts = [(b',', 0usize), (b';', 0), (b'\t', 0), (b'|', 0)];
    let mut quoted = false;
    for b in line {
        if *b == b'"' {
            quoted = !quoted;
        } else if !quoted && let Some(slot) = counts.iter_mut().find(|(d, _)| d == b) {
            slot.1 += 1;
        }
    }
    counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .max_by_key(|(_, n)| *n)
        .map_or(b',', |(d, _)| *d)
}

pub(super) fn load(
    conn: &Connection,
    name: &str,
    path: &str,
    bytes: &[u8],
    delimiter: u8,
    limits: &Limits,
    stop: &Arc<AtomicBool>,
) -> Result<(u64, Vec<Column>)> {
    let bytes = strip_bom(bytes);
    let reader = || {
        csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .has_headers(false)
            .flexible(true)
            .from_reader(bytes)
    };
    let failed = |e: csv::Error| bad_file(path, format!("not a readable CSV file: {e}"));
    // First pass: the header, the width and each column's type.
    let mut records = reader().into_byte_records();
    let header: Vec<String> = match records.next() {
        None => return Err(bad_file(path, "is empty: a CSV file needs a header line")),
        Some(first) => first
            .map_err(failed)?
            .iter()
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .collect(),
    };
    let mut guesses = vec![Guess::default(); header.len()];
    let mut rows = 0u64;
    for record in records {
        let record = record.map_err(failed)?;
        rows += 1;
        if rows > limits.max_rows {
            return Err(too_many_rows(path, limits));
        }
        check_stop(stop, rows)?;
        if record.len() > limits.max_columns {
            return Err(too_many_columns(path, limits));
        }
        if record.len() > guesses.len() {
            guesses.resize(record.len(), Guess::default());
        }
        for (field, guess) in record.iter().zip(guesses.iter_mut()) {
            let text = String::from_utf8_lossy(field);
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            guess.integer &= as_integer(text).is_some();
            guess.real &= as_real(text).is_some();
        }
    }
    if guesses.len() > limits.max_columns {
        return Err(too_many_columns(path, limits));
    }
    let columns: Vec<Column> = column_names(header, guesses.len())
        .into_iter()
        .zip(&guesses)
        .map(|(name, g)| Column {
            name,
            kind: g.kind(),
        })
        .collect();
    let insert = create_table(conn, name, &columns)?;
    // Second pass: the rows, typed.
    conn.execute_batch("BEGIN")?;
    {
        let mut stmt = conn.prepare(&insert)?;
        for (n, record) in reader().into_byte_records().skip(1).enumerate() {
            let record = record.map_err(failed)?;
            check_stop(stop, n as u64 + 1)?;
            let values = columns.iter().enumerate().map(|(i, c)| {
                let Some(field) = record.get(i) else {
                    return Sql::Null;
                };
                let text = String::from_utf8_lossy(field);
                let trimmed = text.trim();
                if trimmed.is_empty() {
                    return Sql::Null;
                }
                match c.kind {
                    Kind::Integer => as_integer(trimmed).map_or(Sql::Null, Sql::Integer),
                    Kind::Real => as_real(trimmed).map_or(Sql::Null, Sql::Real),
                    Kind::Text => Sql::Text(text.into_owned()),
                }
            });
            stmt.execute(params_from_iter(values))?;
        }
    }
    conn.execute_batch("COMMIT")?;
    Ok((rows, columns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiters_are_found_outside_quotes() {
        assert_eq!(sniff_delimiter(b"a;b;c\n1;2;3"), b';');
        assert_eq!(sniff_delimiter(b"\"x,y\";b\n"), b';');
        assert_eq!(sniff_delimiter(b"only"), b',');
        assert_eq!(sniff_delimiter(b"a\tb\n"), b'\t');
    }
}
