//! `colmena mcp-server`, run as a user would run it on temporary data dirs
//! (SPEC H23, H24): add, list, show, edit, switch, delete, test, import.

#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::Value;

mod common;

use common::{colmena, ok_json, run};

const TOKEN: &str = "ghp_live_SECRET_123456";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../colmena-core/tests/fixtures/mcp-import")
        .join(name)
}

/// Whether `needle` is anywhere under `dir`, read as raw bytes (the store,
/// its WAL and shared memory, the search index, the key file).
fn on_disk(dir: &Path, needle: &str) -> bool {
    let mut stack = vec![dir.to_owned()];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if let Ok(bytes) = std::fs::read(&path)
            && bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
        {
            return true;
        }
    }
    false
}

/// Runs `args` with `input` on standard input; status, stdout, stderr.
fn with_stdin(dir: &Path, args: &[&str], input: &str) -> (Option<i32>, String, String) {
    let mut child = colmena(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn error_of(args: &[&str], dir: &Path) -> (Option<i32>, Value) {
    let out = run(colmena(dir).arg("--json").args(args));
    let err: Value = serde_json::from_slice(&out.stderr).unwrap_or_else(|_| {
        panic!(
            "no JSON error for {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), err["error"].clone())
}

fn var<'a>(server: &'a Value, name: &str) -> &'a Value {
    let vars = server["transport"]["env"]
        .as_array()
        .or(server["transport"]["headers"].as_array())
        .unwrap();
    vars.iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {server}"))
}

#[test]
fn h23_add_list_show_mask_the_secret_and_leave_none_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let secret_env = format!("GITHUB_PERSONAL_ACCESS_TOKEN={TOKEN}");
    let added = ok_json(colmena(dir.path()).args([
        "mcp-server",
        "add",
        "GitHub",
        "--command",
        "npx",
        "--arg",
        "-y",
        "--arg",
        "@modelcontextprotocol/server-github",
        "--env",
        "LOG_LEVEL=debug",
        "--secret-env",
        &secret_env,
        "--timeout",
        "30",
    ]));
    assert_eq!(added["id"], "github");
    assert_eq!(added["transport"]["kind"], "stdio");
    assert_eq!(
        added["transport"]["args"],
        serde_json::json!(["-y", "@modelcontextprotocol/server-github"])
    );
    assert_eq!(added["timeoutSeconds"], 30);
    assert_eq!(added["status"]["state"], "stopped");
    assert_eq!(var(&added, "LOG_LEVEL")["value"], "debug");
    let token = var(&added, "GITHUB_PERSONAL_ACCESS_TOKEN");
    assert_eq!(
        (&token["secret"], &token["value"]),
        (&Value::Bool(true), &Value::from("ghp…3456"))
    );

    let list = ok_json(colmena(dir.path()).args(["mcp-server", "list"]));
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["id"], "github");
    let table = run(colmena(dir.path()).args(["mcp-server", "list"]));
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.starts_with("ID") && table.contains("stopped"),
        "{table}"
    );

    let show = run(colmena(dir.path()).args(["mcp-server", "show", "github"]));
    assert!(show.status.success());
    let shown = String::from_utf8_lossy(&show.stdout);
    assert!(
        shown.contains("GITHUB_PERSONAL_ACCESS_TOKEN = ghp…3456  (secret)"),
        "{shown}"
    );
    for text in [shown.to_string(), list.to_string(), added.to_string()] {
        assert!(!text.contains(TOKEN), "a read shows the secret: {text}");
    }
    assert!(
        !on_disk(dir.path(), TOKEN),
        "the clear token is under the data dir"
    );
}

