//! `colmena message --server`: a machine without the workspace sends and
//! reads mail on a team's bus, a real `colmena serve` over TLS with its own
//! CA (issue 17). A send made while the bus is down waits and lands once;
//! a certificate nobody vouched for, a wrong token, a plain-HTTP URL to
//! another machine are refused with their codes.

#![allow(clippy::unwrap_used)]

mod common;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use common::{colmena, ok_json};
use serde_json::Value;

/// A `colmena serve` over TLS on a workspace with two authors.
struct TeamBus {
    _dir: tempfile::TempDir,
    child: Child,
    url: String,
    ca: PathBuf,
    ana: (String, String),
    beto: (String, String),
}

impl Drop for TeamBus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn certificate(dir: &Path) -> (PathBuf, PathBuf) {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, certified.signing_key.serialize_pem()).unwrap();
    (cert, key)
}

fn author(dir: &Path, name: &str) -> (String, String) {
    let made = ok_json(colmena(dir).args(["author", "create", name]));
    (
        made["id"].as_str().unwrap().to_owned(),
        made["token"].as_str().unwrap().to_owned(),
    )
}

fn serve(dir: &Path, port: u16, cert: &Path, key: &Path) -> Child {
    let mut child = colmena(dir)
        .args(["--json", "serve", "--bind", &format!("127.0.0.1:{port}")])
        .arg("--tls-cert")
        .arg(cert)
        .arg("--tls-key")
        .arg(key)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let url = common::listening(&mut child);
    assert!(url.starts_with("https://"), "{url}");
    child
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn team_bus() -> TeamBus {
    let dir = tempfile::tempdir().unwrap();
    let (ca, key) = certificate(dir.path());
    let ana = author(dir.path(), "Ana");
    let beto = author(dir.path(), "Beto");
    let port = free_port();
    let child = serve(dir.path(), port, &ca, &key);
    TeamBus {
        _dir: dir,
        child,
        url: format!("https://localhost:{port}"),
        ca,
        ana,
        beto,
    }
}

/// `colmena` on a machine that has no workspace: only a token.
fn client(home: &Path, token: &str) -> Command {
    let mut cmd = colmena(&home.join("no-workspace"));
    cmd.env("COLMENA_TOKEN", token)
        .env_remove("COLMENA_SERVER")
        .env_remove("COLMENA_CA");
    cmd
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn peek(home: &Path, bus: &TeamBus, who: &(String, String)) -> Vec<Value> {
    let out = client(home, &who.1)
        .args(["--json", "message", "inbox", "--peek", "--as", &who.0])
        .args(["--server", &bus.url, "--ca"])
        .arg(&bus.ca)
        .output()
        .unwrap();
    json(&out).as_array().unwrap().clone()
}

#[test]
fn mail_sent_to_a_team_bus_over_tls_lands_once_however_often_it_is_sent() {
    let bus = team_bus();
    let home = tempfile::tempdir().unwrap();
    let send = |body: &str| {
        client(home.path(), &bus.ana.1)
            .args(["--json", "message", "send", &bus.beto.0, body])
            .args(["--as", &bus.ana.0, "--message-id", "informe-1"])
            .args(["--server", &bus.url, "--ca"])
            .arg(&bus.ca)
            .output()
            .unwrap()
    };
    let first = json(&send("el informe"));
    let again = json(&send("el informe"));
    assert_eq!(first["id"], again["id"], "a resend is the same message");
    let inbox = peek(home.path(), &bus, &bus.beto);
    assert_eq!(inbox.len(), 1, "{inbox:?}");
    assert_eq!(inbox[0]["body"], "el informe");
    assert_eq!(inbox[0]["from"], bus.ana.0.as_str());
    // The same id for other mail is the sender's mistake, said so.
    let other = send("otro informe");
    assert_eq!(other.status.code(), Some(5), "conflict");
    // Nothing was made on the client's machine.
    assert!(!home.path().join("no-workspace").exists());
}

#[test]
fn a_send_made_while_the_team_bus_is_down_waits_and_lands_once() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, key) = certificate(dir.path());
    let ana = author(dir.path(), "Ana");
    let beto = author(dir.path(), "Beto");
    let port = free_port();
    let url = format!("https://localhost:{port}");
    let home = tempfile::tempdir().unwrap();
    // Nothing listens yet: the send keeps trying.
    let sender = client(home.path(), &ana.1)
        .args(["--json", "message", "send", &beto.0, "¿seguís ahí?"])
        .args(["--as", &ana.0, "--wait", "120", "--server", &url, "--ca"])
        .arg(&ca)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let server = serve(dir.path(), port, &ca, &key);
    let bus = TeamBus {
        _dir: dir,
        child: server,
        url,
        ca,
        ana,
        beto,
    };
    let receipt = json(&sender.wait_with_output().unwrap());
    assert!(receipt["id"].is_string(), "{receipt}");
    let inbox = peek(home.path(), &bus, &bus.beto);
    assert_eq!(inbox.len(), 1, "{inbox:?}");
    assert_eq!(inbox[0]["body"], "¿seguís ahí?");
}

#[test]
fn attack_a_team_bus_is_trusted_only_with_its_certificate_and_a_real_token() {
    let bus = team_bus();
    let home = tempfile::tempdir().unwrap();
    let send = |token: &str, extra: &[&str]| {
        client(home.path(), token)
            .args(["--json", "message", "send", &bus.beto.0, "hola"])
            .args(["--as", &bus.ana.0, "--server", &bus.url])
            .args(extra)
            .output()
            .unwrap()
    };
    // A certificate no trusted CA signed: refused at once, not retried
    // (a retry would not make it trusted), and nothing was delivered.
    let untrusted = send(&bus.ana.1, &[]);
    assert_eq!(untrusted.status.code(), Some(9), "upstream");
    let stderr = String::from_utf8_lossy(&untrusted.stderr);
    assert!(stderr.contains("certificate"), "{stderr}");
    assert!(!stderr.contains("did not answer"), "{stderr}");
    // A wrong token, and another author's token for Ana's mail.
    let ca = bus.ca.to_str().unwrap();
    let wrong = send("not-a-token", &["--ca", ca]);
    assert_eq!(wrong.status.code(), Some(6), "unauthorized");
    let beto_as_ana = send(&bus.beto.1, &["--ca", ca]);
    assert_eq!(beto_as_ana.status.code(), Some(7), "forbidden");
    assert!(peek(home.path(), &bus, &bus.beto).is_empty());
    // Plain HTTP to another machine would carry the token in clear.
    let plain = client(home.path(), &bus.ana.1)
        .args(["message", "send", &bus.beto.0, "hola", "--as", &bus.ana.0])
        .args(["--server", "http://bus.team.example:8787"])
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(4), "validation");
    assert!(String::from_utf8_lossy(&plain.stderr).contains("https://"));
    // No token at all, and a token file that is not there.
    let none = client(home.path(), "")
        .env_remove("COLMENA_TOKEN")
        .args(["message", "send", &bus.beto.0, "hola", "--as", &bus.ana.0])
        .args(["--server", &bus.url])
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(4), "validation");
    let missing = send(&bus.ana.1, &["--token-file", "/nonexistent/token"]);
    assert_eq!(missing.status.code(), Some(4), "validation");
    // Without --as, the CLI does not guess who you are.
    let anonymous = client(home.path(), &bus.ana.1)
        .args(["message", "send", &bus.beto.0, "hola", "--server", &bus.url])
        .output()
        .unwrap();
    assert_eq!(anonymous.status.code(), Some(4), "validation");
}
