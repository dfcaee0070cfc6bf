//! The `colmena` binary, run as a user would run it, on temporary data dirs.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

mod common;

use common::{KEY, colmena, ok_json, run};

fn grep_dir(dir: &Path, needle: &str) -> bool {
    let out = Command::new("grep")
        .args(["-r", "-a", "-q", needle])
        .arg(dir)
        .output()
        .expect("grep");
    out.status.success()
}

#[test]
fn h18_provider_add_leaves_no_clear_key_on_disk_and_lists_it_masked() {
    let dir = tempfile::tempdir().unwrap();
    let added = ok_json(colmena(dir.path()).args([
        "provider",
        "add",
        "OpenAI",
        "--kind",
        "openai_compatible",
        "--api-key",
        KEY,
    ]));
    assert_eq!(added["id"], "openai");

    assert!(
        !grep_dir(dir.path(), KEY),
        "grep -ra found the clear key in the data dir"
    );

    let list = ok_json(colmena(dir.path()).args(["provider", "list"]));
    assert_eq!(list[0]["hasApiKey"], true);
    assert_eq!(list[0]["apiKeyMasked"], "sk-…cdef");
    assert!(!list.to_string().contains(KEY));
}

#[test]
fn the_key_can_come_from_stdin() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let mut child = colmena(dir.path())
        .args([
            "--json",
            "provider",
            "add",
            "Groq",
            "--kind",
            "openai",
            "--api-key-stdin",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{KEY}\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let provider: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(provider["apiKeyMasked"], "sk-…cdef");
}

#[test]
fn bad_input_exits_with_the_code_of_its_error_and_a_json_error() {
    let dir = tempfile::tempdir().unwrap();
    ok_json(colmena(dir.path()).args(["provider", "add", "OpenAI", "--kind", "openai"]));
    let cases: [(&[&str], i32, &str, &str); 4] = [
        (
            &["provider", "add", "  ", "--kind", "openai"],
            4,
            "validation",
            "name",
        ),
        (
            &["provider", "add", "X", "--kind", "gemini"],
            4,
            "validation",
            "kind",
        ),
        (
            &[
                "provider",
                "add",
                "X",
                "--kind",
                "openai",
                "--base-url",
                "htp:/broken",
            ],
            4,
            "validation",
            "baseUrl",
        ),
        (
            &["provider", "add", "openai", "--kind", "openai"],
            5,
            "conflict",
            "name",
        ),
    ];
    for (args, status, code, field) in cases {
        let out = run(colmena(dir.path()).arg("--json").args(args));
        assert_eq!(out.status.code(), Some(status), "{args:?}");
        let err: Value = serde_json::from_slice(&out.stderr).expect("json error on stderr");
        assert_eq!(err["error"]["code"], code, "{args:?}");
        assert_eq!(err["error"]["details"]["field"], field, "{args:?}");
        assert!(out.stdout.is_empty());
    }
    let out = run(colmena(dir.path()).args(["provider", "show", "ghost"]));
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error (not_found):"));
}

#[test]
fn h21_model_rename_through_the_cli_re_points_agents() {
    let dir = tempfile::tempdir().unwrap();
    ok_json(colmena(dir.path()).args(["provider", "add", "OpenAI", "--kind", "openai"]));
    ok_json(colmena(dir.path()).args(["model", "add", "openai", "gpt-viejo"]));
    for name in ["Uno", "Dos"] {
        ok_json(colmena(dir.path()).args(["agent", "add", name, "--model", "openai/gpt-viejo"]));
    }
    let out = run(colmena(dir.path()).args(["model", "remove", "openai/gpt-viejo"]));
    assert_eq!(out.status.code(), Some(5));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("dos") && stderr.contains("uno"), "{stderr}");

    let renamed =
        ok_json(colmena(dir.path()).args(["model", "rename", "openai/gpt-viejo", "gpt-nuevo"]));
    assert_eq!(renamed["id"], "openai/gpt-nuevo");
    let agents = ok_json(colmena(dir.path()).args(["agent", "list"]));
    let mine: Vec<&Value> = agents
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["persona"].is_null())
        .collect();
    assert_eq!(mine.len(), 2);
    for agent in mine {
        assert_eq!(agent["modelId"], "openai/gpt-nuevo");
    }
    let users = ok_json(colmena(dir.path()).args(["model", "users", "openai/gpt-nuevo"]));
    assert_eq!(users.as_array().unwrap().len(), 2);
}

