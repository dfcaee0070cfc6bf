#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::{Value, json};

use super::{Limits, run};
use crate::error::Result;

const SALES: &str =
    "region,month,total,code\nnorth,1,10.5,007\nsouth,1,4,012\nnorth,2,7.25,\nwest,2,,100\n";

fn workspace(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    dir
}

fn call(dir: &tempfile::TempDir, tool: &str, args: Value) -> Result<String> {
    run(
        &dir.path().canonicalize().unwrap(),
        tool,
        &args,
        &Limits::default(),
        &Arc::new(AtomicBool::new(false)),
    )
}

fn query(dir: &tempfile::TempDir, files: &[&str], sql: &str) -> Result<Value> {
    call(dir, "data_query_csv", json!({ "files": files, "sql": sql }))
        .map(|text| serde_json::from_str(&text).unwrap())
}

#[test]
fn a_csv_becomes_a_typed_table_the_model_can_query() {
    let dir = workspace(&[("data/Sales 2024.csv", SALES)]);
    let answer = query(
        &dir,
        &["data/Sales 2024.csv"],
        "SELECT region, sum(total) AS total, count(*) AS n FROM sales_2024 GROUP BY region ORDER BY total DESC",
    )
    .unwrap();
    assert_eq!(answer["tables"][0]["table"], "sales_2024");
    assert_eq!(
        answer["tables"][0]["columns"],
        json!([
            "region (text)",
            "month (integer)",
            "total (real)",
            "code (text)"
        ])
    );
    assert_eq!(answer["columns"], json!(["region", "total", "n"]));
    assert_eq!(
        answer["rows"],
        json!([["north", 17.75, 2], ["south", 4.0, 1], ["west", null, 1]])
    );
    // Codes keep their leading zeros.
    let codes = query(
        &dir,
        &["data/Sales 2024.csv"],
        "SELECT code FROM sales_2024 WHERE code IS NOT NULL ORDER BY code",
    )
    .unwrap();
    assert_eq!(codes["rows"], json!([["007"], ["012"], ["100"]]));
}

#[test]
fn two_files_join_and_json_arrays_and_lines_load_too() {
    let dir = workspace(&[
        ("sales.csv", SALES),
        (
            "regions.json",
            r#"[{"region": "north", "manager": "Ana", "active": true}, {"region": "south", "manager": "Beto", "tags": ["a"]}]"#,
        ),
        (
            "events.jsonl",
            "{\"kind\": \"click\", \"n\": 2}\n\n{\"kind\": \"view\", \"n\": 3.5}\n",
        ),
    ]);
    let answer = query(
        &dir,
        &["sales.csv", "regions.json"],
        "SELECT r.manager, sum(s.total) FROM sales s JOIN regions r USING (region) GROUP BY r.manager ORDER BY r.manager",
    )
    .unwrap();
    assert_eq!(answer["rows"], json!([["Ana", 17.75], ["Beto", 4.0]]));
    let regions = query(
        &dir,
        &["regions.json"],
        "SELECT active, tags FROM regions ORDER BY region",
    )
    .unwrap();
    assert_eq!(regions["rows"], json!([[1, null], [null, "[\"a\"]"]]));
    let events = query(
        &dir,
        &["events.jsonl"],
        "SELECT sum(n), typeof(n) FROM events",
    )
    .unwrap();
    assert_eq!(events["rows"], json!([[5.5, "real"]]));
}

#[test]
fn only_one_read_only_select_runs() {
    let dir = workspace(&[("sales.csv", SALES)]);
    for sql in [
        "DELETE FROM sales",
        "DROP TABLE sales",
        "ATTACH DATABASE 'elsewhere.db' AS x",
        "PRAGMA writable_schema = 1",
        "SELECT 1; DROP TABLE sales",
        "WITH x AS (SELECT 1) INSERT INTO sales (region) SELECT * FROM x",
        "WITH x AS (SELECT 1) DELETE FROM sales",
        "SELECT load_extension('evil')",
        "SELECT * FROM sales; ATTACH 'x' AS y",
    ] {
        let err = query(&dir, &["sales.csv"], sql).unwrap_err();
        assert_eq!(err.field(), Some("sql"), "{sql}: {}", err.message);
        let reason = err.details.as_ref().unwrap()["reason"].clone();
        assert!(
            reason == "not_a_select" || reason == "invalid_sql",
            "{sql}: {reason} {}",
            err.message
        );
    }
    assert!(!dir.path().join("elsewhere.db").exists());
    let still = query(&dir, &["sales.csv"], "SELECT count(*) FROM sales").unwrap();
    assert_eq!(still["rows"], json!([[4]]));
    // A mistake names the tables there are.
    let err = query(&dir, &["sales.csv"], "SELECT * FROM ventas").unwrap_err();
    assert!(
        err.message.contains("no such table: ventas"),
        "{}",
        err.message
    );
    assert!(
        err.message
            .contains("sales(region text, month integer, total real, code text)"),
        "{}",
        err.message
    );
}

#[test]
fn a_runaway_query_is_stopped_by_its_step_budget() {
    let dir = workspace(&[("sales.csv", SALES)]);
    let limits = Limits {
        steps: 2_000_000,
        ..Limits::default()
    };
    let err = run(
        &dir.path().canonicalize().unwrap(),
        "data_query_csv",
        &json!({
            "files": ["sales.csv"],
            "sql": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n"
        }),
        &limits,
        &Arc::new(AtomicBool::new(false)),
    )
    .unwrap_err();
    assert_eq!(
        err.details.unwrap()["reason"],
        "too_much_work",
        "{}",
        err.message
    );
    // A cancelled run stops the same way.
    let err = run(
        &dir.path().canonicalize().unwrap(),
        "data_query_csv",
        &json!({
            "files": ["sales.csv"],
            "sql": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n"
        }),
        &Limits::default(),
        &Arc::new(AtomicBool::new(true)),
    )
    .unwrap_err();
    assert_eq!(
        err.code,
        crate::error::ErrorCode::Cancelled,
        "{}",
        err.message
    );
}