#[test]
fn h23_a_secret_given_by_name_comes_from_the_environment_or_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let from_env = ok_json(
        colmena(dir.path())
            .env("MY_SERVICE_TOKEN", "tok-from-the-environment-1234")
            .args([
                "mcp-server",
                "add",
                "a",
                "--command",
                "srv",
                "--secret-env",
                "MY_SERVICE_TOKEN",
            ]),
    );
    assert_eq!(var(&from_env, "MY_SERVICE_TOKEN")["value"], "tok…1234");

    let (status, stdout, stderr) = with_stdin(
        dir.path(),
        &[
            "--json",
            "mcp-server",
            "add",
            "b",
            "--url",
            "https://mcp.example.com/mcp",
            "--secret-header",
            "X-API-Key",
        ],
        "key-from-standard-input-9876\n",
    );
    assert_eq!(status, Some(0), "{stderr}");
    let server: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(server["transport"]["kind"], "http");
    assert_eq!(
        var(&server, "X-API-Key")["value"],
        "key…9876",
        "the newline is not part of it"
    );

    let (status, _, stderr) = with_stdin(
        dir.path(),
        &[
            "--json",
            "mcp-server",
            "add",
            "c",
            "--command",
            "srv",
            "--secret-env",
            "UNSET_SECRET_FOR_THIS_TEST",
        ],
        "",
    );
    assert_eq!(status, Some(4), "{stderr}");
    assert!(stderr.contains("UNSET_SECRET_FOR_THIS_TEST"), "{stderr}");
}

#[test]
fn h23_edit_replaces_switches_and_delete_removes() {
    let dir = tempfile::tempdir().unwrap();
    ok_json(colmena(dir.path()).args([
        "mcp-server",
        "add",
        "Docs",
        "--command",
        "docs-server",
        "--secret-env",
        "API_KEY=sk-docs-0123456789",
        "--env",
        "A=1",
    ]));

    // Kept without retyping it; the plain variable not given again is gone.
    let kept = ok_json(colmena(dir.path()).args([
        "mcp-server",
        "edit",
        "docs",
        "--command",
        "docs-server-2",
        "--arg",
        "--fast",
        "--keep-secret",
        "API_KEY",
    ]));
    assert_eq!(kept["transport"]["command"], "docs-server-2");
    assert_eq!(kept["transport"]["args"][0], "--fast");
    assert_eq!(kept["transport"]["env"].as_array().unwrap().len(), 1);
    assert_eq!(var(&kept, "API_KEY")["value"], "sk-…6789");

    let moved = ok_json(colmena(dir.path()).args([
        "mcp-server",
        "edit",
        "docs",
        "--name",
        "Docs online",
        "--url",
        "https://docs.example.com/mcp",
        "--disabled",
    ]));
    assert_eq!(
        (&moved["id"], &moved["name"]),
        (&Value::from("docs"), &Value::from("Docs online")),
        "the id stays"
    );
    assert_eq!(moved["transport"]["kind"], "http");
    assert_eq!(moved["enabled"], false);
    assert_eq!(moved["status"]["state"], "disabled");

    let (status, err) = error_of(&["mcp-server", "test", "docs"], dir.path());
    assert_eq!(
        (status, &err["code"]),
        (Some(8), &Value::from("precondition")),
        "a switched-off server is not tested"
    );

    let on = ok_json(colmena(dir.path()).args(["mcp-server", "enable", "docs"]));
    assert_eq!(
        (&on["enabled"], &on["status"]["state"]),
        (&Value::Bool(true), &Value::from("stopped"))
    );
    let off = ok_json(colmena(dir.path()).args(["mcp-server", "disable", "docs"]));
    assert_eq!(off["enabled"], false);

    let deleted = ok_json(colmena(dir.path()).args(["mcp-server", "delete", "docs"]));
    assert_eq!(deleted["ok"], true);
    let (status, err) = error_of(&["mcp-server", "show", "docs"], dir.path());
    assert_eq!((status, &err["code"]), (Some(3), &Value::from("not_found")));
}