#[test]
fn h19_toggling_a_provider_through_the_cli_switches_its_models() {
    let dir = tempfile::tempdir().unwrap();
    ok_json(colmena(dir.path()).args(["provider", "add", "Ollama", "--kind", "ollama"]));
    ok_json(colmena(dir.path()).args(["model", "add", "ollama", "llama3.1:8b"]));
    let off = ok_json(colmena(dir.path()).args(["provider", "toggle", "ollama"]));
    assert_eq!(off["enabled"], false);
    let usable = ok_json(colmena(dir.path()).args(["model", "list", "--enabled"]));
    assert_eq!(usable.as_array().unwrap().len(), 0);
    let on = ok_json(colmena(dir.path()).args(["provider", "toggle", "ollama", "--on"]));
    assert_eq!(on["enabled"], true);
    let usable = ok_json(colmena(dir.path()).args(["model", "list", "--enabled"]));
    assert_eq!(usable[0]["id"], "ollama/llama3.1:8b");
}

/// As root the doctor warns (programs run as another user, the rest of
/// Colmena keeps root's powers), and the report stays healthy; as anyone
/// else there is no such line. The test command runs as root
/// (`COLMENA_REQUIRE_ROOT_TESTS`).
#[test]
fn as_root_the_doctor_warns_and_stays_healthy() {
    let uid = Command::new("id").arg("-u").output().unwrap().stdout;
    let as_root = String::from_utf8_lossy(&uid).trim() == "0";
    assert!(
        as_root || std::env::var_os("COLMENA_REQUIRE_ROOT_TESTS").is_none(),
        "COLMENA_REQUIRE_ROOT_TESTS is set, but the tests do not run as root"
    );
    let dir = tempfile::tempdir().unwrap();
    let report = ok_json(colmena(dir.path()).arg("doctor"));
    assert_eq!(report["healthy"], true, "{report}");
    let checks = report["checks"].as_array().unwrap();
    let user = checks.iter().find(|c| c["name"] == "user");
    if !as_root {
        assert!(user.is_none(), "{report}");
        return;
    }
    let user = user.unwrap_or_else(|| panic!("no root warning: {report}"));
    assert_eq!(user["ok"], true);
    assert_eq!(user["warning"], true);
    let detail = user["detail"].as_str().unwrap();
    assert!(detail.contains("runs as root"), "{detail}");
    let out = run(colmena(dir.path()).arg("doctor"));
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("[warn] user: Colmena runs as root"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn the_data_dir_can_come_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(Command::new(env!("CARGO_BIN_EXE_colmena"))
        .args(["--json", "doctor"])
        .env("COLMENA_DATA_DIR", dir.path())
        .env("COLMENA_SECRET_BACKEND", "file"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let expected = dir.path().canonicalize().unwrap();
    assert_eq!(report["info"]["dataDir"], expected.display().to_string());
    assert!(dir.path().join("colmena.db").exists());
}

/// A session environment with no Secret Service: the keychain cannot answer.
fn without_keychain<'a>(cmd: &'a mut Command, home: &Path) -> &'a mut Command {
    cmd.env_remove("COLMENA_SECRET_BACKEND")
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/colmena-test-bus",
        )
        .env("HOME", home)
        .env("XDG_RUNTIME_DIR", home)
}

#[test]
fn the_key_file_fallback_is_reported_with_its_reason_on_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    for _ in 0..2 {
        let report = ok_json(without_keychain(&mut colmena(dir.path()), home.path()).arg("doctor"));
        let secrets = &report["info"]["secrets"];
        assert_eq!(secrets["backend"], "file");
        assert_eq!(secrets["ready"], true);
        let note = secrets["note"].as_str().unwrap_or_default();
        assert!(note.contains("keychain is not available"), "note: {note}");
    }
}

#[test]
fn an_unknown_backend_name_is_an_error_not_a_default() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(colmena(dir.path())
        .env("COLMENA_SECRET_BACKEND", "vault9")
        .arg("doctor"));
    assert_eq!(out.status.code(), Some(4));
}

