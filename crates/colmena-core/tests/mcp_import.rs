//! Importing MCP servers from other clients' configurations (SPEC H24)
//! against a real store: the fixtures are the examples Claude Desktop,
//! Cursor and Claude Code publish, and one of ours with the hard cases.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::caller::Client;
use colmena_core::mcp_servers::import::{
    self, ImportMatch, ImportOptions, ImportPreview, ImportSource, ImportStatus,
};
use colmena_core::mcp_servers::{self, McpServerInput, McpState, McpTransport, McpTransportInput};
use colmena_core::{Caller, ErrorCode};
use support::{any_file_contains, workspace};

const GITHUB_TOKEN: &str = "ghp_live_SECRET_123456";
const HEADER_KEY: &str = "xk_live_HEADER_987654";

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp-import")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// An environment where only `API_KEY` is set.
fn with_api_key(name: &str) -> Option<String> {
    (name == "API_KEY").then(|| "sk-from-env-0123456789".to_owned())
}

fn empty_env(_: &str) -> Option<String> {
    None
}

async fn preview(ctx: &colmena_core::Ctx, text: &str) -> ImportPreview {
    import::preview_with(ctx, text, ImportOptions::default(), &empty_env)
        .await
        .unwrap()
}

fn entry<'a>(preview: &'a ImportPreview, name: &str) -> &'a import::ImportEntry {
    preview
        .entries
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no entry {name} in {:?}", preview.entries))
}

fn env_of(transport: &McpTransport) -> Vec<(String, String, bool)> {
    match transport {
        McpTransport::Stdio { env, .. } => env
            .iter()
            .map(|v| (v.name.clone(), v.value.clone(), v.secret))
            .collect(),
        McpTransport::Http { headers, .. } => headers
            .iter()
            .map(|v| (v.name.clone(), v.value.clone(), v.secret))
            .collect(),
    }
}

#[tokio::test]
async fn h24_claude_desktops_example_is_one_new_program() {
    let ws = workspace().await;
    let p = preview(&ws.ctx, &fixture("claude_desktop_config.json")).await;
    assert_eq!(p.source, ImportSource::McpServers);
    assert_eq!((p.counts.new, p.counts.exists, p.counts.invalid), (1, 0, 0));
    let e = entry(&p, "filesystem");
    assert_eq!(e.status, ImportStatus::New);
    assert_eq!(e.id.as_deref(), Some("filesystem"));
    assert_eq!(e.transport.as_deref(), Some("stdio"));
    assert_eq!(
        e.target,
        "npx -y @modelcontextprotocol/server-filesystem /Users/username/Desktop /Users/username/Downloads"
    );
    assert!(e.secrets.is_empty() && e.references.is_empty() && e.ignored.is_empty());
    assert!(e.enabled);

    // The troubleshooting snippet of the same page: the servers without their key.
    let p = preview(&ws.ctx, &fixture("claude_desktop_brave_snippet.json")).await;
    assert_eq!(p.source, ImportSource::Bare);
    let e = entry(&p, "brave-search");
    assert_eq!(e.status, ImportStatus::New);
    assert_eq!(
        e.secrets,
        ["BRAVE_API_KEY"],
        "APPDATA is a folder, not a secret"
    );
    assert!(
        e.notes
            .iter()
            .any(|n| n.contains("BRAVE_API_KEY") && n.contains("placeholder")),
        "{:?}",
        e.notes
    );
}

#[tokio::test]
async fn h24_cursors_example_seals_its_api_key() {
    let ws = workspace().await;
    let p = preview(&ws.ctx, &fixture("cursor_mcp.json")).await;
    assert_eq!(p.counts.new, 1);
    let e = entry(&p, "server-name");
    assert_eq!(e.id.as_deref(), Some("server_name"));
    assert_eq!(e.target, "npx -y mcp-server");
    assert_eq!(e.secrets, ["API_KEY"]);

    let outcome = import::import_with(
        &ws.ctx,
        &Caller::ui(&ws.ctx),
        &fixture("cursor_mcp.json"),
        ImportOptions::default(),
        &empty_env,
    )
    .await
    .unwrap();
    assert_eq!(outcome.added.len(), 1);
    let server = mcp_servers::get(&ws.ctx, "server_name").await.unwrap();
    assert_eq!(
        env_of(&server.transport),
        [("API_KEY".to_owned(), "…".to_owned(), true)],
        "the view shows it masked"
    );
}

