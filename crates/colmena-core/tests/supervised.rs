//! Supervised programs (the user's MCP servers) never outlive Colmena: not
//! when they end, not when the launcher alone is killed, and not when the
//! app itself is killed with SIGKILL — played here by a shell that starts
//! the launcher the way the app does. Their exit code, stdin and stdout,
//! environment and folder reach the app unchanged.

#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use colmena_core::ErrorCode;
use colmena_core::process::{kill_group, supervised_command};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The launcher the app would use: the one named in
/// `COLMENA_SANDBOX_LAUNCHER`, else the one built with these tests.
fn launcher() -> PathBuf {
    std::env::var_os("COLMENA_SANDBOX_LAUNCHER")
        .filter(|v| !v.is_empty())
        .map_or_else(
            || env!("CARGO_BIN_EXE_colmena-sandbox").into(),
            PathBuf::from,
        )
}
/// A liveness bound, not a timing assertion: how long the launcher may take
/// to notice and clean up before the test gives up.
const PATIENCE: Duration = Duration::from_secs(60);

fn stat(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let pgrp = fields.nth(1)?.parse().ok()?;
    Some((state, pgrp))
}

/// Alive and not a zombie.
fn alive(pid: u32) -> bool {
    stat(pid).is_some_and(|(state, _)| state != 'Z' && state != 'X')
}

/// Live processes of process group `group`.
fn group_members(group: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|&pid| stat(pid).is_some_and(|(s, g)| g == group && s != 'Z' && s != 'X'))
        .collect()
}

/// Waits (up to [`PATIENCE`]) until `done` holds; whether it did.
fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < PATIENCE {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

/// The pids written one a line to `file`, once there are `n` of them.
fn pids(file: &Path, n: usize) -> Vec<u32> {
    let mut found = Vec::new();
    let complete = eventually(|| {
        found = std::fs::read_to_string(file)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        found.len() >= n
    });
    assert!(complete, "only {found:?} in {}", file.display());
    found
}

fn sh(script: &str) -> tokio::process::Command {
    supervised_command("sh", &["-c".to_owned(), script.to_owned()], &[], None).unwrap()
}

/// A program that leaves processes behind — in the background, in a
/// subshell, and one that left the process group with `setsid` — and
/// whose "app" is killed with SIGKILL: everything goes.
#[test]
fn nothing_outlives_the_app_killed_with_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pids");
    let launcher_file = dir.path().join("launcher");
    let program = r#"
        sleep 300 & echo $! >> "$PIDS"
        setsid sleep 300 & echo $! >> "$PIDS"
        sh -c 'sleep 300 & echo $! >> "$PIDS"; wait' & echo $! >> "$PIDS"
        echo $$ >> "$PIDS"
        wait
    "#;
    // The app: starts the launcher with its own pid as `--parent`, and
    // waits. (It does not put it in a new group: the launcher then makes
    // itself the leader of one, or it would kill this test's group.)
    let app_script = r#"
        "$0" --supervise --parent $$ -- sh -c "$1" & echo $! > "$LAUNCHER_PID"
        wait
    "#;
    let mut app = Command::new("sh")
        .args(["-c", app_script])
        .arg(launcher())
        .arg(program)
        .env("PIDS", &file)
        .env("LAUNCHER_PID", &launcher_file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let launcher = pids(&launcher_file, 1)[0];
    let started = pids(&file, 5);
    assert!(started.iter().all(|&pid| alive(pid)), "{started:?}");
    assert!(group_members(launcher).contains(&launcher));

    app.kill().unwrap();
    app.wait().unwrap();

    assert!(
        eventually(|| !alive(launcher) && started.iter().all(|&pid| !alive(pid))),
        "still alive: {:?}",
        started
            .iter()
            .chain([&launcher])
            .filter(|&&p| alive(p))
            .collect::<Vec<_>>()
    );
    assert!(
        eventually(|| group_members(launcher).is_empty()),
        "{:?}",
        group_members(launcher)
    );
}

/// `kill_on_drop` kills only the launcher: its watchdog ends the group.
#[tokio::test]
async fn killing_the_launcher_alone_still_ends_the_program() {
    let mut child = sh("sleep 300 & echo $!; echo $$; wait").spawn().unwrap();
    let launcher = child.id().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let sleeper: u32 = lines.next_line().await.unwrap().unwrap().parse().unwrap();
    let shell: u32 = lines.next_line().await.unwrap().unwrap().parse().unwrap();
    assert!(alive(sleeper) && alive(shell));

    child.start_kill().unwrap();
    child.wait().await.unwrap();

    assert!(
        eventually(|| !alive(sleeper) && !alive(shell) && group_members(launcher).is_empty()),
        "{:?}",
        group_members(launcher)
    );
}

/// The launcher exits the way the program did; by then what the program
/// left running is gone.
#[tokio::test]
async fn the_exit_status_is_the_programs_and_stragglers_are_gone_by_then() {
    let status = sh("exit 7").status().await.unwrap();
    assert_eq!(status.code(), Some(7));
    let status = sh("kill -TERM $$").status().await.unwrap();
    assert_eq!(status.code(), Some(128 + 15));

    let mut child = sh("sleep 300 & echo $!; setsid sleep 300 & echo $!; exit 3")
        .spawn()
        .unwrap();
    let launcher = child.id().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let left: Vec<u32> = vec![
        lines.next_line().await.unwrap().unwrap().parse().unwrap(),
        lines.next_line().await.unwrap().unwrap().parse().unwrap(),
    ];
    let status = child.wait().await.unwrap();
    assert_eq!(status.code(), Some(3));
    // No waiting: the launcher exits only once it has no child left.
    assert!(left.iter().all(|&pid| !alive(pid)), "{left:?}");
    assert!(group_members(launcher).is_empty());
}

/// MCP speaks over stdin and stdout: a line goes through `cat` and back.
#[tokio::test]
async fn stdin_and_stdout_pass_through() {
    let mut child = supervised_command("cat", &[], &[], None)
        .unwrap()
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1}\n")
        .await
        .unwrap();
    stdin.flush().await.unwrap();
    assert_eq!(
        lines.next_line().await.unwrap().as_deref(),
        Some("{\"jsonrpc\":\"2.0\",\"id\":1}")
    );
    drop(stdin);
    assert_eq!(lines.next_line().await.unwrap(), None);
    assert_eq!(child.wait().await.unwrap().code(), Some(0));
}

