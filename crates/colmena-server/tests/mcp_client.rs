//! Colmena as an MCP client (issue 13) against real servers from other
//! projects: npm's `server-everything` over stdio and streamable HTTP,
//! `server-filesystem`, a server written with the Python SDK, and
//! Colmena's own `colmena mcp` of another workspace. Agent runs use the
//! scripted provider, which records what reached "the model".

#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use colmena_core::Caller;
use colmena_core::Ctx;
use colmena_core::ids::AgentId;
use colmena_core::mcp_servers::{self, McpServerInput, McpTransportInput, McpVarInput};
use colmena_core::runs::RunStatus;
use colmena_core::runtime::agent::{AgentRunOptions, run_agent};
use colmena_scripted_llm::{Matcher, Rule, ScriptedLlm};
use common::mcp_partner::{hive, node_bin, tool_results};

const PROMPT: &str = "You use MCP tools.";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> String {
    common::mcp_python().display().to_string()
}

fn python_server() -> String {
    repo()
        .join("tests/mcp/servers/python_tools.py")
        .display()
        .to_string()
}

fn stdio(name: &str, command: &str, args: &[&str], env: Vec<McpVarInput>) -> McpServerInput {
    McpServerInput {
        name: name.into(),
        transport: McpTransportInput::Stdio {
            command: command.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env,
            cwd: None,
        },
        enabled: None,
        timeout_seconds: None,
        preset: None,
    }
}

fn var(name: &str, value: &str, secret: bool) -> McpVarInput {
    McpVarInput {
        name: name.into(),
        value: Some(value.into()),
        secret,
    }
}

/// One tool call per step, then a final answer.
fn calls(steps: &[(&str, String)]) -> Vec<Rule> {
    let mut rules: Vec<Rule> = steps
        .iter()
        .enumerate()
        .map(|(i, (tool, args))| {
            Rule::tool_call(tool, args).when(Matcher {
                system_contains: Some(PROMPT.into()),
                tool_results: Some(i),
                ..Default::default()
            })
        })
        .collect();
    rules.push(Rule::text("Done.").when(Matcher {
        system_contains: Some(PROMPT.into()),
        tool_results: Some(steps.len()),
        ..Default::default()
    }));
    rules
}