#[test]
fn answers_are_cut_to_their_rows_and_size() {
    let mut big = String::from("n,word\n");
    for i in 0..3000 {
        big.push_str(&format!("{i},{}\n", "abeja".repeat(4)));
    }
    let dir = workspace(&[("big.csv", &big)]);
    let text = call(
        &dir,
        "data_query_csv",
        json!({ "files": ["big.csv"], "sql": "SELECT * FROM big", "max_rows": 1000 }),
    )
    .unwrap();
    assert!(text.len() < 14_000, "{} characters", text.len());
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["more_rows"], true);
    assert!(answer["note"].as_str().unwrap().contains("LIMIT"));
    assert_eq!(answer["tables"][0]["rows"], 3000);
}

#[test]
fn files_are_found_only_inside_the_workspace_and_within_their_size() {
    let dir = workspace(&[("sales.csv", SALES), ("notes.bin", "a\0b")]);
    let err = query(&dir, &["../sales.csv"], "SELECT 1").unwrap_err();
    assert_eq!(err.details.unwrap()["reason"], "outside_workspace");
    let err = query(&dir, &["/etc/passwd"], "SELECT 1").unwrap_err();
    assert_eq!(err.details.unwrap()["reason"], "outside_workspace");
    std::os::unix::fs::symlink("/etc/hostname", dir.path().join("link.csv")).unwrap();
    let err = query(&dir, &["link.csv"], "SELECT 1").unwrap_err();
    assert_eq!(err.details.unwrap()["reason"], "outside_workspace");
    let err = query(&dir, &["notes.bin"], "SELECT 1").unwrap_err();
    assert!(err.message.contains("binary"), "{}", err.message);
    let err = query(&dir, &["missing.csv"], "SELECT 1").unwrap_err();
    assert_eq!(err.details.unwrap()["reason"], "not_found");

    let small = Limits {
        max_file: 1024 * 1024,
        ..Limits::default()
    };
    std::fs::write(dir.path().join("huge.csv"), vec![b'a'; 1024 * 1024 + 1]).unwrap();
    let err = run(
        &dir.path().canonicalize().unwrap(),
        "data_describe",
        &json!({ "file": "huge.csv" }),
        &small,
        &Arc::new(AtomicBool::new(false)),
    )
    .unwrap_err();
    assert_eq!(err.details.as_ref().unwrap()["reason"], "too_large");
    assert!(err.message.contains("larger than 1 MB"), "{}", err.message);
}

#[test]
fn describe_summarises_columns_and_shows_rows() {
    let dir = workspace(&[("sales.csv", SALES)]);
    let text = call(
        &dir,
        "data_describe",
        json!({ "file": "sales.csv", "sample_rows": 2 }),
    )
    .unwrap();
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["rows"], 4);
    assert_eq!(answer["table"], "sales");
    let total = &answer["columns"][2];
    assert_eq!(total["name"], "total");
    assert_eq!(total["type"], "real");
    assert_eq!(total["missing"], 1);
    assert_eq!(total["min"], 4.0);
    assert_eq!(total["max"], 10.5);
    assert_eq!(total["mean"], 7.25);
    let region = &answer["columns"][0];
    assert_eq!(region["distinct"], 3);
    assert_eq!(region["top"][0], json!({ "value": "north", "count": 2 }));
    assert_eq!(answer["sample"].as_array().unwrap().len(), 2);
    assert_eq!(answer["sample"][0]["region"], "north");
}

#[test]
fn a_chart_is_written_as_svg_into_the_workspace() {
    let dir = workspace(&[("sales.csv", SALES)]);
    let text = call(
        &dir,
        "data_chart",
        json!({
            "file": "sales.csv",
            "kind": "bar",
            "sql": "SELECT region, sum(total) AS total FROM sales GROUP BY region ORDER BY region",
            "x": "region",
            "y": ["total"],
            "title": "Total by region"
        }),
    )
    .unwrap();
    assert!(text.contains("charts/total_by_region.svg"), "{text}");
    let svg = std::fs::read_to_string(dir.path().join("charts/total_by_region.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
    assert_eq!(
        svg.matches("<rect x=").count(),
        2,
        "north and south have totals: {svg}"
    );
    assert!(svg.contains(">north</text>") && svg.contains("Total by region"));

    let text = call(
        &dir,
        "data_chart",
        json!({ "file": "sales.csv", "kind": "scatter", "x": "month", "y": ["total"], "output": "plots/months.svg" }),
    )
    .unwrap();
    assert!(text.contains("4 points"), "{text}");
    assert!(dir.path().join("plots/months.svg").is_file());

    let err = call(
        &dir,
        "data_chart",
        json!({ "file": "sales.csv", "kind": "scatter", "x": "region", "y": ["total"] }),
    )
    .unwrap_err();
    assert!(err.message.contains("numeric x"), "{}", err.message);
    let err = call(
        &dir,
        "data_chart",
        json!({ "file": "sales.csv", "kind": "line", "x": "month", "y": ["nope"] }),
    )
    .unwrap_err();
    assert!(err.message.contains("no column 'nope'"), "{}", err.message);
    let err = call(&dir, "data_chart", json!({ "file": "sales.csv", "kind": "bar", "x": "month", "y": ["total"], "output": ".git/hooks/x.svg" })).unwrap_err();
    assert_eq!(err.details.unwrap()["reason"], "git_metadata");
}