#[tokio::test]
async fn h24_claude_codes_references_are_kept_reported_and_resolved_on_request() {
    let ws = workspace().await;
    let text = fixture("claude_code_mcp.json");
    let p = preview(&ws.ctx, &text).await;
    let e = entry(&p, "api-server");
    assert_eq!(e.status, ImportStatus::New, "{:?}", e.problem);
    assert_eq!(e.transport.as_deref(), Some("http"));
    assert_eq!(
        e.target, "${API_BASE_URL:-https://api.example.com}/mcp",
        "kept as written"
    );
    assert!(
        e.secrets.is_empty(),
        "a header that is only a reference holds nothing to seal"
    );
    let refs: Vec<(&str, bool, bool)> = e
        .references
        .iter()
        .map(|r| (r.name.as_str(), r.set, r.has_default))
        .collect();
    assert_eq!(
        refs,
        [("API_BASE_URL", false, true), ("API_KEY", false, false)]
    );

    let p = import::preview_with(&ws.ctx, &text, ImportOptions::default(), &with_api_key)
        .await
        .unwrap();
    assert!(
        entry(&p, "api-server")
            .references
            .iter()
            .any(|r| r.name == "API_KEY" && r.set)
    );

    // Resolving now: unset and without a default, the server cannot be imported…
    let resolve = ImportOptions {
        resolve_references: true,
        only: None,
    };
    let p = import::preview_with(&ws.ctx, &text, resolve.clone(), &empty_env)
        .await
        .unwrap();
    let e = entry(&p, "api-server");
    assert_eq!(e.status, ImportStatus::Invalid);
    let problem = e.problem.as_ref().unwrap();
    assert_eq!(problem.reason, "unset_reference");
    assert!(problem.message.contains("API_KEY"), "{}", problem.message);

    // …set, its value is copied in and the header sealed.
    let outcome = import::import_with(&ws.ctx, &Caller::ui(&ws.ctx), &text, resolve, &with_api_key)
        .await
        .unwrap();
    assert_eq!(outcome.added.len(), 1, "{outcome:?}");
    let McpTransport::Http { url, headers } = &outcome.added[0].transport else {
        panic!("not http")
    };
    assert_eq!(url, "https://api.example.com/mcp");
    assert_eq!(headers[0].name, "Authorization");
    assert!(headers[0].secret);
    assert!(
        !headers[0].value.contains("sk-from-env"),
        "masked: {}",
        headers[0].value
    );
}

#[tokio::test]
async fn h24_kept_references_are_imported_as_written() {
    let ws = workspace().await;
    let outcome = import::import_with(
        &ws.ctx,
        &Caller::cli(&ws.ctx, None),
        &fixture("claude_code_mcp.json"),
        ImportOptions::default(),
        &empty_env,
    )
    .await
    .unwrap();
    assert_eq!(outcome.added.len(), 1, "{outcome:?}");
    let server = mcp_servers::get(&ws.ctx, "api_server").await.unwrap();
    let McpTransport::Http { url, headers } = &server.transport else {
        panic!("not http")
    };
    assert_eq!(url, "${API_BASE_URL:-https://api.example.com}/mcp");
    assert_eq!(
        env_of(&server.transport)[0],
        (
            "Authorization".to_owned(),
            "Bearer ${API_KEY}".to_owned(),
            false
        )
    );
    assert_eq!(headers.len(), 1);
}

