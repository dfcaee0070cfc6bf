//! Windows (run under Wine here): programs agents run are not confined
//! there, so what does hold is checked — the workspace as the folder, the
//! cleared environment, the output and exit code, and a timeout that stops
//! the program with everything it started.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::*;

fn cmd(workspace: &Path, script: &str, timeout: u64) -> Job {
    Job::new(
        workspace,
        "cmd",
        vec!["/c".to_owned(), script.to_owned()],
        Duration::from_secs(timeout),
    )
}

#[tokio::test]
async fn a_program_runs_in_the_workspace_with_a_cleared_environment() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("agent-1");
    std::fs::create_dir(&workspace).unwrap();
    // The test runner's own variables (Wine's among them) stay out.
    let finished = run(
        &cmd(&workspace, "cd & set & echo done & exit 7", 60),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    let out = finished.stdout.text();
    assert_eq!(finished.code, Some(7), "{out}");
    assert!(out.contains("done"), "{out}");
    assert!(
        out.lines()
            .next()
            .is_some_and(|cwd| cwd.trim().ends_with("agent-1")),
        "the workspace is its folder: {out}"
    );
    assert!(
        out.contains("TEMP=") && out.contains("USERPROFILE="),
        "{out}"
    );
    // Wine adds its own variables (`WINE*`) to every process it starts.
    let inherited: Vec<String> = std::env::vars()
        .map(|(name, _)| name)
        .filter(|name| !name.to_ascii_uppercase().starts_with("WINE"))
        .filter(|name| {
            !env::allowed(Path::new("w"), Path::new("t"), &[], None)
                .iter()
                .any(|(kept, _)| kept.eq_ignore_ascii_case(name))
        })
        .filter(|name| {
            out.lines().any(|l| {
                l.to_ascii_uppercase()
                    .starts_with(&format!("{}=", name.to_ascii_uppercase()))
            })
        })
        .collect();
    assert!(
        inherited.is_empty(),
        "the app's variables reached the program: {inherited:?}"
    );
}

#[tokio::test]
async fn a_timeout_stops_a_program_that_would_never_end() {
    let dir = tempfile::tempdir().unwrap();
    // Ten minutes of pings to this machine's loopback, in a child of cmd.
    let finished = run(
        &cmd(dir.path(), "ping -n 600 127.0.0.1", 2),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(
        finished.stopped,
        Some(Stop::Timeout),
        "{}",
        finished.stdout.text()
    );
}

/// A name is looked up in the program's own PATH (system folders), never
/// in the launcher's folder, where the app's own programs are.
#[tokio::test]
async fn the_apps_own_programs_are_not_found_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let job = Job::new(
        dir.path(),
        "colmena-sandbox",
        Vec::new(),
        Duration::from_secs(60),
    );
    let err = run(&job, &CancellationToken::new()).await.unwrap_err();
    assert!(
        err.message.contains("not in any folder of PATH"),
        "{}",
        err.message
    );
}

#[test]
fn the_gate_is_told_programs_are_not_confined() {
    assert!(programs_unconfined());
    assert!(!detect().unwrap().confines());
}
