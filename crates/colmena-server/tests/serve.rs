//! `colmena serve` as an operator runs it (SPEC X1): it refuses to listen
//! where other machines can reach it unless told to, and SIGTERM stops it
//! cleanly — the port is released and the process exits with success.

#![allow(clippy::unwrap_used)]

mod common;

// For the SIGTERM test (a Unix signal).
#[cfg(unix)]
use std::process::{Command, Stdio};
#[cfg(unix)]
use std::time::{Duration, Instant};

use common::{colmena, run};

#[test]
fn x1_a_non_loopback_bind_needs_allow_remote() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(colmena(dir.path()).args(["serve", "--bind", "0.0.0.0:0"]));
    assert_eq!(out.status.code(), Some(4), "validation");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--allow-remote"), "{stderr}");
}

#[cfg(unix)]
#[test]
fn x1_sigterm_stops_the_server_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = colmena(dir.path())
        .args(["--json", "serve", "--bind", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first line says where it listens.
    let url = common::listening(&mut child);
    let addr = url.trim_start_matches("http://").to_owned();
    assert!(std::net::TcpStream::connect(&addr).is_ok());

    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        // A hang guard, not a timing claim.
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "serve did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(stderr.contains("stopped"), "{stderr}");
    assert!(
        std::net::TcpStream::connect(&addr).is_err(),
        "the port is released"
    );
}