#[tokio::test]
async fn h24_a_reference_is_checked_through_its_default_or_at_the_start() {
    let ws = workspace().await;
    let text = r#"{"mcpServers": {
        "a": {"url": "${SOME_URL}"},
        "b": {"command": "x", "cwd": "${HOME}/srv"},
        "c": {"url": "${U:-ftp://files.example.com}"},
        "d": {"command": "x", "cwd": "${D:-relative}"}
    }}"#;
    let p = preview(&ws.ctx, text).await;
    assert_eq!(
        entry(&p, "a").status,
        ImportStatus::New,
        "{:?}",
        entry(&p, "a").problem
    );
    assert_eq!(
        entry(&p, "b").status,
        ImportStatus::New,
        "{:?}",
        entry(&p, "b").problem
    );
    for bad in ["c", "d"] {
        let problem = entry(&p, bad).problem.clone().unwrap();
        assert_eq!(problem.reason, "invalid_config", "{bad}");
    }
    assert!(
        entry(&p, "c")
            .problem
            .as_ref()
            .unwrap()
            .message
            .contains("http")
    );
}

#[tokio::test]
async fn h24_imported_servers_exist_at_the_next_preview_by_id_or_by_name() {
    let ws = workspace().await;
    let ui = Caller::ui(&ws.ctx);
    let text = fixture("claude_desktop_config.json");
    let first = import::import_with(&ws.ctx, &ui, &text, ImportOptions::default(), &empty_env)
        .await
        .unwrap();
    assert_eq!(first.added.len(), 1);
    assert_eq!(first.added[0].id, "filesystem");

    let again = preview(&ws.ctx, &text).await;
    let e = entry(&again, "filesystem");
    assert_eq!(e.status, ImportStatus::Exists);
    let existing = e.existing.as_ref().unwrap();
    assert_eq!(
        (existing.id.as_str(), existing.matched_by),
        ("filesystem", ImportMatch::Id)
    );
    let second = import::import_with(&ws.ctx, &ui, &text, ImportOptions::default(), &empty_env)
        .await
        .unwrap();
    assert!(second.added.is_empty());
    assert_eq!(second.skipped.len(), 1);
    assert_eq!(mcp_servers::list(&ws.ctx).await.unwrap().len(), 1);

    // A server renamed keeps its id: its new name still matches.
    let input = McpServerInput {
        name: "SERVER-NAME".into(),
        transport: McpTransportInput::Stdio {
            command: "npx".into(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
        },
        enabled: None,
        timeout_seconds: None,
        preset: None,
    };
    let made = mcp_servers::create(
        &ws.ctx,
        &ui,
        McpServerInput {
            name: "Mine".into(),
            ..input.clone()
        },
    )
    .await
    .unwrap();
    mcp_servers::update(&ws.ctx, &ui, &made.id, input)
        .await
        .unwrap();
    let p = preview(&ws.ctx, &fixture("cursor_mcp.json")).await;
    let existing = entry(&p, "server-name").existing.clone().unwrap();
    assert_eq!(
        (existing.id.as_str(), existing.name.as_str()),
        ("mine", "SERVER-NAME")
    );
    assert_eq!(existing.matched_by, ImportMatch::Name);
}

#[tokio::test]
async fn h24_an_invalid_entry_does_not_stop_the_others() {
    let ws = workspace().await;
    let text = fixture("mixed.json");
    let p = preview(&ws.ctx, &text).await;
    assert_eq!(
        p.notes.len(),
        1,
        "the comments were dropped and it says so: {:?}",
        p.notes
    );
    let reason = |name: &str| entry(&p, name).problem.as_ref().map(|x| x.reason.clone());
    assert_eq!(reason("old-events").as_deref(), Some("sse_unsupported"));
    assert!(
        entry(&p, "old-events")
            .problem
            .as_ref()
            .unwrap()
            .message
            .contains("streamable HTTP")
    );
    assert_eq!(reason("nothing").as_deref(), Some("no_transport"));
    assert_eq!(reason("GitHub").as_deref(), Some("duplicate_in_file"));
    assert_eq!((p.counts.new, p.counts.invalid), (2, 3));

    let github = entry(&p, "github");
    assert_eq!(
        github.secrets,
        ["GITHUB_PERSONAL_ACCESS_TOKEN"],
        "MONKEY is no key"
    );
    assert!(!github.enabled, "disabled: true");
    assert_eq!(github.timeout_seconds, Some(90));
    assert_eq!(github.ignored, ["autoApprove"]);
    assert_eq!(entry(&p, "remote").secrets, ["X-API-Key"]);

    let outcome = import::import_with(
        &ws.ctx,
        &Caller::ui(&ws.ctx),
        &text,
        ImportOptions::default(),
        &empty_env,
    )
    .await
    .unwrap();
    let mut added: Vec<&str> = outcome.added.iter().map(|s| s.id.as_str()).collect();
    added.sort_unstable();
    assert_eq!(added, ["github", "remote"]);
    assert_eq!(outcome.invalid.len(), 3);
    assert!(outcome.failed.is_empty(), "{:?}", outcome.failed);
    let github = mcp_servers::get(&ws.ctx, "github").await.unwrap();
    assert_eq!(github.status.state, McpState::Disabled);
    assert_eq!(github.timeout_seconds, 90);
}

#[tokio::test]
async fn h24_only_imports_the_servers_named() {
    let ws = workspace().await;
    let text = fixture("mixed.json");
    let only = ImportOptions {
        resolve_references: false,
        only: Some(vec!["Remote".into()]),
    };
    let p = import::preview_with(&ws.ctx, &text, only.clone(), &empty_env)
        .await
        .unwrap();
    assert_eq!(entry(&p, "remote").status, ImportStatus::New);
    assert_eq!(entry(&p, "github").status, ImportStatus::NotSelected);
    assert_eq!(p.counts.not_selected, 4);
    let outcome = import::import_with(&ws.ctx, &Caller::ui(&ws.ctx), &text, only, &empty_env)
        .await
        .unwrap();
    assert_eq!(outcome.added.len(), 1);
    assert_eq!(outcome.not_selected.len(), 4);

    let typo = ImportOptions {
        resolve_references: false,
        only: Some(vec!["remot".into()]),
    };
    let err = import::preview_with(&ws.ctx, &text, typo, &empty_env)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert_eq!(err.field(), Some("only"));
    assert!(err.message.contains("remot"), "{}", err.message);
}

#[tokio::test]
async fn h24_imported_secrets_leave_no_clear_byte_in_the_data_dir() {
    let ws = workspace().await;
    let outcome = import::import_with(
        &ws.ctx,
        &Caller::ui(&ws.ctx),
        &fixture("mixed.json"),
        ImportOptions::default(),
        &empty_env,
    )
    .await
    .unwrap();
    assert_eq!(outcome.added.len(), 2);
    let outward = serde_json::to_string(&outcome).unwrap();
    for secret in [GITHUB_TOKEN, HEADER_KEY] {
        assert!(!outward.contains(secret), "the outcome holds {secret}");
    }
    let github = mcp_servers::get(&ws.ctx, "github").await.unwrap();
    let token = env_of(&github.transport)
        .into_iter()
        .find(|(n, _, _)| n == "GITHUB_PERSONAL_ACCESS_TOKEN")
        .unwrap();
    assert_eq!((token.1.as_str(), token.2), ("ghp…3456", true));

    // The search covers the store, its WAL and shared memory, and the index.
    let dir = ws.dir.path();
    for part in ["colmena.db", "colmena.db-wal", "colmena.db-shm", "index"] {
        assert!(
            dir.join(part).exists(),
            "{part} is missing: the search would not cover it"
        );
    }
    for secret in [GITHUB_TOKEN, HEADER_KEY] {
        assert!(
            !any_file_contains(dir, secret.as_bytes()),
            "{secret} is in clear under the data dir"
        );
    }
    // Sealed, not dropped.
    let sealed: i64 = support::db(dir)
        .query_row(
            "SELECT COUNT(*) FROM mcp_server_secrets WHERE length(cipher) > 0",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(sealed, 2);
}

#[tokio::test]
async fn h24_remote_callers_and_agents_may_not_import() {
    let ws = workspace().await;
    let text = fixture("claude_desktop_config.json");
    for client in [
        Client::Http,
        Client::ClaudeCode,
        Client::OtherMcp,
        Client::Agent,
    ] {
        let caller = Caller::cli(&ws.ctx, None).through(client);
        let err = import::import_with(
            &ws.ctx,
            &caller,
            &text,
            ImportOptions::default(),
            &empty_env,
        )
        .await
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden, "{client:?}");
        assert_eq!(err.details.unwrap()["reason"], "local_only");
    }
    assert!(mcp_servers::list(&ws.ctx).await.unwrap().is_empty());
}

#[tokio::test]
async fn h24_text_that_is_no_configuration_is_a_validation_error() {
    let ws = workspace().await;
    let huge = format!(
        "{{\"mcpServers\": {{}}, \"pad\": \"{}\"}}",
        "x".repeat(10 * 1024 * 1024)
    );
    for (text, reason) in [
        ("{\"mcpServers\": ", "not_json"),
        ("{\"globalShortcut\": \"Ctrl+Space\"}", "no_servers"),
        (huge.as_str(), "too_large"),
    ] {
        let err = import::preview(&ws.ctx, text, ImportOptions::default())
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Validation);
        assert_eq!(err.details.unwrap()["reason"], reason);
    }
    let empty = preview(&ws.ctx, "{\"mcpServers\": {}}").await;
    assert!(empty.entries.is_empty());
}