#[test]
fn h23_bad_input_exits_with_the_code_of_its_error() {
    let dir = tempfile::tempdir().unwrap();
    ok_json(colmena(dir.path()).args(["mcp-server", "add", "one", "--command", "x"]));
    let cases: [(&[&str], i32, &str, &str); 5] = [
        (
            &[
                "mcp-server",
                "add",
                "two",
                "--command",
                "x",
                "--env",
                "NOEQUALS",
            ],
            4,
            "validation",
            "env",
        ),
        (
            &[
                "mcp-server",
                "add",
                "two",
                "--url",
                "ftp://files.example.com",
            ],
            4,
            "validation",
            "url",
        ),
        (
            &[
                "mcp-server",
                "add",
                "two",
                "--command",
                "x",
                "--cwd",
                "relative/dir",
            ],
            4,
            "validation",
            "cwd",
        ),
        (
            &["mcp-server", "add", "One", "--command", "y"],
            5,
            "conflict",
            "name",
        ),
        (
            &[
                "mcp-server",
                "add",
                "two",
                "--command",
                "x",
                "--timeout",
                "0",
            ],
            4,
            "validation",
            "timeoutSeconds",
        ),
    ];
    for (args, status, code, field) in cases {
        let (got, err) = error_of(args, dir.path());
        assert_eq!(got, Some(status), "{args:?}: {err}");
        assert_eq!(
            (&err["code"], &err["details"]["field"]),
            (&Value::from(code), &Value::from(field)),
            "{args:?}"
        );
    }
    // Neither --command nor --url: clap refuses before anything opens.
    let out = run(colmena(dir.path()).args(["mcp-server", "add", "three"]));
    assert_eq!(out.status.code(), Some(2));
    let (status, err) = error_of(
        &["mcp-server", "import", "/nonexistent/mcp.json"],
        dir.path(),
    );
    assert_eq!((status, &err["code"]), (Some(3), &Value::from("not_found")));
    let (status, stdout, stderr) = with_stdin(
        dir.path(),
        &["--json", "mcp-server", "import", "-"],
        "not json",
    );
    assert_eq!(status, Some(4), "{stdout}");
    let err: Value = serde_json::from_str(&stderr).unwrap();
    assert_eq!(err["error"]["details"]["reason"], "not_json");
}

#[test]
fn h24_import_dry_run_shows_the_preview_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mixed = fixture("mixed.json");
    let preview = ok_json(
        colmena(dir.path())
            .args(["mcp-server", "import", "--dry-run"])
            .arg(&mixed),
    );
    assert_eq!(preview["source"], "mcp_servers");
    assert_eq!(
        preview["counts"],
        serde_json::json!({"new": 2, "exists": 0, "invalid": 3, "notSelected": 0})
    );
    let github = &preview["entries"][0];
    assert_eq!(
        (&github["name"], &github["status"]),
        (&Value::from("github"), &Value::from("new"))
    );
    assert_eq!(
        github["secrets"],
        serde_json::json!(["GITHUB_PERSONAL_ACCESS_TOKEN"])
    );
    assert_eq!(
        preview["entries"][1]["problem"]["reason"],
        "sse_unsupported"
    );
    assert!(
        !preview.to_string().contains(TOKEN),
        "the preview shows the secret"
    );

    let out = run(colmena(dir.path())
        .args(["mcp-server", "import", "--dry-run"])
        .arg(&mixed));
    assert!(out.status.success());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.starts_with("NAME"), "{table}");
    assert!(
        table.contains("invalid (sse_unsupported)")
            && table.contains("invalid: old-events: it uses the SSE transport"),
        "{table}"
    );
    assert!(table.contains("nothing was written"), "{table}");

    let list = ok_json(colmena(dir.path()).args(["mcp-server", "list"]));
    assert!(
        list.as_array().unwrap().is_empty(),
        "a dry run added {list}"
    );
    assert!(!on_disk(dir.path(), TOKEN));
}