/// Runs `script` inside a private D-Bus session with an unlocked GNOME
/// Keyring, the way a desktop session provides the Secret Service.
fn in_keyring_session(home: &Path, script: &str) -> Option<Output> {
    let tools = ["dbus-run-session", "gnome-keyring-daemon"];
    let missing: Vec<_> = tools
        .iter()
        .filter(|t| {
            !Command::new("sh")
                .args(["-c", &format!("command -v {t}")])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect();
    if !missing.is_empty() {
        if std::env::var_os("COLMENA_REQUIRE_KEYCHAIN_TEST").is_some() {
            panic!("the keychain test needs {missing:?} (the test script installs them)");
        }
        eprintln!("skipping: {missing:?} not installed");
        return None;
    }
    let runtime = home.join("run");
    std::fs::create_dir_all(&runtime).unwrap();
    let full = format!(
        "echo -n test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; {script}"
    );
    Some(
        Command::new("dbus-run-session")
            .args(["--", "sh", "-c", &full])
            .env("HOME", home)
            .env("XDG_DATA_HOME", home.join("share"))
            .env("XDG_RUNTIME_DIR", &runtime)
            .env_remove("COLMENA_SECRET_BACKEND")
            .env_remove("COLMENA_DATA_DIR")
            .env("COLMENA", env!("CARGO_BIN_EXE_colmena"))
            .output()
            .expect("dbus-run-session"),
    )
}

#[test]
fn the_master_key_lives_in_a_real_keychain_and_is_never_silently_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let data = dir.path().display().to_string();
    let script = format!(
        "\"$COLMENA\" --data-dir '{data}' --json provider add Anthropic --kind anthropic --api-key {KEY} >/dev/null && \
         \"$COLMENA\" --data-dir '{data}' --json doctor"
    );
    let Some(out) = in_keyring_session(home.path(), &script) else {
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["info"]["secrets"]["backend"], "keychain");
    assert_eq!(report["info"]["secrets"]["ready"], true);
    assert!(
        !dir.path().join("master.key").exists(),
        "no key file next to a keychain key"
    );
    assert!(!grep_dir(dir.path(), KEY));

    // Outside that session the keychain is gone: the vault is locked, no new
    // key is made, reads still work and storing a key is refused clearly.
    let out =
        run(without_keychain(&mut colmena(dir.path()), home.path()).args(["--json", "doctor"]));
    assert_eq!(out.status.code(), Some(8));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["info"]["secrets"]["backend"], "keychain");
    assert_eq!(report["info"]["secrets"]["ready"], false);
    assert!(
        !dir.path().join("master.key").exists(),
        "a silent fallback made a key file"
    );

    let list =
        ok_json(without_keychain(&mut colmena(dir.path()), home.path()).args(["provider", "list"]));
    assert_eq!(list[0]["apiKeyMasked"], "sk-…cdef");

    let out = run(
        without_keychain(&mut colmena(dir.path()), home.path()).args([
            "--json",
            "provider",
            "update",
            "anthropic",
            "--api-key",
            "sk-another-key-0000000000",
        ]),
    );
    assert_eq!(out.status.code(), Some(8));
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"]["code"], "precondition");
    assert_eq!(err["error"]["details"]["field"], "apiKey");
}

#[test]
fn h3_agent_add_with_an_unknown_skill_fails_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out =
        run(colmena(dir.path()).args(["--json", "agent", "add", "X", "--skills", "no-existe"]));
    assert_eq!(out.status.code(), Some(4));
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"]["message"], "unknown skills: no-existe");
    let agent = ok_json(colmena(dir.path()).args([
        "agent",
        "add",
        "Diseño",
        "--tools",
        "image_*,web_fetch",
    ]));
    assert_eq!(agent["id"], "diseno");
    assert_eq!(
        agent["tools"],
        serde_json::json!(["image_metadata", "image_transform", "web_fetch"])
    );
}