/// An environment where only `MCP_HOST` is set.
fn with_host(name: &str) -> Option<String> {
    (name == "MCP_HOST").then(|| "tools.example.org".to_owned())
}

#[tokio::test]
async fn issue33_a_reference_to_colmenas_own_variables_is_refused_at_import() {
    let ws = workspace().await;
    let text = r#"{"mcpServers": {
        "leaky": {"type": "http", "url": "https://x.example/mcp",
                  "headers": {"Authorization": "Bearer ${COLMENA_TOKEN}"}},
        "leaky-arg": {"command": "npx", "args": ["--store", "${COLMENA_BUS_STORE:-none}"]},
        "fine": {"command": "npx", "args": ["-y", "pkg"]}
    }}"#;
    let p = preview(&ws.ctx, text).await;
    for (name, field) in [
        ("leaky", "headers.Authorization"),
        ("leaky-arg", "argument 2"),
    ] {
        let e = entry(&p, name);
        assert_eq!(e.status, ImportStatus::Invalid, "{name}");
        let problem = e.problem.as_ref().unwrap();
        assert_eq!(problem.reason, "colmena_reference", "{name}");
        assert!(
            problem.message.contains(field) && problem.message.contains("COLMENA_"),
            "{}",
            problem.message
        );
    }
    assert_eq!(entry(&p, "fine").status, ImportStatus::New);

    // Resolving now does not read them either.
    let resolve = ImportOptions {
        resolve_references: true,
        only: None,
    };
    let everything = |_: &str| Some("colmena-own-value".to_owned());
    let outcome = import::import_with(&ws.ctx, &Caller::ui(&ws.ctx), text, resolve, &everything)
        .await
        .unwrap();
    let added: Vec<&str> = outcome.added.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(added, ["fine"]);
    assert_eq!(outcome.invalid.len(), 2);
    assert!(
        !serde_json::to_string(&outcome)
            .unwrap()
            .contains("colmena-own-value")
    );
}

