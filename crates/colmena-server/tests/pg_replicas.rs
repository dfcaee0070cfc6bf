//! The bus on PostgreSQL behind two `colmena serve` replicas, as a team
//! runs it (issue 17): each replica has a data dir of its own and keeps no
//! bus state, so a client may use either. 8 senders × 10,000 messages go
//! through both while one replica is killed with `kill -9`: the senders
//! retry on the survivor with the same message id, and every acknowledged
//! message is stored exactly once. Urgent mail sent through replica A
//! wakes a role whose scheduler runs only in replica B, at once (through
//! `LISTEN/NOTIFY`, not the scheduler's 30-second fallback look).

#![cfg(unix)]
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use colmena_core::store::bus::postgres::{BusStoreChoice, FALLBACK_TICK};
use common::postgres::Postgres;
use common::{colmena, ok_json};
use serde_json::{Value, json};

const SENDERS: usize = 8;
/// A hang guard, not a timing claim: how long a test waits for something
/// that must happen before it gives up.
const PATIENCE: Duration = Duration::from_secs(60);

/// A client that opens a fresh connection for every request: these tests
/// wait seconds between requests, and a pooled connection the server has
/// just closed as idle (its keep-alive is 10 s) would fail the request
/// ("error sending request"), not the bus.
fn unpooled() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap()
}

/// One bus: the database and the schema both replicas share.
struct Bus {
    url: String,
    schema: String,
}

impl Bus {
    fn new(pg: &Postgres) -> Bus {
        Bus {
            url: pg.url.clone(),
            schema: pg.fresh_schema(),
        }
    }

    /// `colmena` on `dir` with this bus as its store.
    fn cli(&self, dir: &Path) -> Command {
        let mut cmd = colmena(dir);
        cmd.env("COLMENA_BUS_STORE", &self.url)
            .env("COLMENA_BUS_SCHEMA", &self.schema);
        cmd
    }

    /// The bus opened in this process, on `dir`.
    async fn open(&self, dir: &Path) -> colmena_core::Ctx {
        colmena_core::workspace::open_with_bus(
            colmena_core::OpenOptions {
                data_dir: dir.to_owned(),
                secret_backend: colmena_core::secrets::BackendChoice::File,
            },
            BusStoreChoice::Postgres {
                url: self.url.clone(),
                schema: self.schema.clone(),
            },
        )
        .await
        .unwrap()
    }

    /// Inboxes hold every message of the load (the default cap is for
    /// people, not load tests).
    async fn lift_unread_cap(&self, dir: &Path) {
        let ctx = self.open(dir).await;
        colmena_core::inbox::messages::set_max_unread(&ctx, 10_000_000)
            .await
            .unwrap();
    }
}

struct Author {
    id: String,
    token: String,
}

fn author(bus: &Bus, dir: &Path, name: &str, extra: &[&str]) -> Author {
    let created = ok_json(bus.cli(dir).args(["author", "create", name]).args(extra));
    Author {
        id: created["id"].as_str().unwrap().to_owned(),
        token: created["token"].as_str().unwrap().to_owned(),
    }
}

