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

#[test]
fn issue33_the_key_goes_with_a_backup_and_comes_back_with_its_passphrase() {
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
    assert!(key_file.is_file(), "{doctor}");

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