#[tokio::test]
async fn issue33_a_hand_made_server_may_not_refer_to_colmenas_own_variables() {
    let ws = workspace().await;
    let ui = Caller::ui(&ws.ctx);
    let http = McpServerInput {
        name: "remote".into(),
        transport: McpTransportInput::Http {
            url: "https://x.example/${COLMENA_DATA_DIR}".into(),
            headers: vec![mcp_servers::McpVarInput {
                name: "X-Store".into(),
                value: Some("${COLMENA_BUS_STORE}".into()),
                secret: false,
            }],
        },
        enabled: None,
        timeout_seconds: None,
        preset: None,
    };
    let err = mcp_servers::create(&ws.ctx, &ui, http).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    let details = err.details.unwrap();
    let fields: Vec<(&str, &str)> = details["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["field"].as_str().unwrap(), f["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        fields,
        [
            ("url", "colmena_reference"),
            ("headers", "colmena_reference")
        ]
    );

    let stdio = |cwd: &str, arg: &str| McpServerInput {
        name: "local".into(),
        transport: McpTransportInput::Stdio {
            command: "npx".into(),
            args: vec![arg.into()],
            env: Vec::new(),
            cwd: Some(cwd.into()),
        },
        enabled: None,
        timeout_seconds: None,
        preset: None,
    };
    for (input, field) in [
        (stdio("/srv", "--key=${Colmena_Token}"), "args"),
        (stdio("${COLMENA_HOME:-/srv}", "x"), "cwd"),
    ] {
        let err = mcp_servers::create(&ws.ctx, &ui, input).await.unwrap_err();
        assert_eq!(err.field(), Some(field));
        assert_eq!(err.details.unwrap()["reason"], "colmena_reference");
    }
    // A secret is sealed and used as written: nothing in it is resolved.
    let sealed = McpServerInput {
        transport: McpTransportInput::Stdio {
            command: "npx".into(),
            args: Vec::new(),
            env: vec![mcp_servers::McpVarInput {
                name: "PASSWORD".into(),
                value: Some("pa${COLMENA_X}ss".into()),
                secret: true,
            }],
            cwd: None,
        },
        ..stdio("/srv", "x")
    };
    mcp_servers::create(&ws.ctx, &ui, sealed).await.unwrap();
}

