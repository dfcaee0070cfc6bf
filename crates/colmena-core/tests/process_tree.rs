//! The supervised-program interface on every OS (Unix: the launcher's
//! process group; Windows: a Job Object): the program's input, output and
//! exit code pass through the launcher, and nothing it starts outlives a
//! stop or the app. `supervised.rs` goes deeper on Linux (setsid escapers,
//! the watchdog); this file is the one that also runs on Windows (under
//! Wine here, on a Windows runner in the release workflow).
//!
//! The programs are this test binary again, in a helper role chosen by an
//! environment variable (`tree_helper` below), so the tests need nothing
//! the system may lack (the test harness prints its own words first, on
//! the same line: what a helper says is looked for, not compared). Whether a grandchild still lives is read from a
//! file lock it holds until it dies: the system releases it with the
//! process, on every OS.

#![allow(clippy::unwrap_used)]

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use colmena_core::process::{
    Input, kill_group, release_group, spawn_supervised, supervised_command,
};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

/// Which helper this process is (unset: a test).
const ROLE: &str = "TREE_HELPER";
/// The lock file a grandchild holds, and the file it writes once it does.
const LOCK: &str = "TREE_LOCK";
/// How long a helper that should be killed would otherwise live.
const LONG: Duration = Duration::from_secs(600);
/// A liveness bound, not a timing assertion: how long a tree may take to
/// end before the test gives up (far below [`LONG`]).
const PATIENCE: Duration = Duration::from_secs(60);

/// This test binary, in helper role `role` (one test, no capture).
fn helper(role: &str, lock: Option<&Path>) -> (String, Vec<String>, Vec<(String, String)>) {
    let exe = std::env::current_exe().unwrap();
    let args = ["tree_helper", "--exact", "--nocapture", "--test-threads=1"]
        .map(String::from)
        .to_vec();
    let mut env = vec![(ROLE.to_owned(), role.to_owned())];
    if let Some(lock) = lock {
        env.push((LOCK.to_owned(), lock.display().to_string()));
    }
    (exe.display().to_string(), args, env)
}

/// The helpers. `echo`: answers its first line and exits 3. `eof`: says
/// whether its input is already at its end. `grandchild`: locks `LOCK`,
/// writes `LOCK.ready`, says "locked", and sleeps. `program`: starts a
/// grandchild (same output) and waits. `app`: starts `program` supervised,
/// the way Colmena does, and sleeps.
#[test]
fn tree_helper() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let lock = std::env::var(LOCK).ok().map(PathBuf::from);
    match role.as_str() {
        "echo" => {
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).unwrap();
            println!("heard {}", line.trim());
            std::process::exit(3);
        }
        "eof" => {
            let mut rest = Vec::new();
            let read = std::io::stdin().read_to_end(&mut rest).unwrap();
            println!("read {read} bytes");
        }
        "grandchild" => {
            let lock = lock.unwrap();
            let file = File::create(&lock).unwrap();
            file.lock().unwrap();
            std::fs::write(lock.with_extension("ready"), "locked").unwrap();
            println!("locked");
            std::io::stdout().flush().unwrap();
            std::thread::sleep(LONG);
        }
        "program" => {
            let (exe, args, env) = helper("grandchild", lock.as_deref());
            let mut grandchild = std::process::Command::new(exe)
                .args(args)
                .envs(env)
                .spawn()
                .unwrap();
            let _ = grandchild.wait();
        }
        "app" => {
            let runtime = tokio::runtime::Runtime::new().unwrap();
            runtime.block_on(async {
                let (exe, args, env) = helper("program", lock.as_deref());
                let mut command = supervised_command(&exe, &args, &env, None).unwrap();
                let _child = spawn_supervised(&mut command, Input::Closed).await.unwrap();
                tokio::time::sleep(LONG).await;
            });
        }
        other => panic!("no helper role {other}"),
    }
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

/// True once nobody holds the lock on `lock` (its holder is dead).
fn released(lock: &Path) -> bool {
    File::open(lock).is_ok_and(|file| file.try_lock().is_ok())
}

