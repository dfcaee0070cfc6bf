//! `colmena web-search show|set|clear|test`, run as a user would, against a
//! Brave-format service on 127.0.0.1: the key goes in by stdin, comes out
//! only masked, and is never in clear in the data dir.

#![allow(clippy::unwrap_used)]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::Stdio;
use std::sync::mpsc;

use serde_json::Value;

mod common;

use common::{colmena, ok_json, run};

const KEY: &str = "BSA-cli-test-key-0a1b2c3d4e";

/// A one-request service answering like Brave; sends what it received.
fn brave() -> (String, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        let mut request = vec![0u8; 8192];
        let n = socket.read(&mut request).unwrap();
        tx.send(String::from_utf8_lossy(&request[..n]).into_owned())
            .unwrap();
        let body = r#"{"type":"search","web":{"results":[{"title":"Colmena","url":"https://colmena.example/","description":"A hive."}]}}"#;
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        socket.write_all(head.as_bytes()).unwrap();
        socket.write_all(body.as_bytes()).unwrap();
    });
    (format!("http://{addr}"), rx)
}

fn grep_dir(dir: &std::path::Path, needle: &str) -> bool {
    std::process::Command::new("grep")
        .args(["-r", "-a", "-q", needle])
        .arg(dir)
        .status()
        .unwrap()
        .success()
}

#[test]
fn web_search_is_set_shown_tested_and_cleared_without_showing_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let shown = ok_json(colmena(dir.path()).args(["web-search", "show"]));
    assert_eq!(shown["backend"], Value::Null);
    assert_eq!(shown["toolActive"], false);

    let (base_url, requests) = brave();
    let mut child = colmena(dir.path())
        .args([
            "--json",
            "web-search",
            "set",
            "--backend",
            "brave",
            "--base-url",
            &base_url,
            "--api-key-stdin",
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
        .write_all(format!("{KEY}\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let set: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(set["backend"], "brave");
    assert_eq!(set["apiKeyMasked"], "BSA…3d4e");
    assert_eq!(set["toolActive"], true);

    let tested = ok_json(colmena(dir.path()).args(["web-search", "test", "colmena bees"]));
    assert_eq!(tested["results"][0]["url"], "https://colmena.example/");
    let request = requests.recv().unwrap();
    assert!(
        request.starts_with("GET /res/v1/web/search?q=colmena+bees&count=5 HTTP/1.1"),
        "{request}"
    );
    assert!(
        request
            .to_lowercase()
            .contains(&format!("x-subscription-token: {}", KEY.to_lowercase())),
        "{request}"
    );

    let human = run(colmena(dir.path()).args(["web-search", "show"]));
    let human = String::from_utf8_lossy(&human.stdout);
    assert!(
        human.contains("BSA…3d4e") && !human.contains(KEY),
        "{human}"
    );
    assert!(
        !grep_dir(dir.path(), KEY),
        "the clear key is in the data dir"
    );
    let tool = ok_json(colmena(dir.path()).args(["tool", "show", "web_search"]));
    assert_eq!(tool["active"], true);

    let cleared = ok_json(colmena(dir.path()).args(["web-search", "clear"]));
    assert_eq!(cleared["toolActive"], false);
    let out = run(colmena(dir.path()).args(["--json", "web-search", "test"]));
    assert!(!out.status.success());
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"]["code"], "precondition");
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Settings → Web search")
    );
}
