//! Printing results: JSON for scripts (`--json`), aligned tables for people;
//! errors on stderr, with an exit status per error code.

use clap::Args;
use colmena_core::{AppError, ErrorCode};
use serde::Serialize;

pub struct Output {
    pub json: bool,
}

impl Output {
    /// Prints `value` as JSON, or calls `human` to print it for people.
    pub fn emit<T: Serialize>(&self, value: &T, human: impl FnOnce(&T)) {
        if self.json {
            match serde_json::to_string_pretty(value) {
                // Data for scripts: printed as the encoder wrote it.
                Ok(text) => std::println!("{text}"),
                Err(e) => eprintln!("error: cannot print JSON: {e}"),
            }
        } else {
            human(value);
        }
    }

    /// Prints a one-line confirmation, or `{"ok": true}` plus `extra` in JSON.
    pub fn done(&self, message: &str) {
        if self.json {
            std::println!("{}", serde_json::json!({ "ok": true, "message": message }));
        } else {
            println!("{message}");
        }
    }
}

/// Prints rows as left-aligned columns under a header.
pub fn table(header: &[&str], rows: Vec<Vec<String>>) {
    if rows.is_empty() {
        println!("(none)");
        return;
    }
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect();
        println!("{}", padded.join("  ").trim_end());
    };
    line(header.iter().map(|h| h.to_uppercase()).collect());
    for row in rows {
        line(row);
    }
}

pub fn yes_no(flag: bool) -> String {
    if flag { "yes" } else { "no" }.to_owned()
}

pub fn print_error(err: &AppError, json: bool) {
    if json {
        std::eprintln!("{}", serde_json::json!({ "error": err }));
    } else {
        eprintln!("error ({}): {}", err.code.as_str(), err.message);
    }
}

/// Exit status per code, documented in the README.
pub fn exit_status(code: ErrorCode) -> u8 {
    match code {
        ErrorCode::Internal => 1,
        ErrorCode::NotFound => 3,
        ErrorCode::Validation => 4,
        ErrorCode::Conflict => 5,
        ErrorCode::Unauthorized => 6,
        ErrorCode::Forbidden => 7,
        ErrorCode::Precondition => 8,
        ErrorCode::Upstream => 9,
        ErrorCode::Cancelled => 10,
        ErrorCode::RateLimited => 11,
        ErrorCode::Busy => 12,
    }
}

/// `--on` / `--off` for toggle verbs; neither flips the current state.
#[derive(Debug, Args)]
pub struct SwitchArgs {
    #[arg(long, conflicts_with = "off")]
    on: bool,
    #[arg(long)]
    off: bool,
}

impl SwitchArgs {
    pub fn target(&self) -> Option<bool> {
        match (self.on, self.off) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}