#[test]
fn h24_import_adds_the_new_skips_what_exists_and_reads_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let mixed = fixture("mixed.json");
    let outcome = ok_json(
        colmena(dir.path())
            .args(["mcp-server", "import"])
            .arg(&mixed),
    );
    let added: Vec<&str> = outcome["added"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(added, ["github", "remote"]);
    assert_eq!(outcome["invalid"].as_array().unwrap().len(), 3);
    assert_eq!(
        var(&outcome["added"][0], "GITHUB_PERSONAL_ACCESS_TOKEN")["value"],
        "ghp…3456"
    );
    assert_eq!(outcome["added"][0]["status"]["state"], "disabled");
    assert!(
        !on_disk(dir.path(), TOKEN),
        "the imported token is in clear on disk"
    );

    let again = ok_json(
        colmena(dir.path())
            .args(["mcp-server", "import"])
            .arg(&mixed),
    );
    assert!(again["added"].as_array().unwrap().is_empty());
    assert_eq!(again["skipped"][0]["status"], "exists");
    assert_eq!(again["skipped"][0]["existing"]["matchedBy"], "id");

    let text = std::fs::read_to_string(fixture("claude_desktop_config.json")).unwrap();
    let (status, stdout, stderr) = with_stdin(dir.path(), &["mcp-server", "import", "-"], &text);
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stdout.contains("added filesystem (stopped)"), "{stdout}");

    let only = ok_json(
        colmena(dir.path())
            .args([
                "mcp-server",
                "import",
                "--only",
                "api-server",
                "--resolve-references",
            ])
            .arg(fixture("claude_code_mcp.json"))
            .env("API_KEY", "sk-resolved-now-123456789"),
    );
    let header = var(&only["added"][0], "Authorization");
    assert_eq!(
        (&header["secret"], &header["value"]),
        (&Value::Bool(true), &Value::from("Bea…6789"))
    );
    assert_eq!(
        only["added"][0]["transport"]["url"],
        "https://api.example.com/mcp"
    );
}

#[test]
fn h23_test_reports_the_failure_its_stderr_and_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    // A program that says why on stderr and exits 3, in each system's shell.
    let (shell, flag, script) = if cfg!(windows) {
        ("cmd", "/c", "echo cannot-start-here 1>&2 & exit 3")
    } else {
        ("sh", "-c", "echo cannot-start-here >&2; exit 3")
    };
    ok_json(colmena(dir.path()).args([
        "mcp-server",
        "add",
        "broken",
        "--command",
        shell,
        "--arg",
        flag,
        "--arg",
        script,
    ]));
    let out = run(colmena(dir.path()).args(["--json", "mcp-server", "test", "broken"]));
    assert_eq!(
        out.status.code(),
        Some(9),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["ok"], false);
    assert!(
        result["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{result}"
    );
    assert_eq!(result["exitCode"], 3, "{result}");
    assert!(
        result["stderrTail"]
            .as_str()
            .unwrap_or_default()
            .contains("cannot-start-here"),
        "{result}"
    );
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"]["code"], "upstream");

    let show = ok_json(colmena(dir.path()).args(["mcp-server", "show", "broken"]));
    assert_eq!(
        show["status"]["state"], "failed",
        "the failure is kept for other processes: {show}"
    );
}

#[test]
fn h23_presets_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let presets = ok_json(colmena(dir.path()).args(["mcp-server", "presets"]));
    let ids: Vec<&str> = presets
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"playwright") && ids.contains(&"filesystem"),
        "{ids:?}"
    );
    assert_eq!(presets[0]["input"]["transport"]["kind"], "stdio");
}

#[test]
fn h23_test_lists_the_tools_of_a_working_server() {
    // `colmena mcp` is an MCP server over stdio: Colmena tests itself, on another data dir.
    let (dir, inner) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let program = common::colmena_bin();
    let program = program.to_str().unwrap();
    let inner_dir = inner.path().display().to_string();
    ok_json(colmena(dir.path()).args([
        "mcp-server",
        "add",
        "Colmena",
        "--command",
        program,
        "--arg",
        "--data-dir",
        "--arg",
        &inner_dir,
        "--arg",
        "mcp",
        "--env",
        "COLMENA_SECRET_BACKEND=file",
    ]));
    let out = run(colmena(dir.path()).args(["--json", "mcp-server", "test", "colmena"]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["ok"], true, "{result}");
    let tools = result["tools"].as_array().unwrap();
    assert!(!tools.is_empty(), "{result}");
    assert!(
        tools
            .iter()
            .all(|t| t["id"].as_str().unwrap().starts_with("mcp__colmena__")),
        "{result}"
    );

    let human = run(colmena(dir.path()).args(["mcp-server", "test", "colmena"]));
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.starts_with("MCP server colmena works:"), "{text}");

    // Another process: not running there, but its tools are in the catalog.
    let shown = ok_json(colmena(dir.path()).args(["mcp-server", "show", "colmena"]));
    assert_eq!(shown["status"]["state"], "stopped");
    assert_eq!(shown["tools"].as_array().unwrap().len(), tools.len());
}
