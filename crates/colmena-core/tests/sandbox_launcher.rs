//! `colmena-sandbox`, the launcher programs run through, on its own: it
//! refuses what it does not understand, confines itself with Landlock
//! before it becomes the program, and sets the limits it is given. And the
//! master key of a workspace opened the ordinary way is not in its data dir.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;
use std::process::{Command, Output};

const LAUNCHER: &str = env!("CARGO_BIN_EXE_colmena-sandbox");

fn launch(dir: &Path, args: &[&str]) -> Output {
    Command::new(LAUNCHER)
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_launcher_refuses_what_it_does_not_understand() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["--bogus", "--", "true"],
        vec!["--limit", "cpu=lots", "--", "true"],
        vec!["--limit", "stack=1", "--", "true"],
        vec!["--ro"],
        vec!["true"],
    ] {
        let out = launch(dir.path(), &args);
        assert_eq!(out.status.code(), Some(125), "{args:?}");
        assert!(
            text(&out.stderr).starts_with("colmena-sandbox: "),
            "{args:?}"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn under_landlock_only_the_granted_folders_are_reachable() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let ws = data.join("workspaces/agent");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(data.join("master.key"), "TOP-SECRET").unwrap();
    let ws_text = ws.to_str().unwrap();
    let out = launch(
        &ws,
        &[
            "--landlock",
            "--ro",
            "/usr",
            "--ro",
            "/bin",
            "--ro",
            "/lib",
            "--ro",
            "/lib64",
            "--ro",
            "/etc",
            "--rw",
            "/dev/null",
            "--rw",
            ws_text,
            "--",
            "sh",
            "-c",
            "cat ../../master.key; echo x > ../../planted; echo ok > here && cat here",
        ],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(!stdout.contains("TOP-SECRET"), "{stdout}");
    assert!(stderr.contains("Permission denied"), "{stderr}");
    assert!(!data.join("planted").exists());
    assert_eq!(stdout.trim(), "ok", "{stderr}");
}

#[cfg(unix)]
#[test]
fn the_launcher_sets_its_limits_before_the_program_starts() {
    let dir = tempfile::tempdir().unwrap();
    let out = launch(
        dir.path(),
        &[
            "--limit",
            "as=1073741824",
            "--limit",
            "nofile=64",
            "--limit",
            "cpu=7",
            "--",
            "sh",
            "-c",
            "ulimit -v; ulimit -n; ulimit -t; ulimit -c",
        ],
    );
    assert_eq!(
        text(&out.stdout),
        "1048576\n64\n7\n0\n",
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test]
async fn a_workspace_keeps_its_master_key_outside_its_data_dir() {
    let ws = support::workspace().await;
    let status = ws.ctx.vault().status().clone();
    assert!(status.ready, "{status:?}");
    assert!(!ws.dir.path().join("master.key").exists());
    assert!(
        !Path::new(&status.location).starts_with(ws.dir.path())
            && !Path::new(&status.location).starts_with(ws.ctx.data_dir()),
        "{}",
        status.location
    );
    assert!(Path::new(&status.location).is_file(), "{}", status.location);
}
