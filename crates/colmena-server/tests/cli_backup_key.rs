//! `colmena backup --key-passphrase-stdin` and `colmena restore
//! --key-passphrase-stdin` as a person runs them (issue 33): the passphrase
//! comes on standard input, never on the command line; a copy without the
//! key says so; a wrong passphrase is a validation error (exit 4) that
//! changes nothing; the right one brings the key back after it was lost.

#![allow(clippy::unwrap_used)]

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use common::{KEY, colmena, ok_json, run};
use serde_json::Value;

const PASSPHRASE: &str = "correct horse battery staple";

/// `colmena --json <args>` on `dir` with `stdin` as its standard input.
fn with_stdin(dir: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = colmena(dir)
        .arg("--json")
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
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "colmena failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A workspace holding one sealed secret (a provider's key): its temporary
/// root, its data dir and its key file.
fn workspace_with_a_secret() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    ok_json(colmena(&dir).args([
        "provider",
        "add",
        "OpenAI",
        "--kind",
        "openai_compatible",
        "--api-key",
        KEY,
    ]));
    let doctor = ok_json(colmena(&dir).arg("doctor"));
    let key_file = PathBuf::from(doctor["info"]["secrets"]["location"].as_str().unwrap());
    (root, dir, key_file)
}

#[test]
fn issue33_the_key_goes_with_a_backup_and_comes_back_with_its_passphrase() {
    let (root, dir, key_file) = workspace_with_a_secret();
    assert!(key_file.is_file(), "{}", key_file.display());

    // Without the flag: a copy, and the word that it has no key.
    let bare = run(colmena(&dir).arg("backup"));
    assert!(bare.status.success());
    assert!(
        String::from_utf8_lossy(&bare.stdout).contains("NOT in this backup"),
        "{}",
        String::from_utf8_lossy(&bare.stdout)
    );

    let copy = root.path().join("copy.db");
    let taken = json_of(&with_stdin(
        &dir,
        &[
            "backup",
            "--to",
            copy.to_str().unwrap(),
            "--key-passphrase-stdin",
        ],
        &format!("{PASSPHRASE}\n"),
    ));
    assert_eq!(taken["key"]["kind"], "sealed");
    let bundle = PathBuf::from(taken["key"]["bundle"].as_str().unwrap());
    assert!(bundle.is_file());
    assert!(!taken.to_string().contains(PASSPHRASE));

    std::fs::remove_file(&key_file).unwrap();

    let wrong = with_stdin(
        &dir,
        &["restore", copy.to_str().unwrap(), "--key-passphrase-stdin"],
        "not the passphrase\n",
    );
    assert_eq!(wrong.status.code(), Some(4), "validation");
    let said = String::from_utf8_lossy(&wrong.stderr);
    assert!(said.contains("wrong_passphrase"), "{said}");
    assert!(!key_file.exists(), "a wrong passphrase changed the key");

    let restored = json_of(&with_stdin(
        &dir,
        &["restore", copy.to_str().unwrap(), "--key-passphrase-stdin"],
        &format!("{PASSPHRASE}\n"),
    ));
    assert_eq!(restored["key"]["kind"], "restored", "{restored}");
    assert!(key_file.is_file());
    // The provider's key opens: the workspace reports its secrets ready.
    let doctor = ok_json(colmena(&dir).arg("doctor"));
    assert_eq!(doctor["info"]["secrets"]["ready"], true, "{doctor}");
}

/// Waits (a hang guard, not a timing claim) until `line` comes on the
/// child's standard error, read on a thread.
#[cfg(unix)]
fn wait_for_line(lines: &std::sync::mpsc::Receiver<String>, wanted: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) if line.contains(wanted) => return,
            Ok(_) => {}
            Err(e) => panic!("'{wanted}' never came on standard error: {e}"),
        }
    }
}

/// What the stand-in app was opened with, once it has written it (it runs
/// on its own, after the command that opened it ended).
#[cfg(unix)]
fn opened_with(record: &Path) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        if let Ok(text) = std::fs::read_to_string(record)
            && text.ends_with('\n')
        {
            return text.trim().to_owned();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the app was never opened again"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Settings → Backups restores the way the app does it (issue 33): the app
/// starts `colmena restore --after-close --then-open APP` with the
/// passphrase on standard input and closes. The command waits while the
/// store is open (changing nothing), restores store and key once it is
/// closed, records how it ended for the app and opens the app again — and
/// a restore that fails still opens the app, which then says why.
// "The app" here is a shell script.
#[cfg(unix)]
#[test]
fn issue33_a_restore_from_settings_waits_for_the_app_then_opens_it_again() {
    let (root, dir, key_file) = workspace_with_a_secret();
    let copy = root.path().join("copy.db");
    json_of(&with_stdin(
        &dir,
        &[
            "backup",
            "--to",
            copy.to_str().unwrap(),
            "--key-passphrase-stdin",
        ],
        &format!("{PASSPHRASE}\n"),
    ));
    std::fs::remove_file(&key_file).unwrap();
    // "The app": a script that records how it was opened.
    let opened = root.path().join("opened.txt");
    let app = root.path().join("app.sh");
    std::fs::write(
        &app,
        format!("#!/bin/sh\necho \"$@\" > '{}'\n", opened.display()),
    )
    .unwrap();
    std::fs::set_permissions(&app, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();

    // The app holds the store open, as every open store does.
    let lock = std::fs::File::open(dir.join("colmena.db.lock")).unwrap();
    lock.lock_shared().unwrap();
    let mut child = colmena(&dir)
        .args([
            "--json",
            "restore",
            copy.to_str().unwrap(),
            "--key-passphrase-stdin",
            "--after-close",
            "--then-open",
            app.to_str().unwrap(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{PASSPHRASE}\n").as_bytes())
        .unwrap();
    let (send, lines) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = send.send(line);
        }
    });
    wait_for_line(&lines, "waiting for Colmena to close the store");
    assert!(!key_file.exists(), "it restored while the store was open");
    assert!(!opened.exists(), "it opened the app while the app was open");
    drop(lock);

    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(key_file.is_file(), "the key did not come back");
    assert_eq!(
        opened_with(&opened),
        format!("--data-dir {}", dir.canonicalize().unwrap().display())
    );
    let outcome: Value =
        serde_json::from_slice(&std::fs::read(dir.join("last-restore.json")).unwrap()).unwrap();
    assert_eq!(outcome["report"]["key"]["kind"], "restored", "{outcome}");
    assert_eq!(outcome["error"], Value::Null);
    let doctor = ok_json(colmena(&dir).arg("doctor"));
    assert_eq!(doctor["info"]["secrets"]["ready"], true, "{doctor}");

    // Failing, it still opens the app, which learns why.
    std::fs::remove_file(&opened).unwrap();
    let wrong = with_stdin(
        &dir,
        &[
            "restore",
            copy.to_str().unwrap(),
            "--key-passphrase-stdin",
            "--after-close",
            "--then-open",
            app.to_str().unwrap(),
        ],
        "not the passphrase\n",
    );
    assert_eq!(wrong.status.code(), Some(4), "validation");
    assert!(
        !opened_with(&opened).is_empty(),
        "the app was not opened again"
    );
    let outcome: Value =
        serde_json::from_slice(&std::fs::read(dir.join("last-restore.json")).unwrap()).unwrap();
    assert_eq!(outcome["report"], Value::Null);
    assert!(
        outcome["error"].as_str().unwrap().contains("passphrase"),
        "{outcome}"
    );
}