async fn agent(ctx: &Ctx, patterns: &[&str]) -> AgentId {
    let id = colmena_core::agents::create(
        ctx,
        colmena_core::agents::NewAgent {
            name: "Tool user".into(),
            system_prompt: PROMPT.into(),
            tools: patterns.iter().map(|t| (*t).to_owned()).collect(),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .id;
    colmena_core::permissions::set_agent_permissions(
        ctx,
        &id,
        colmena_core::permissions::Permissions::allow_all(),
    )
    .await
    .unwrap();
    id
}

/// The tool results of a run: (tool, ok, output).
async fn run_results(ctx: &Ctx, agent: &AgentId) -> Vec<(String, bool, String)> {
    let run = run_agent(
        ctx,
        agent,
        "go",
        AgentRunOptions::default(),
        colmena_core::runs::context::no_events(),
    )
    .await
    .unwrap();
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    tool_results(ctx, &run.id).await
}

/// Everything the scripted model was sent, as text.
fn seen_by_model(llm: &ScriptedLlm) -> String {
    llm.requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn everything_over_stdio_lists_its_tools_and_an_agent_call_reaches_the_model() {
    let steps = [
        (
            "mcp__everything__get-sum",
            r#"{"a": 2, "b": 40}"#.to_owned(),
        ),
        (
            "mcp__everything__echo",
            r#"{"message": "hello bees"}"#.to_owned(),
        ),
    ];
    let (_dir, ctx, llm) = hive(calls(&steps)).await;
    let ui = Caller::ui(&ctx);
    let server = mcp_servers::create(
        &ctx,
        &ui,
        stdio(
            "everything",
            &node_bin("mcp-server-everything"),
            &["stdio"],
            vec![],
        ),
    )
    .await
    .unwrap();
    assert_eq!(server.id, "everything");
    let tested = mcp_servers::test(&ctx, &ui, "everything").await.unwrap();
    assert!(tested.ok, "{:?} {:?}", tested.error, tested.stderr_tail);
    let names: Vec<&str> = tested.tools.iter().map(|t| t.id.as_str()).collect();
    assert!(names.contains(&"mcp__everything__echo"), "{names:?}");
    assert!(names.contains(&"mcp__everything__get-sum"), "{names:?}");
    let tool = colmena_core::tools::get(&ctx, "mcp__everything__get-sum")
        .await
        .unwrap();
    assert_eq!(tool.source, colmena_core::tools::ToolSource::Mcp);
    assert_eq!(tool.parameters["properties"]["a"]["type"], "number");

    let id = agent(&ctx, &["mcp__everything__*"]).await;
    let results = run_results(&ctx, &id).await;
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results.iter().all(|r| r.1), "{results:?}");
    assert!(results[0].2.contains("42"), "{results:?}");
    assert!(results[1].2.contains("hello bees"), "{results:?}");
    let seen = seen_by_model(&llm);
    assert!(
        seen.contains("hello bees") && seen.contains("42"),
        "the results reach the model"
    );
    assert_eq!(
        mcp_servers::get(&ctx, "everything")
            .await
            .unwrap()
            .status
            .state,
        mcp_servers::McpState::Running
    );
    colmena_core::workspace::shutdown(&ctx).await;
}

#[tokio::test]
async fn everything_over_streamable_http_with_a_secret_header() {
    let everything = common::mcp_partner::streamable_http().await;
    let steps = [(
        "mcp__remote__echo",
        r#"{"message": "over http"}"#.to_owned(),
    )];
    let (dir, ctx, llm) = hive(calls(&steps)).await;
    let ui = Caller::ui(&ctx);
    let input = McpServerInput {
        name: "remote".into(),
        transport: McpTransportInput::Http {
            url: everything.url(),
            headers: vec![var("Authorization", "Bearer http-secret-token-9876", true)],
        },
        enabled: None,
        timeout_seconds: Some(30),
        preset: None,
    };
    let server = mcp_servers::create(&ctx, &ui, input).await.unwrap();
    let mcp_servers::McpTransport::Http { headers, .. } = &server.transport else {
        panic!("an HTTP server")
    };
    assert!(
        headers[0].secret
            && !headers[0].value.contains("9876x")
            && headers[0].value != "Bearer http-secret-token-9876"
    );
    let tested = mcp_servers::test(&ctx, &ui, "remote").await.unwrap();
    assert!(tested.ok, "{:?}", tested.error);
    let id = agent(&ctx, &["mcp__remote__echo"]).await;
    let results = run_results(&ctx, &id).await;
    assert!(
        results[0].1 && results[0].2.contains("over http"),
        "{results:?}"
    );
    assert!(seen_by_model(&llm).contains("over http"));
    colmena_core::workspace::shutdown(&ctx).await;
    assert!(!common_any_file_contains(
        dir.path(),
        b"http-secret-token-9876"
    ));
    drop(everything);
}

#[tokio::test]
async fn filesystem_server_reads_a_folder_for_an_agent() {
    let folder = tempfile::tempdir().unwrap();
    let notes = folder.path().canonicalize().unwrap().join("notes.txt");
    std::fs::write(&notes, "the queen lays 1500 eggs a day").unwrap();
    let steps = [(
        "mcp__files__read_text_file",
        serde_json::json!({ "path": notes.display().to_string() }).to_string(),
    )];
    let (_dir, ctx, llm) = hive(calls(&steps)).await;
    let ui = Caller::ui(&ctx);
    let root = folder.path().canonicalize().unwrap().display().to_string();
    mcp_servers::create(
        &ctx,
        &ui,
        stdio(
            "files",
            &node_bin("mcp-server-filesystem"),
            &[&root],
            vec![],
        ),
    )
    .await
    .unwrap();
    let tested = mcp_servers::test(&ctx, &ui, "files").await.unwrap();
    assert!(tested.ok, "{:?} {:?}", tested.error, tested.stderr_tail);
    assert!(tested.tools.len() >= 10, "{:?}", tested.tools);
    let id = agent(&ctx, &["mcp__files__read_*"]).await;
    let results = run_results(&ctx, &id).await;
    assert!(results[0].1, "{results:?}");
    assert!(seen_by_model(&llm).contains("1500 eggs"));
    colmena_core::workspace::shutdown(&ctx).await;
}

fn common_any_file_contains(dir: &Path, needle: &[u8]) -> bool {
    walk(dir).iter().any(|file| {
        std::fs::read(file)
            .map(|bytes| bytes.windows(needle.len()).any(|w| w == needle))
            .unwrap_or(false)
    })
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[tokio::test]
async fn a_python_sdk_server_gives_text_structured_image_and_error_results() {
    let steps = [
        ("mcp__py__add", r#"{"a": 2, "b": 3}"#.to_owned()),
        ("mcp__py__whoami", "{}".to_owned()),
        ("mcp__py__picture", "{}".to_owned()),
        ("mcp__py__fail", "{}".to_owned()),
    ];
    let (dir, ctx, llm) = hive(calls(&steps)).await;
    let ui = Caller::ui(&ctx);
    let secret = "py-secret-value-424242";
    mcp_servers::create(
        &ctx,
        &ui,
        stdio(
            "py",
            &python(),
            &[&python_server()],
            vec![var("COLMENA_TEST_SECRET", secret, true)],
        ),
    )
    .await
    .unwrap();
    let shown = mcp_servers::get(&ctx, "py").await.unwrap();
    let mcp_servers::McpTransport::Stdio { env, .. } = &shown.transport else {
        panic!("a stdio server")
    };
    assert!(
        env[0].secret && env[0].value != secret,
        "masked: {:?}",
        env[0]
    );
    let id = agent(&ctx, &["mcp__py__*"]).await;
    let results = run_results(&ctx, &id).await;
    assert_eq!(results.len(), 4, "{results:?}");
    assert!(
        results[0].1 && results[0].2.contains("\"sum\": 5") || results[0].2.contains("\"sum\":5"),
        "{results:?}"
    );
    let reversed: String = secret.chars().rev().collect();
    assert!(
        results[1].1 && results[1].2.contains(&reversed),
        "the secret reaches the server's environment: {results:?}"
    );
    assert!(
        results[2].1 && results[2].2.contains("image artifact"),
        "{results:?}"
    );
    let images = colmena_core::images::list(&ctx, ctx.owner()).await.unwrap();
    assert_eq!(images.len(), 1, "the picture is kept as the user's image");
    assert_eq!((images[0].width, images[0].height), (Some(1), Some(1)));
    assert!(
        !results[3].1 && results[3].2.contains("gauge is broken"),
        "{results:?}"
    );
    assert!(
        seen_by_model(&llm).contains("gauge is broken"),
        "the model reads the tool error"
    );
    colmena_core::workspace::shutdown(&ctx).await;
    assert!(
        !common_any_file_contains(dir.path(), secret.as_bytes()),
        "the secret is nowhere on disk"
    );
}

fn pids(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| !stat.contains(") Z "))
        .unwrap_or(false)
}

/// Waits until `done` holds (up to a minute: a hang guard, not a timing
/// claim); whether it did.
async fn wait_until(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    done()
}

#[tokio::test]
async fn a_server_killed_mid_call_is_a_clear_tool_error_and_restarts_for_the_next_call() {
    let steps = [
        ("mcp__py__slow", r#"{"seconds": 60}"#.to_owned()),
        ("mcp__py__whoami", "{}".to_owned()),
    ];
    let (_dir, ctx, _llm) = hive(calls(&steps)).await;
    let ui = Caller::ui(&ctx);
    let pid_file = tempfile::NamedTempFile::new().unwrap();
    let pid_path = pid_file.path().to_owned();
    let slow_file = tempfile::NamedTempFile::new().unwrap();
    let slow_path = slow_file.path().to_owned();
    mcp_servers::create(
        &ctx,
        &ui,
        stdio(
            "py",
            &python(),
            &[&python_server()],
            vec![
                var(
                    "COLMENA_TEST_PID_FILE",
                    &pid_path.display().to_string(),
                    false,
                ),
                var(
                    "COLMENA_TEST_SLOW_FILE",
                    &slow_path.display().to_string(),
                    false,
                ),
            ],
        ),
    )
    .await
    .unwrap();
    let id = agent(&ctx, &["mcp__py__*"]).await;
    let run = tokio::spawn({
        let ctx = ctx.clone();
        async move { run_results(&ctx, &id).await }
    });
    assert!(
        wait_until(|| !pids(&pid_path).is_empty()).await,
        "the server started"
    );
    // Killed only once the slow call is in flight: the server said so.
    assert!(
        wait_until(|| !pids(&slow_path).is_empty()).await,
        "the slow call never reached the server"
    );
    let first = pids(&pid_path)[0];
    std::process::Command::new("kill")
        .args(["-9", &first.to_string()])
        .status()
        .unwrap();
    let results = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .unwrap()
        .unwrap();
    assert!(!results[0].1, "{results:?}");
    assert!(
        results[0].2.contains("stopped during the call"),
        "{results:?}"
    );
    assert!(results[0].2.contains("started again"), "{results:?}");
    assert!(
        results[1].1,
        "the next call restarts the server: {results:?}"
    );
    let all = pids(&pid_path);
    assert_eq!(all.len(), 2, "{all:?}");
    assert!(
        results[1].2.contains(&format!("pid {}", all[1])),
        "{results:?}"
    );
    colmena_core::workspace::shutdown(&ctx).await;
    assert!(
        wait_until(|| !alive(all[1])).await,
        "shutdown stops the server"
    );
}

#[tokio::test]
async fn switching_a_server_off_takes_its_tools_from_agents_at_once() {
    let steps = [("mcp__py__add", r#"{"a": 1, "b": 1}"#.to_owned())];
    let (_dir, ctx, _llm) = hive(calls(&steps)).await;
    let ui = Caller::ui(&ctx);
    mcp_servers::create(
        &ctx,
        &ui,
        stdio("py", &python(), &[&python_server()], vec![]),
    )
    .await
    .unwrap();
    assert!(mcp_servers::test(&ctx, &ui, "py").await.unwrap().ok);
    let by_pattern = agent(&ctx, &["mcp__py__*"]).await;
    let assigned = colmena_core::agents::create(
        &ctx,
        colmena_core::agents::NewAgent {
            name: "Assigned".into(),
            system_prompt: PROMPT.into(),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .id;
    let with_server = colmena_core::agents::assign_mcp_servers(&ctx, &assigned, vec!["py".into()])
        .await
        .unwrap();
    assert!(
        with_server.tools.contains(&"mcp__py__add".to_owned()),
        "{:?}",
        with_server.tools
    );
    assert!(
        colmena_core::agents::get(&ctx, &by_pattern)
            .await
            .unwrap()
            .tools
            .contains(&"mcp__py__add".to_owned())
    );

    mcp_servers::set_enabled(&ctx, &ui, "py", Some(false))
        .await
        .unwrap();
    for id in [&by_pattern, &assigned] {
        let tools = colmena_core::agents::get(&ctx, id).await.unwrap().tools;
        assert!(
            !tools.iter().any(|t| t.starts_with("mcp__py__")),
            "{tools:?}"
        );
    }
    assert!(
        colmena_core::tools::get(&ctx, "mcp__py__add")
            .await
            .is_err()
    );
    let results = run_results(&ctx, &by_pattern).await;
    assert!(
        !results[0].1 && results[0].2.contains("no tool named"),
        "{results:?}"
    );
    assert_eq!(
        mcp_servers::get(&ctx, "py").await.unwrap().status.state,
        mcp_servers::McpState::Disabled
    );
    colmena_core::workspace::shutdown(&ctx).await;
}

#[tokio::test]
async fn only_a_person_at_this_computer_configures_servers() {
    let (_dir, ctx, _llm) = hive(vec![]).await;
    let remote = Caller::ui(&ctx).through(colmena_core::caller::Client::ClaudeCode);
    let refused = mcp_servers::create(
        &ctx,
        &remote,
        stdio("x", "sh", &["-c", "touch /tmp/pwned"], vec![]),
    )
    .await
    .unwrap_err();
    assert_eq!(refused.code, colmena_core::ErrorCode::Forbidden);
    let agent_door = Caller::ui(&ctx).through(colmena_core::caller::Client::Agent);
    assert_eq!(
        mcp_servers::create(&ctx, &agent_door, stdio("x", "sh", &[], vec![]))
            .await
            .unwrap_err()
            .code,
        colmena_core::ErrorCode::Forbidden
    );
    assert!(mcp_servers::list(&ctx).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_server_that_cannot_start_says_why() {
    let (_dir, ctx, _llm) = hive(vec![]).await;
    let ui = Caller::ui(&ctx);
    mcp_servers::create(
        &ctx,
        &ui,
        stdio(
            "broken",
            "sh",
            &["-c", "echo 'cannot find config.yaml' >&2; exit 3"],
            vec![],
        ),
    )
    .await
    .unwrap();
    let tested = mcp_servers::test(&ctx, &ui, "broken").await.unwrap();
    assert!(!tested.ok);
    assert_eq!(tested.exit_code, Some(3), "{tested:?}");
    assert!(
        tested
            .stderr_tail
            .as_deref()
            .unwrap_or_default()
            .contains("cannot find config.yaml"),
        "{tested:?}"
    );
    let shown = mcp_servers::get(&ctx, "broken").await.unwrap();
    assert_eq!(shown.status.state, mcp_servers::McpState::Failed);
    assert!(shown.status.error.unwrap().contains("code 3"));
    mcp_servers::create(
        &ctx,
        &ui,
        stdio("missing", "/nonexistent/server-binary", &[], vec![]),
    )
    .await
    .unwrap();
    let missing = mcp_servers::test(&ctx, &ui, "missing").await.unwrap();
    assert!(!missing.ok && missing.error.unwrap().contains("server-binary"));
}

#[tokio::test]
async fn colmena_is_a_client_of_colmena() {
    let other = tempfile::tempdir().unwrap();
    let steps = [(
        "mcp__colmena__memory_write",
        r#"{"title": "Hive note", "content": "written through MCP by another workspace"}"#
            .to_owned(),
    )];
    let (_dir, ctx, _llm) = hive(calls(&steps)).await;
    let ui = Caller::ui(&ctx);
    mcp_servers::create(
        &ctx,
        &ui,
        stdio(
            "colmena",
            env!("CARGO_BIN_EXE_colmena"),
            &["--data-dir", &other.path().display().to_string(), "mcp"],
            vec![var("COLMENA_SECRET_BACKEND", "file", false)],
        ),
    )
    .await
    .unwrap();
    let tested = mcp_servers::test(&ctx, &ui, "colmena").await.unwrap();
    assert!(tested.ok, "{:?} {:?}", tested.error, tested.stderr_tail);
    assert!(
        tested
            .tools
            .iter()
            .any(|t| t.id == "mcp__colmena__search_catalog"),
        "{:?}",
        tested.tools
    );
    let id = agent(&ctx, &["mcp__colmena__memory_*"]).await;
    let results = run_results(&ctx, &id).await;
    assert!(results[0].1, "{results:?}");
    colmena_core::workspace::shutdown(&ctx).await;
    let other_ctx = colmena_core::workspace::open(colmena_core::OpenOptions {
        data_dir: other.path().to_owned(),
        secret_backend: colmena_core::secrets::BackendChoice::File,
    })
    .await
    .unwrap();
    let memory = colmena_core::memory::read(&other_ctx, &Caller::ui(&other_ctx), "Hive note").await;
    assert!(
        memory.is_ok(),
        "the other workspace holds the memory: {memory:?}"
    );
}

#[tokio::test]
async fn no_server_outlives_a_colmena_killed_with_sigkill() {
    let data = tempfile::tempdir().unwrap();
    let pid_file = data.path().join("pids.txt");
    let mut add = common::colmena(data.path());
    add.args([
        "mcp-server",
        "add",
        "slowpoke",
        "--command",
        &python(),
        "--arg",
        &python_server(),
    ])
    .args([
        "--env",
        &format!("COLMENA_TEST_PID_FILE={}", pid_file.display()),
    ])
    .args(["--env", "COLMENA_TEST_START_DELAY=120"]);
    let out = common::run(&mut add);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `test` waits for a server that takes two minutes to start…
    let mut test = common::colmena(data.path())
        .args(["mcp-server", "test", "slowpoke"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    assert!(
        wait_until(|| !pids(&pid_file).is_empty()).await,
        "the server started"
    );
    let server = pids(&pid_file)[0];
    assert!(alive(server));
    // …and Colmena dies without a chance to clean up.
    test.kill().unwrap();
    test.wait().unwrap();
    assert!(
        wait_until(|| !alive(server)).await,
        "the server {server} outlived Colmena"
    );
}

#[tokio::test]
async fn a_server_that_says_its_tools_changed_is_listed_again() {
    let steps = [("mcp__py__grow", "{}".to_owned())];
    let (_dir, ctx, _llm) = hive(calls(&steps)).await;
    let ui = Caller::ui(&ctx);
    mcp_servers::create(
        &ctx,
        &ui,
        stdio("py", &python(), &[&python_server()], vec![]),
    )
    .await
    .unwrap();
    assert!(mcp_servers::test(&ctx, &ui, "py").await.unwrap().ok);
    assert!(
        colmena_core::tools::get(&ctx, "mcp__py__extra")
            .await
            .is_err()
    );
    let id = agent(&ctx, &["mcp__py__*"]).await;
    let results = run_results(&ctx, &id).await;
    assert!(results[0].1, "{results:?}");
    // A hang guard, not a timing claim.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut listed = false;
    while Instant::now() < deadline {
        if colmena_core::tools::get(&ctx, "mcp__py__extra")
            .await
            .is_ok()
        {
            listed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        listed,
        "the new tool is in the catalog after notifications/tools/list_changed"
    );
    let agent_tools = colmena_core::agents::get(&ctx, &id).await.unwrap().tools;
    assert!(
        agent_tools.contains(&"mcp__py__extra".to_owned()),
        "{agent_tools:?}"
    );
    colmena_core::workspace::shutdown(&ctx).await;
}
