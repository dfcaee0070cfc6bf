//! Send throughput of the bus on PostgreSQL behind 1, 2 and 3 `colmena
//! serve` replicas, next to one `colmena serve` on SQLite, in the same run
//! (issue 17, BENCHMARKS.md). Every server is the release binary as users
//! run it, each on a data dir of its own; 8 senders POST over loopback
//! HTTP (keep-alive, each one request at a time), spreading their messages
//! over the replicas in turn as a load balancer would.
//!
//! `cargo bench -p colmena-server --bench bus_replicas` (release). It
//! starts a durable throwaway PostgreSQL (`tests/postgres/start.sh
//! --durable`: fsync on, as a server would run) unless
//! `COLMENA_BENCH_POSTGRES` names one. Optional args:
//! `--messages-per-sender N` (default 5000), `--rounds N` (default 3: the
//! best round of each setup is reported).

#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use colmena_core::store::bus::postgres::BusStoreChoice;

const SENDERS: usize = 8;

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn scripts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/postgres")
}

/// Where a bus lives: SQLite in the first replica's data dir, or a
/// PostgreSQL schema every replica shares.
#[derive(Clone)]
enum Store {
    Sqlite,
    Postgres { url: String, schema: String },
}

fn colmena(dir: &Path, store: &Store) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_colmena"));
    cmd.arg("--data-dir")
        .arg(dir)
        .env("COLMENA_SECRET_BACKEND", "file")
        .env_remove("COLMENA_DATA_DIR")
        .env_remove("COLMENA_BUS_STORE")
        .env_remove("COLMENA_BUS_SCHEMA");
    if let Store::Postgres { url, schema } = store {
        cmd.env("COLMENA_BUS_STORE", url)
            .env("COLMENA_BUS_SCHEMA", schema);
    }
    cmd
}

struct Who {
    id: String,
    token: String,
}

fn author(dir: &Path, store: &Store, name: &str) -> Who {
    let out = colmena(dir, store)
        .args(["--json", "author", "create", name])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let created: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    Who {
        id: created["id"].as_str().unwrap().to_owned(),
        token: created["token"].as_str().unwrap().to_owned(),
    }
}

/// Room in the reader's inbox for every message of the round.
async fn lift_unread_cap(dir: &Path, store: &Store) {
    let bus = match store {
        Store::Sqlite => BusStoreChoice::Sqlite,
        Store::Postgres { url, schema } => BusStoreChoice::Postgres {
            url: url.clone(),
            schema: schema.clone(),
        },
    };
    let options = colmena_core::OpenOptions {
        data_dir: dir.to_owned(),
        secret_backend: colmena_core::secrets::BackendChoice::File,
    };
    let ctx = colmena_core::workspace::open_with_bus(options, bus)
        .await
        .unwrap();
    colmena_core::inbox::messages::set_max_unread(&ctx, 10_000_000)
        .await
        .unwrap();
}

fn replica(dir: &Path, store: &Store) -> (Child, String) {
    let mut child = colmena(dir, store)
        .args([
            "--json",
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--rate-limit",
            "0",
            "--no-scheduler",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let listening: serde_json::Value = serde_json::from_str(&line).unwrap();
    (child, listening["listening"].as_str().unwrap().to_owned())
}

/// One round: a fresh bus, `replicas` servers, 8 × `per_sender` sends.
/// Messages per second.
async fn round(store: Store, replicas: usize, per_sender: usize) -> f64 {
    let dirs: Vec<tempfile::TempDir> = (0..replicas)
        .map(|_| tempfile::tempdir().unwrap())
        .collect();
    let first = dirs[0].path();
    let reader = author(first, &store, "Reader");
    let senders: Vec<Arc<Who>> = (0..SENDERS)
        .map(|s| Arc::new(author(first, &store, &format!("Sender {s}"))))
        .collect();
    lift_unread_cap(first, &store).await;
    let servers: Vec<(Child, String)> = dirs.iter().map(|d| replica(d.path(), &store)).collect();
    let bases: Arc<Vec<String>> = Arc::new(servers.iter().map(|(_, b)| b.clone()).collect());

    let started = Instant::now();
    let mut tasks = Vec::new();
    for (s, from) in senders.into_iter().enumerate() {
        let (bases, to) = (Arc::clone(&bases), reader.id.clone());
        tasks.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            for n in 0..per_sender {
                let base = &bases[(s + n) % bases.len()];
                let response = http
                    .post(format!("{base}/author/{}/message-to/{to}", from.id))
                    .bearer_auth(&from.token)
                    .json(&serde_json::json!({ "body": format!("message {n} from {}", from.id) }))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(response.status(), 201);
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let rate = (SENDERS * per_sender) as f64 / started.elapsed().as_secs_f64();
    for (mut child, _) in servers {
        let _ = child.kill();
        let _ = child.wait();
    }
    rate
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let per_sender = arg("--messages-per-sender", 5000);
    let rounds = arg("--rounds", 3).max(1);
    let (url, cluster) = match std::env::var("COLMENA_BENCH_POSTGRES") {
        Ok(url) => (url, None),
        Err(_) => {
            let out = Command::new(scripts().join("start.sh"))
                .arg("--durable")
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = String::from_utf8(out.stdout).unwrap();
            let mut lines = text.lines().map(str::to_owned);
            (lines.next().unwrap(), lines.next())
        }
    };
    let setups: Vec<(String, usize)> = vec![
        ("sqlite".into(), 1),
        ("postgres".into(), 1),
        ("postgres".into(), 2),
        ("postgres".into(), 3),
    ];
    let mut best = vec![0f64; setups.len()];
    for r in 0..rounds {
        for (i, (kind, replicas)) in setups.iter().enumerate() {
            let store = if kind == "sqlite" {
                Store::Sqlite
            } else {
                Store::Postgres {
                    url: url.clone(),
                    schema: format!("bench_{}_{r}_{i}", std::process::id()),
                }
            };
            let rate = round(store, *replicas, per_sender).await;
            println!("round {r}: {kind} × {replicas}: {rate:.0} msg/s");
            best[i] = best[i].max(rate);
        }
    }
    println!(
        "\nsend throughput, {SENDERS} senders × {per_sender} messages, best of {rounds} rounds:\n"
    );
    println!("| store | replicas | msg/s | vs SQLite |");
    println!("|---|---|---|---|");
    for (i, (kind, replicas)) in setups.iter().enumerate() {
        println!(
            "| {kind} | {replicas} | {:.0} | {:.2}× |",
            best[i],
            best[i] / best[0]
        );
    }
    if let Some(dir) = cluster {
        let _ = Command::new(scripts().join("stop.sh")).arg(dir).status();
    }
}