/// Starts helper `role` supervised, writes `input` (when the input is a
/// pipe) and returns what it printed and how it ended, its tree released.
async fn run_helper(role: &str, input: Input, text: &[u8]) -> (String, std::process::ExitStatus) {
    let (exe, args, env) = helper(role, None);
    let mut command = supervised_command(&exe, &args, &env, None).unwrap();
    let mut child = spawn_supervised(&mut command, input).await.unwrap();
    let leader = child.id().unwrap();
    match child.stdin.take() {
        Some(mut stdin) => {
            stdin.write_all(text).await.unwrap();
            stdin.flush().await.unwrap();
        }
        None => assert_eq!(input, Input::Closed, "a piped input is there to write to"),
    }
    let mut output = String::new();
    let mut stdout = child.stdout.take().unwrap();
    stdout.read_to_string(&mut output).await.unwrap();
    let status = tokio::time::timeout(PATIENCE, child.wait())
        .await
        .unwrap()
        .unwrap();
    release_group(leader);
    (output, status)
}

#[tokio::test]
async fn input_output_and_exit_code_pass_through_the_launcher() {
    let (output, status) = run_helper("echo", Input::Piped, b"bees\n").await;
    assert!(
        output.contains("heard bees\n"),
        "the program got its whole input, and its output came back: {output:?}"
    );
    assert_eq!(status.code(), Some(3), "the program's exit code");
}

#[tokio::test]
async fn a_closed_input_reads_as_its_end() {
    let (output, status) = run_helper("eof", Input::Closed, b"").await;
    assert!(status.success(), "{output}");
    assert!(
        output.contains("read 0 bytes\n"),
        "nothing the app wrote to start the launcher reached the program: {output:?}"
    );
}

#[tokio::test]
async fn a_stop_ends_the_program_and_what_it_started() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join("grandchild.lock");
    let (exe, args, env) = helper("program", Some(&lock));
    let mut command = supervised_command(&exe, &args, &env, None).unwrap();
    let mut child = spawn_supervised(&mut command, Input::Piped).await.unwrap();
    let leader = child.id().unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let started = tokio::time::timeout(PATIENCE, async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.ends_with("locked") {
                return true;
            }
        }
        false
    })
    .await
    .unwrap();
    assert!(started, "the grandchild started");
    assert!(!released(&lock), "the grandchild holds its lock");

    kill_group(leader);
    assert!(
        eventually(|| released(&lock)),
        "the grandchild outlived the stop"
    );
    tokio::time::timeout(PATIENCE, child.wait())
        .await
        .expect("the launcher ended with its tree")
        .unwrap();
}

/// A caller that drops the program without stopping it (a cancelled run)
/// leaves nothing running either. (Two workers: the test waits by
/// blocking, and the app's watch on the job runs on the runtime.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_program_does_not_outlive_its_caller() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join("grandchild.lock");
    let (exe, args, env) = helper("program", Some(&lock));
    let mut command = supervised_command(&exe, &args, &env, None).unwrap();
    let child = spawn_supervised(&mut command, Input::Piped).await.unwrap();
    let ready = lock.with_extension("ready");
    assert!(eventually(|| ready.exists()), "the grandchild started");
    drop(child);
    assert!(
        eventually(|| released(&lock)),
        "the grandchild outlived the dropped program"
    );
}

#[test]
fn the_tree_ends_when_the_app_dies() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join("grandchild.lock");
    let (exe, args, env) = helper("app", Some(&lock));
    let mut app = std::process::Command::new(exe)
        .args(args)
        .envs(env)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let ready = lock.with_extension("ready");
    assert!(
        eventually(|| ready.exists()),
        "the app's supervised program started its grandchild"
    );
    assert!(!released(&lock), "the grandchild holds its lock");

    // The app dies without cleaning anything up.
    app.kill().unwrap();
    let _ = app.wait();
    assert!(
        eventually(|| released(&lock)),
        "the grandchild outlived the app"
    );
}