/// A `colmena serve` replica of `bus` on its own data dir: the child and
/// its base URL. No per-token rate limit: this is a load test.
fn replica(bus: &Bus, dir: &Path, scheduler: bool) -> (Child, String) {
    let mut cmd = bus.cli(dir);
    cmd.args([
        "--json",
        "serve",
        "--bind",
        "127.0.0.1:0",
        "--rate-limit",
        "0",
    ]);
    if !scheduler {
        cmd.arg("--no-scheduler");
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let base = common::listening(&mut child);
    (child, base)
}

/// Sends message `n` of sender `s` with its own message id, through
/// `bases[first]` and, while that one fails, the others: the receipt's id.
async fn send_once(
    http: &reqwest::Client,
    bases: &[String],
    first: usize,
    from: &Author,
    to: &str,
    s: usize,
    n: usize,
) -> String {
    let body =
        json!({ "body": format!("sender {s} message {n}"), "message_id": format!("s{s}-m{n}") });
    // Retried for up to a minute (a hang guard, not a timing claim): the
    // survivor may answer 5xx for a while under the load.
    let deadline = Instant::now() + PATIENCE;
    for attempt in 0.. {
        if Instant::now() >= deadline {
            break;
        }
        let base = &bases[(first + attempt) % bases.len()];
        let answer = http
            .post(format!("{base}/author/{}/message-to/{to}", from.id))
            .bearer_auth(&from.token)
            .json(&body)
            .send()
            .await;
        if let Ok(answer) = answer {
            let status = answer.status();
            if status.is_success() {
                if let Ok(receipt) = answer.json::<Value>().await {
                    return receipt["id"].as_str().unwrap().to_owned();
                }
            } else {
                assert!(
                    status.is_server_error(),
                    "message s{s}-m{n} refused: {status} {}",
                    answer.text().await.unwrap_or_default()
                );
            }
        }
        if attempt % bases.len() == bases.len() - 1 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    panic!("message s{s}-m{n} found no replica to take it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_senders_through_two_replicas_one_killed_every_acknowledged_message_stored_once() {
    const EACH: usize = 10_000;
    let Some(pg) = Postgres::get() else { return };
    let bus = Bus::new(&pg);
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let reader = author(&bus, dir_a.path(), "Ambrosio", &[]);
    let senders: Vec<Arc<Author>> = (0..SENDERS)
        .map(|s| Arc::new(author(&bus, dir_a.path(), &format!("Sender {s}"), &[])))
        .collect();
    bus.lift_unread_cap(dir_a.path()).await;
    let (mut a, base_a) = replica(&bus, dir_a.path(), false);
    let (mut b, base_b) = replica(&bus, dir_b.path(), false);
    let bases = Arc::new(vec![base_a, base_b]);

    // Each sender alternates replicas, message by message.
    let acked: Arc<Mutex<HashMap<String, String>>> = Arc::default();
    let mut tasks = Vec::new();
    for (s, from) in senders.iter().enumerate() {
        let (bases, from, to, acked) = (
            Arc::clone(&bases),
            Arc::clone(from),
            reader.id.clone(),
            Arc::clone(&acked),
        );
        tasks.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            for n in 0..EACH {
                let id = send_once(&http, &bases, n % 2, &from, &to, s, n).await;
                let body = format!("sender {s} message {n}");
                let before = acked.lock().unwrap().insert(id.clone(), body.clone());
                assert!(before.is_none(), "{id} acknowledged for two messages");
            }
        }));
    }
    // Kill replica A without warning once the load is well under way.
    while acked.lock().unwrap().len() < SENDERS * EACH / 4 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Command::new("kill")
        .args(["-KILL", &a.id().to_string()])
        .status()
        .unwrap();
    let _ = a.wait();
    let killed_at = acked.lock().unwrap().len();
    for t in tasks {
        t.await.unwrap();
    }
    let _ = b.kill();
    let _ = b.wait();
    assert!(
        killed_at < SENDERS * EACH,
        "the kill happened mid-load ({killed_at} acknowledged before it)"
    );

    // What the database holds: each acknowledged message, once.
    let db = pg.client().await;
    let rows = db
        .query(
            &format!(
                "SELECT id, body FROM {}.messages WHERE to_author = $1",
                bus.schema
            ),
            &[&reader.id],
        )
        .await
        .unwrap();
    let acked = acked.lock().unwrap();
    assert_eq!(
        acked.len(),
        SENDERS * EACH,
        "every message was acknowledged"
    );
    let mut bodies = HashSet::new();
    let mut stored: HashMap<String, String> = HashMap::new();
    for row in &rows {
        let (id, body): (String, String) = (row.get(0), row.get(1));
        assert!(bodies.insert(body.clone()), "stored twice: {body}");
        stored.insert(id, body);
    }
    for (id, body) in acked.iter() {
        assert_eq!(
            stored.get(id),
            Some(body),
            "acknowledged message {id} is not stored as sent"
        );
    }
    assert_eq!(
        rows.len(),
        SENDERS * EACH,
        "nothing stored beyond the acknowledged"
    );
    eprintln!(
        "{killed_at} messages acknowledged before replica A was killed; all {} stored once",
        rows.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn urgent_mail_through_replica_a_wakes_a_role_scheduled_by_replica_b_at_once() {
    let Some(pg) = Postgres::get() else { return };
    let bus = Bus::new(&pg);
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let tmp = tempfile::tempdir().unwrap();
    let (waker, woken) = (tmp.path().join("waker.sh"), tmp.path().join("woken"));
    write_script(
        &waker,
        "#!/bin/sh\necho \"$COLMENA_AUTHOR_ID $COLMENA_UNREAD\" >> \"$1\"\n",
    );
    let role = author(
        &bus,
        dir_b.path(),
        "Fuera",
        &[
            "--wake-every",
            "600",
            "--wake-command",
            waker.to_str().unwrap(),
            "--wake-arg",
            woken.to_str().unwrap(),
        ],
    );
    let ana = author(&bus, dir_a.path(), "Ana", &[]);
    let (mut a, base_a) = replica(&bus, dir_a.path(), false);
    // B's first look is after it starts, and its next fallback look at
    // least 30 s after that one: a wake-up claimed sooner than that after
    // this moment was rung by the notification.
    let before_b = chrono::Utc::now();
    let (mut b, _base_b) = replica(&bus, dir_b.path(), true);
    // B's scheduler has looked once (the role is not due for ten hours)
    // and now waits for its bell or its fallback look. Nothing must wake
    // the role meanwhile (a slow machine only makes that likelier).
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(!woken.exists(), "the role woke with nothing to read");

    let http = unpooled();
    let sent = http
        .post(format!("{base_a}/author/{}/message-to/{}", ana.id, role.id))
        .bearer_auth(&ana.token)
        .json(&json!({ "body": "Urgente: rebuild aurin.", "priority": "urgent" }))
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), reqwest::StatusCode::CREATED);
    let started = Instant::now();
    while !woken.exists() {
        // A hang guard past the fallback look; when the wake-up came is
        // checked below on what B recorded.
        assert!(
            started.elapsed() < PATIENCE + FALLBACK_TICK,
            "the role was not woken by the urgent message"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Measured, not asserted: BENCHMARKS.md has the figure.
    eprintln!(
        "urgent mail through A to the role's wake by B: {:?}",
        started.elapsed()
    );
    // Let the wake-up finish and be recorded, then look at what B recorded.
    let started = Instant::now();
    let history = loop {
        let history = ok_json(bus.cli(dir_b.path()).args(["author", "history", &role.id]));
        if history.as_array().is_some_and(|h| !h.is_empty()) {
            break history;
        }
        assert!(
            started.elapsed() < PATIENCE,
            "the wake-up was never recorded"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let _ = a.kill();
    let _ = b.kill();
    let _ = (a.wait(), b.wait());
    assert_eq!(
        std::fs::read_to_string(&woken).unwrap(),
        format!("{} 1\n", role.id),
        "woken once, with its one unread message"
    );
    assert_eq!(history.as_array().map(Vec::len), Some(1), "{history}");
    // The wake is claimed in the database: its next one is ten hours off.
    let shown = ok_json(bus.cli(dir_a.path()).args(["author", "show", &role.id]));
    let claimed: chrono::DateTime<chrono::Utc> = shown["lastWakeAt"]
        .as_str()
        .unwrap_or_else(|| panic!("{shown}"))
        .parse()
        .unwrap();
    // Before B's fallback look could have come: the notification rang it.
    let fallback = chrono::Duration::from_std(FALLBACK_TICK).unwrap();
    assert!(
        claimed < before_b + fallback,
        "the wake-up was claimed {} s after B started: by the fallback look, \
         not by the urgent message's notification",
        (claimed - before_b).num_seconds()
    );
}

async fn send_urgent(http: &reqwest::Client, base: &str, from: &Author, to: &str, body: &str) {
    let sent = http
        .post(format!("{base}/author/{}/message-to/{to}", from.id))
        .bearer_auth(&from.token)
        .json(&json!({ "body": body, "priority": "urgent" }))
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), reqwest::StatusCode::CREATED);
}

/// Writes an executable shell script (a role's wake command).
fn write_script(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_one_replica_runs_a_wake_up_no_other_replica_starts_a_second_one() {
    let Some(pg) = Postgres::get() else { return };
    let bus = Bus::new(&pg);
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let tmp = tempfile::tempdir().unwrap();
    let (waker, started, release) = (
        tmp.path().join("waker.sh"),
        tmp.path().join("started"),
        tmp.path().join("release"),
    );
    // Each wake-up says it started, then runs until the test releases it.
    write_script(
        &waker,
        "#!/bin/sh\necho started >> \"$1\"\nwhile [ ! -e \"$2\" ]; do sleep 0.05; done\n",
    );
    let role = author(
        &bus,
        dir_a.path(),
        "Lento",
        &[
            "--wake-every",
            "600",
            "--wake-command",
            waker.to_str().unwrap(),
            "--wake-arg",
            started.to_str().unwrap(),
            "--wake-arg",
            release.to_str().unwrap(),
        ],
    );
    let ana = author(&bus, dir_a.path(), "Ana", &[]);
    // Urgent mail may wake a role again one second after its last wake-up.
    let ctx = bus.open(dir_a.path()).await;
    colmena_core::inbox::wake_timing::set_min_wake_interval(&ctx, 1)
        .await
        .unwrap();
    drop(ctx);
    // Both replicas schedule wake-ups.
    let (mut a, base_a) = replica(&bus, dir_a.path(), true);
    let (mut b, base_b) = replica(&bus, dir_b.path(), true);
    let http = unpooled();

    send_urgent(&http, &base_a, &ana, &role.id, "Primero.").await;
    let clock = Instant::now();
    while lines(&started) == 0 {
        assert!(clock.elapsed() < PATIENCE, "the role never woke");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // More urgent mail through both replicas while the wake-up runs, each
    // past the minimum interval: without the claim's lease, either
    // replica would start a second run on the same unread mail.
    // (The pauses are the scenario, and the last check an absence: a slow
    // machine only makes each pause longer.)
    for (n, base) in [&base_a, &base_b, &base_a].into_iter().enumerate() {
        tokio::time::sleep(Duration::from_millis(1100)).await;
        send_urgent(&http, base, &ana, &role.id, &format!("Otro {n}.")).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        lines(&started),
        1,
        "a second wake-up started during the first"
    );

    // Released, the role is woken again for the mail that came meanwhile.
    std::fs::write(&release, "").unwrap();
    let clock = Instant::now();
    while lines(&started) < 2 {
        assert!(
            clock.elapsed() < PATIENCE,
            "the mail that came during the wake-up never woke the role"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _ = (a.kill(), b.kill());
    let _ = (a.wait(), b.wait());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_wake_up_keeps_its_lease_and_a_replica_killed_mid_run_lets_the_other_wake_the_role()
{
    let Some(pg) = Postgres::get() else { return };
    let bus = Bus::new(&pg);
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let tmp = tempfile::tempdir().unwrap();
    let (waker, started, release) = (
        tmp.path().join("waker.sh"),
        tmp.path().join("started"),
        tmp.path().join("release"),
    );
    // Each wake-up writes which replica runs it (the API it was given),
    // then runs until the test releases it (ten minutes at most).
    write_script(
        &waker,
        "#!/bin/sh\necho \"$COLMENA_API_URL\" >> \"$1\"\ni=0\n\
         while [ ! -e \"$2\" ] && [ $i -lt 3000 ]; do sleep 0.2; i=$((i+1)); done\n",
    );
    let role = author(
        &bus,
        dir_a.path(),
        "Largo",
        &[
            "--wake-every",
            "600",
            "--wake-command",
            waker.to_str().unwrap(),
            "--wake-arg",
            started.to_str().unwrap(),
            "--wake-arg",
            release.to_str().unwrap(),
            "--wake-timeout",
            "3600",
        ],
    );
    let ana = author(&bus, dir_a.path(), "Ana", &[]);
    let ctx = bus.open(dir_a.path()).await;
    colmena_core::inbox::wake_timing::set_min_wake_interval(&ctx, 1)
        .await
        .unwrap();
    drop(ctx);
    let (a, base_a) = replica(&bus, dir_a.path(), true);
    let (b, base_b) = replica(&bus, dir_b.path(), true);
    let bases = [base_a.clone(), base_b.clone()];
    let mut replicas = vec![(a, base_a), (b, base_b)];
    let http = unpooled();
    let runner = |path: &Path| -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    };

    send_urgent(&http, &bases[0], &ana, &role.id, "Empieza.").await;
    let clock = Instant::now();
    while runner(&started).is_empty() {
        assert!(clock.elapsed() < PATIENCE, "the role never woke");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Past the first lease (90 s), urgent mail keeps coming through both
    // replicas: the running replica renews its lease, so nobody starts a
    // second run. (The pauses are the scenario: a slow machine only makes
    // the wake-up outlast its first lease by more.)
    for n in 0..12 {
        tokio::time::sleep(Duration::from_secs(9)).await;
        send_urgent(&http, &bases[n % 2], &ana, &role.id, &format!("Más {n}.")).await;
    }
    let first = runner(&started);
    assert_eq!(first.len(), 1, "a second wake-up started during a long one");

    // The replica running it dies: its lease lapses and the other replica
    // wakes the role for the mail still unread.
    let ran = |line: &str, base: &str| line.starts_with(base);
    let at = replicas
        .iter()
        .position(|(_, base)| ran(&first[0], base))
        .unwrap_or_else(|| panic!("no replica serves {}", first[0]));
    let (mut dead, _) = replicas.remove(at);
    dead.kill().unwrap();
    dead.wait().unwrap();
    let (survivor, base) = &mut replicas[0];
    send_urgent(&http, base, &ana, &role.id, "¿Sigues?").await;
    let clock = Instant::now();
    // The lease (90 s) lapses, then a look (30 s at most) finds it: a hang
    // guard well past both.
    while runner(&started).len() < 2 {
        assert!(
            clock.elapsed() < Duration::from_secs(90) + FALLBACK_TICK + PATIENCE * 2,
            "the role stayed held by a dead replica's lease"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    eprintln!("a dead replica's lease lapsed after {:?}", clock.elapsed());
    let second = runner(&started);
    assert!(ran(&second[1], base), "the survivor woke it: {second:?}");
    std::fs::write(&release, "").unwrap();
    let _ = survivor.kill();
    let _ = survivor.wait();
}
