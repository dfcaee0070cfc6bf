//! The git tools against a hostile repository and hostile arguments, and
//! `cli_exec` end to end.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::error::ErrorCode;

/// A workspace (inside a "data dir") holding a git repository with one
/// commit.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("data/workspaces/agent-1");
    std::fs::create_dir_all(&ws).unwrap();
    let ws = ws.canonicalize().unwrap();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(&ws)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(ws.join("a.txt"), "one\n").unwrap();
    git(&["add", "a.txt"]);
    git(&["commit", "-q", "-m", "first"]);
    (dir, ws)
}

async fn tool(ws: &Path, name: &str, args: serde_json::Value) -> Result<String> {
    git(ws, name, &args, &CancellationToken::new()).await
}

#[tokio::test]
async fn option_like_values_are_refused_and_nothing_is_written() {
    let (dir, ws) = repo();
    let target = dir.path().join("overwritten");
    std::fs::write(&target, "keep").unwrap();
    let attempts = [
        (
            "git_diff",
            json!({ "from": "--no-index", "to": "/etc/passwd" }),
        ),
        (
            "git_diff",
            json!({ "from": format!("--output={}", target.display()) }),
        ),
        ("git_diff", json!({ "to": "--output=x" })),
        ("git_diff", json!({ "path": "-p" })),
        ("git_log", json!({ "path": "--output=y" })),
        ("git_commit", json!({ "message": "--amend" })),
        (
            "git_commit",
            json!({ "message": "ok", "paths": ["a.txt", "--all"] }),
        ),
    ];
    for (name, args) in attempts {
        let err = tool(&ws, name, args.clone()).await.unwrap_err();
        assert_eq!(
            err.code,
            ErrorCode::Validation,
            "{name} {args}: {}",
            err.message
        );
        assert!(err.message.contains("starts with '-'"), "{}", err.message);
    }
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    assert!(!ws.join("x").exists() && !ws.join("y").exists());
}

#[tokio::test]
async fn a_planted_git_config_runs_nothing() {
    let (_dir, ws) = repo();
    // What an agent with fs_write (before it was barred from .git) or a
    // cloned repository could plant: every key that makes git run a program.
    let config = std::fs::read_to_string(ws.join(".git/config")).unwrap()
        + "[core]\n\tfsmonitor = touch fsmonitor-ran\n\thooksPath = hooks\n\tpager = touch pager-ran\n\
           [diff]\n\texternal = touch external-ran\n\
           [diff \"planted\"]\n\ttextconv = touch textconv-ran\n\
           [commit]\n\tgpgSign = true\n[gpg]\n\tprogram = touch gpg-ran\n";
    std::fs::write(ws.join(".git/config"), config).unwrap();
    std::fs::write(ws.join(".gitattributes"), "*.txt diff=planted\n").unwrap();
    let hook = "#!/bin/sh\ntouch hook-ran\n";
    for dir in [ws.join("hooks"), ws.join(".git/hooks")] {
        std::fs::create_dir_all(&dir).unwrap();
        for name in [
            "pre-commit",
            "commit-msg",
            "post-commit",
            "post-index-change",
        ] {
            std::fs::write(dir.join(name), hook).unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(dir.join(name), std::fs::Permissions::from_mode(0o755))
                    .unwrap();
            }
        }
    }
    std::fs::write(ws.join("a.txt"), "two\n").unwrap();

    let status = tool(&ws, "git_status", json!({})).await.unwrap();
    assert!(status.contains("exit status: 0"), "{status}");
    assert!(status.contains("a.txt"), "{status}");
    let diff = tool(&ws, "git_diff", json!({})).await.unwrap();
    assert!(diff.contains("+two"), "{diff}");
    let log = tool(&ws, "git_log", json!({ "path": "a.txt" }))
        .await
        .unwrap();
    assert!(log.contains("first"), "{log}");
    let commit = tool(
        &ws,
        "git_commit",
        json!({ "message": "second", "paths": ["a.txt"] }),
    )
    .await
    .unwrap();
    assert!(commit.contains("exit status: 0"), "{commit}");

    for marker in [
        "fsmonitor-ran",
        "pager-ran",
        "external-ran",
        "textconv-ran",
        "gpg-ran",
        "hook-ran",
    ] {
        assert!(
            !ws.join(marker).exists(),
            "{marker}: the planted config ran a program"
        );
    }
}

/// A filter driver runs on `status` and `diff` (git cleans work-tree files
/// to compare them) and has no name the overrides could know: such a
/// repository is refused before git touches a file — also when the driver
/// hides past the output cap or comes from an included file.
#[tokio::test]
async fn a_planted_filter_driver_is_refused_before_it_runs() {
    let (_dir, ws) = repo();
    let plain = std::fs::read_to_string(ws.join(".git/config")).unwrap();
    std::fs::write(ws.join(".gitattributes"), "* filter=planted\n").unwrap();
    std::fs::write(ws.join("a.txt"), "two\n").unwrap();
    let planted = "[filter \"planted\"]\n\tclean = sh -c 'touch filter-ran; cat'\n\tsmudge = cat\n";
    let padding: String = (0..4_000)
        .map(|i| format!("[padding \"k{i}\"]\n\tvalue = {i}\n"))
        .collect();
    std::fs::write(ws.join("included.cfg"), planted).unwrap();
    for config in [
        format!("{plain}{planted}"),
        format!("{plain}{padding}{planted}"),
        format!("{plain}[include]\n\tpath = ../included.cfg\n"),
    ] {
        std::fs::write(ws.join(".git/config"), config).unwrap();
        for name in ["git_status", "git_diff"] {
            let err = tool(&ws, name, json!({})).await.unwrap_err();
            assert_eq!(err.code, ErrorCode::Precondition, "{name}: {}", err.message);
            assert_eq!(
                err.details.as_ref().unwrap()["reason"],
                "repository_runs_programs"
            );
        }
        let err = tool(
            &ws,
            "git_commit",
            json!({ "message": "x", "paths": ["a.txt"] }),
        )
        .await
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::Precondition);
        assert!(!ws.join("filter-ran").exists(), "the filter ran");
    }
    // Without the driver, the same repository works.
    std::fs::write(ws.join(".git/config"), plain).unwrap();
    let status = tool(&ws, "git_status", json!({})).await.unwrap();
    assert!(status.contains("a.txt"), "{status}");
}

#[tokio::test]
async fn git_does_not_find_a_repository_above_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let ws = data.join("workspaces/agent-1");
    std::fs::create_dir_all(&ws).unwrap();
    assert!(
        Command::new("git")
            .args(["init", "-q"])
            .current_dir(&data)
            .status()
            .unwrap()
            .success()
    );
    let out = tool(&ws.canonicalize().unwrap(), "git_status", json!({}))
        .await
        .unwrap();
    assert!(out.contains("not a git repository"), "{out}");
}

#[tokio::test]
async fn cli_exec_runs_in_the_workspace() {
    let (_dir, ws) = repo();
    let out = exec(
        &ws,
        &json!({ "command": "sh", "args": ["-c", "pwd; echo $HOME; echo hi >&2"] }),
        false,
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    let ws_text = ws.display().to_string();
    assert!(out.starts_with("exit status: 0"), "{out}");
    assert_eq!(out.matches(&ws_text).count(), 2, "{out}");
    assert!(out.contains("--- stderr ---\nhi"), "{out}");
    let err = exec(
        &ws,
        &json!({ "command": " " }),
        false,
        &CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
}
