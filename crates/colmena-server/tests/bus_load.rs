//! The bus under load, through `colmena serve` as users run it: 8 senders ×
//! 10,000 messages all arrive exactly once, and a SIGKILL in the middle of
//! such a load loses nothing that was acknowledged and doubles nothing.

#![allow(clippy::unwrap_used)]

mod common;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{colmena, ok_json};
use serde_json::{Value, json};

const SENDERS: usize = 8;

struct Author {
    id: String,
    token: String,
}

fn author(dir: &Path, name: &str) -> Author {
    let created = ok_json(colmena(dir).args(["author", "create", name]));
    Author {
        id: created["id"].as_str().unwrap().to_owned(),
        token: created["token"].as_str().unwrap().to_owned(),
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `colmena serve` on `port`, answering once `/health` does. A load test,
/// not an abuse test: no per-token rate limit, and inboxes hold every
/// message sent.
async fn serve(dir: &Path, port: u16) -> Child {
    let ctx = colmena_core::workspace::open(colmena_core::OpenOptions {
        data_dir: dir.to_owned(),
        secret_backend: colmena_core::secrets::BackendChoice::File,
    })
    .await
    .unwrap();
    colmena_core::inbox::messages::set_max_unread(&ctx, 10_000_000)
        .await
        .unwrap();
    drop(ctx);
    let mut child = colmena(dir)
        .args([
            "serve",
            "--bind",
            &format!("127.0.0.1:{port}"),
            "--no-scheduler",
            "--rate-limit",
            "0",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let http = reqwest::Client::new();
    // A hang guard, not a timing claim.
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if http
            .get(format!("http://127.0.0.1:{port}/health"))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return child;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("colmena serve did not come up on {port}");
}

/// Drains `who`'s inbox (each read marks what it returns).
async fn drain(port: u16, who: &Author) -> Vec<Value> {
    let http = reqwest::Client::new();
    let mut all = Vec::new();
    loop {
        let page: Vec<Value> = http
            .get(format!(
                "http://127.0.0.1:{port}/author/{}/inbox?limit=1000",
                who.id
            ))
            .bearer_auth(&who.token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if page.is_empty() {
            return all;
        }
        all.extend(page);
    }
}

/// Sender `s` sends `count` messages to `to`; every acknowledged id (201)
/// goes into `acked`. Stops quietly when the server goes away.
async fn send_all(
    port: u16,
    from: Arc<Author>,
    to: String,
    s: usize,
    count: usize,
    acked: Arc<Mutex<HashMap<String, String>>>,
) -> usize {
    let http = reqwest::Client::new();
    for n in 0..count {
        let body = format!("sender {s} message {n}");
        let response = http
            .post(format!(
                "http://127.0.0.1:{port}/author/{}/message-to/{to}",
                from.id
            ))
            .bearer_auth(&from.token)
            .json(&json!({ "body": body }))
            .send()
            .await;
        let Ok(response) = response else {
            return n;
        };
        if response.status() != reqwest::StatusCode::CREATED {
            return n;
        }
        let Ok(receipt) = response.json::<Value>().await else {
            return n;
        };
        acked
            .lock()
            .unwrap()
            .insert(receipt["id"].as_str().unwrap().to_owned(), body);
    }
    count
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn b2_eight_senders_times_ten_thousand_messages_arrive_exactly_once() {
    const EACH: usize = 10_000;
    let dir = tempfile::tempdir().unwrap();
    let reader = author(dir.path(), "Ambrosio");
    let senders: Vec<Arc<Author>> = (0..SENDERS)
        .map(|s| Arc::new(author(dir.path(), &format!("Sender {s}"))))
        .collect();
    let port = free_port();
    let mut server = serve(dir.path(), port).await;

    let acked = Arc::new(Mutex::new(HashMap::new()));
    let mut tasks = Vec::new();
    for (s, from) in senders.iter().enumerate() {
        tasks.push(tokio::spawn(send_all(
            port,
            Arc::clone(from),
            reader.id.clone(),
            s,
            EACH,
            Arc::clone(&acked),
        )));
    }
    // Two readers drain the inbox while the senders write.
    let reader = Arc::new(reader);
    let mut readers = Vec::new();
    for _ in 0..2 {
        let reader = Arc::clone(&reader);
        readers.push(tokio::spawn(async move {
            let mut got = Vec::new();
            for _ in 0..20 {
                got.extend(drain(port, &reader).await);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            got
        }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), EACH);
    }
    let mut lists: Vec<Vec<Value>> = Vec::new();
    for r in readers {
        lists.push(r.await.unwrap());
    }
    lists.push(drain(port, &reader).await);
    let received: Vec<&Value> = lists.iter().flatten().collect();
    server.kill().unwrap();
    let _ = server.wait();

    let acked = acked.lock().unwrap();
    assert_eq!(acked.len(), SENDERS * EACH);
    let mut seen = HashSet::new();
    for m in &received {
        let id = m["id"].as_str().unwrap();
        assert!(
            seen.insert(id.to_owned()),
            "message {id} was delivered twice"
        );
        assert_eq!(acked.get(id).map(String::as_str), m["body"].as_str(), "{m}");
    }
    assert_eq!(seen.len(), SENDERS * EACH, "every message arrived");
    // Each reader got each sender's messages in the order they were sent.
    for list in &lists {
        let mut last: HashMap<String, i64> = HashMap::new();
        for m in list {
            let body = m["body"].as_str().unwrap();
            let n: i64 = body.rsplit(' ').next().unwrap().parse().unwrap();
            let sender = m["from"].as_str().unwrap().to_owned();
            let before = last.insert(sender, n).unwrap_or(-1);
            assert!(n > before, "{body} came after message {before}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn b7_sigkill_mid_load_loses_no_acknowledged_message_and_doubles_none() {
    let dir = tempfile::tempdir().unwrap();
    let reader = author(dir.path(), "Ambrosio");
    let senders: Vec<Arc<Author>> = (0..SENDERS)
        .map(|s| Arc::new(author(dir.path(), &format!("Sender {s}"))))
        .collect();
    let port = free_port();
    let mut server = serve(dir.path(), port).await;

    let acked = Arc::new(Mutex::new(HashMap::new()));
    let mut tasks = Vec::new();
    for (s, from) in senders.iter().enumerate() {
        tasks.push(tokio::spawn(send_all(
            port,
            Arc::clone(from),
            reader.id.clone(),
            s,
            100_000,
            Arc::clone(&acked),
        )));
    }
    // Let the load build, then kill the server without warning.
    while acked.lock().unwrap().len() < 2_000 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Command::new("kill")
        .args(["-KILL", &server.id().to_string()])
        .status()
        .unwrap();
    let _ = server.wait();
    let sent: usize = futures_count(tasks).await;
    let acked = acked.lock().unwrap().clone();
    assert_eq!(sent, acked.len());
    assert!(sent < SENDERS * 100_000, "the kill happened mid-load");

    let mut server = serve(dir.path(), port).await;
    let received = drain(port, &reader).await;
    server.kill().unwrap();
    let _ = server.wait();

    let mut bodies = HashSet::new();
    let mut ids = HashSet::new();
    for m in &received {
        assert!(
            bodies.insert(m["body"].as_str().unwrap().to_owned()),
            "stored twice: {m}"
        );
        ids.insert(m["id"].as_str().unwrap().to_owned());
    }
    let lost: Vec<&String> = acked.keys().filter(|id| !ids.contains(*id)).collect();
    assert!(
        lost.is_empty(),
        "{} acknowledged messages were lost",
        lost.len()
    );
    // At most one in-flight message per sender may have been stored without
    // its 201 reaching the sender.
    assert!(
        received.len() <= acked.len() + SENDERS,
        "{} stored, {} acknowledged",
        received.len(),
        acked.len()
    );
}

async fn futures_count(tasks: Vec<tokio::task::JoinHandle<usize>>) -> usize {
    let mut total = 0;
    for t in tasks {
        total += t.await.unwrap();
    }
    total
}