#[tokio::test]
async fn issue33_the_preview_says_where_values_go_and_shows_plain_values() {
    let ws = workspace().await;
    let text = r#"{"mcpServers": {
        "remote": {"url": "https://x.example/mcp?team=${TEAM:-core}",
                   "headers": {"Authorization": "Bearer ${API_KEY}", "X-Trace": "on"}},
        "hosted": {"url": "https://${MCP_HOST}/mcp"},
        "local": {"command": "npx", "args": ["-y", "pkg"], "cwd": "/srv/tools",
                  "env": {"LOG_LEVEL": "debug", "GITHUB_TOKEN": "${API_KEY}", "OPENAI_API_KEY": "sk-live-123456"}}
    }}"#;
    let p = preview(&ws.ctx, text).await;
    let sent = |name: &str| -> Vec<(String, Option<String>)> {
        entry(&p, name)
            .references
            .iter()
            .map(|r| (r.name.clone(), r.sent_to.clone()))
            .collect()
    };
    let origin = Some("https://x.example".to_owned());
    assert_eq!(
        sent("remote"),
        [
            ("TEAM".to_owned(), origin.clone()),
            ("API_KEY".to_owned(), origin)
        ]
    );
    // Not set yet: the URL as written says where.
    assert_eq!(
        sent("hosted"),
        [(
            "MCP_HOST".to_owned(),
            Some("https://${MCP_HOST}/mcp".to_owned())
        )]
    );
    assert_eq!(
        sent("local"),
        [("API_KEY".to_owned(), None)],
        "a program's stay here"
    );

    let plain = |name: &str| -> Vec<(String, String)> {
        let mut vars: Vec<(String, String)> = entry(&p, name)
            .plain_vars
            .iter()
            .map(|v| (v.name.clone(), v.value.clone()))
            .collect();
        vars.sort();
        vars
    };
    assert_eq!(
        plain("remote"),
        [
            ("Authorization".to_owned(), "Bearer ${API_KEY}".to_owned()),
            ("X-Trace".to_owned(), "on".to_owned())
        ]
    );
    let local = entry(&p, "local");
    assert_eq!(local.cwd.as_deref(), Some("/srv/tools"));
    assert_eq!(local.secrets, ["OPENAI_API_KEY"]);
    assert_eq!(
        plain("local"),
        [
            ("GITHUB_TOKEN".to_owned(), "${API_KEY}".to_owned()),
            ("LOG_LEVEL".to_owned(), "debug".to_owned())
        ],
        "the secret is not among them"
    );
    assert!(
        !serde_json::to_string(&p)
            .unwrap()
            .contains("sk-live-123456")
    );

    // Set in the environment: the origin it resolves to.
    let p = import::preview_with(&ws.ctx, text, ImportOptions::default(), &with_host)
        .await
        .unwrap();
    assert_eq!(
        entry(&p, "hosted").references[0].sent_to.as_deref(),
        Some("https://tools.example.org")
    );
}