#[test]
fn h26_memories_of_ana_and_beto_stay_apart_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    ok_json(colmena(dir.path()).args(["memory", "--user", "ana", "write", "presupuesto", "5000"]));
    ok_json(colmena(dir.path()).args(["memory", "--user", "beto", "write", "presupuesto", "900"]));
    let ana = ok_json(colmena(dir.path()).args(["memory", "--user", "ana", "read", "presupuesto"]));
    assert_eq!(ana["content"], "5000");
    let hits =
        ok_json(colmena(dir.path()).args(["memory", "--user", "beto", "search", "presupuesto"]));
    assert_eq!(hits.as_array().unwrap().len(), 1);
    assert_eq!(hits[0]["memory"]["content"], "900");
    let out = run(colmena(dir.path()).args(["memory", "--user", "carla", "read", "presupuesto"]));
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn h32_setup_none_leaves_the_eight_minimal_tools_and_no_skills() {
    let dir = tempfile::tempdir().unwrap();
    let status = ok_json(colmena(dir.path()).args(["setup", "apply", "--specialists", "none"]));
    assert_eq!(status["completed"], true);
    assert_eq!(status["activeTools"], 8);
    assert_eq!(status["activeSkills"], 0);
    let status = ok_json(colmena(dir.path()).args([
        "setup",
        "enable",
        "browser_operator",
        "web_researcher",
    ]));
    assert!(status["activeTools"].as_u64().unwrap() > 8);
    ok_json(colmena(dir.path()).args(["setup", "disable", "web_researcher"]));
    let fetch = ok_json(colmena(dir.path()).args(["tool", "show", "web_fetch"]));
    assert_eq!(
        fetch["active"], true,
        "browser_operator still uses web_fetch"
    );
}

#[test]
fn h15_add_skill_scaffolds_a_folder_that_imports_and_is_found_by_search() {
    let dir = tempfile::tempdir().unwrap();
    let created = ok_json(colmena(dir.path()).args(["add-skill", "weekly-report"]));
    let folder = created["path"].as_str().unwrap().to_owned();
    std::fs::write(
        Path::new(&folder).join("SKILL.md"),
        "---\nname: weekly-report\ndescription: Summarise the week for the team.\n---\n\nMention the axolotl.\n",
    )
    .unwrap();
    let disk = ok_json(colmena(dir.path()).args(["skill", "disk"]));
    assert_eq!(disk[0]["folderName"], "weekly-report");
    assert_eq!(disk[0]["imported"], false);
    ok_json(colmena(dir.path()).args(["skill", "import", &folder]));
    let hits = ok_json(colmena(dir.path()).args(["search", "axolotl"]));
    assert_eq!(hits[0]["id"], "weekly-report");
    let rebuilt = ok_json(colmena(dir.path()).arg("reindex"));
    assert!(rebuilt["documents"].as_u64().unwrap() > 40);
}

#[test]
fn a_workspace_open_elsewhere_hears_of_what_the_cli_commits() {
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let ctx = runtime
        .block_on(colmena_core::workspace::open(colmena_core::OpenOptions {
            data_dir: dir.path().to_owned(),
            secret_backend: colmena_core::secrets::BackendChoice::File,
        }))
        .unwrap();
    let mut changes = ctx.subscribe();
    ok_json(colmena(dir.path()).args(["agent", "add", "Otra"]));
    let heard = runtime.block_on(async {
        // A hang guard, not a timing claim.
        tokio::time::timeout(std::time::Duration::from_secs(60), async {
            loop {
                if changes.recv().await.unwrap() == colmena_core::Change::Agents {
                    return;
                }
            }
        })
        .await
    });
    assert!(
        heard.is_ok(),
        "the CLI's commit was never announced to the open workspace"
    );
}

#[test]
fn a_script_retrying_a_send_with_its_message_id_delivers_it_once() {
    let dir = tempfile::tempdir().unwrap();
    ok_json(colmena(dir.path()).args(["author", "create", "Lector"]));
    let send = |body: &str| {
        colmena(dir.path())
            .args([
                "message",
                "send",
                "lector",
                body,
                "--message-id",
                "cron-2026-12-04",
            ])
            .args(["--json"])
            .output()
            .unwrap()
    };
    let first = send("informe diario");
    assert!(first.status.success(), "{first:?}");
    let again = send("informe diario");
    assert!(again.status.success(), "{again:?}");
    let id = |o: &Output| serde_json::from_slice::<Value>(&o.stdout).unwrap()["id"].clone();
    assert_eq!(id(&first), id(&again));
    let other = send("otro informe");
    assert!(
        !other.status.success(),
        "the id reused for other mail is refused"
    );
    let inbox = ok_json(colmena(dir.path()).args(["message", "inbox", "--as", "lector", "--peek"]));
    assert_eq!(inbox.as_array().unwrap().len(), 1, "{inbox}");
}