/// The user's environment with the server's variables on top, without
/// Colmena's own; the folder asked for; the program's standard error.
#[tokio::test]
async fn environment_folder_and_stderr_are_the_servers() {
    let dir = tempfile::tempdir().unwrap();
    let dir_path = dir.path().canonicalize().unwrap();
    let env = vec![
        ("MCP_TOKEN".to_owned(), "from-config".to_owned()),
        ("COLMENA_PASSED".to_owned(), "on-purpose".to_owned()),
    ];
    let script = "echo \"$MCP_TOKEN|$COLMENA_PASSED|$HOME|$(pwd)\"; echo oops >&2";
    let out = supervised_command("sh", &["-c".into(), script.into()], &env, Some(&dir_path))
        .unwrap()
        .output()
        .await
        .unwrap();
    let home = std::env::var("HOME").unwrap_or_default();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("from-config|on-purpose|{home}|{}", dir_path.display())
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr).trim(), "oops");
    assert_eq!(out.status.code(), Some(0));
}

#[tokio::test]
async fn a_missing_program_is_a_clear_error_before_anything_starts() {
    let e = supervised_command("no-such-mcp-server-here", &[], &[], None).unwrap_err();
    assert_eq!(e.code, ErrorCode::Precondition);
    assert!(
        e.message.contains("no-such-mcp-server-here"),
        "{}",
        e.message
    );
    let e = supervised_command("sh", &[], &[("A=B".into(), "1".into())], None).unwrap_err();
    assert_eq!(e.code, ErrorCode::Validation);
}

/// `kill_group` ends a running server and everything it started.
#[tokio::test]
async fn kill_group_ends_everything_at_once() {
    let mut child = sh("sleep 300 & echo $!; wait").spawn().unwrap();
    let launcher = child.id().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let sleeper: u32 = lines.next_line().await.unwrap().unwrap().parse().unwrap();
    kill_group(launcher);
    let status = child.wait().await.unwrap();
    assert_eq!(status.code(), None, "killed, not exited");
    assert!(eventually(|| !alive(sleeper)));
}

/// A launcher whose parent is not the app it names (the app died while
/// starting it) starts nothing; `--parent` belongs to `--supervise`.
#[test]
fn a_launcher_orphaned_before_it_starts_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let script = format!("touch {}", marker.display());
    for args in [
        vec!["--supervise", "--parent", "1", "--", "sh", "-c", &script],
        vec!["--parent", "1", "--", "sh", "-c", &script],
        vec!["--supervise", "--parent", "me", "--", "sh", "-c", &script],
    ] {
        let out = Command::new(launcher()).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(125), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).starts_with("colmena-sandbox: "),
            "{args:?}"
        );
        assert!(!marker.exists(), "{args:?}");
    }
}
