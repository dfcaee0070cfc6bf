//! A large workspace for `scripts/bench-app.sh --large` (issue 16): 1,000
//! canvases, 100,000 memories, 1,000,000 bus messages and 10,000 runs for
//! the workspace's owner, loaded in bulk in a few transactions of plain
//! inserts (the rows' shape is what the services write), then the search
//! index rebuilt from the store as `colmena reindex` does.
//!
//! Run: `cargo run --release -p colmena-core --example seed_workspace -- DIR`
//! (`SEED_SCALE=0.01` seeds a hundredth, for a quick look).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use colmena_core::OpenOptions;
use colmena_core::inbox::{self, NewAuthor};
use colmena_core::secrets::BackendChoice;

fn scaled(n: usize) -> usize {
    let scale: f64 = std::env::var("SEED_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    ((n as f64) * scale).max(1.0) as usize
}

fn at(n: usize) -> String {
    (chrono::Utc::now() - chrono::Duration::milliseconds(n as i64 * 50))
        .to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

fn id() -> String {
    uuid::Uuid::now_v7().to_string()
}

#[tokio::main]
async fn main() {
    let dir = std::env::args().nth(1).expect("usage: seed_workspace DIR");
    let ctx = colmena_core::workspace::open(OpenOptions {
        data_dir: dir.into(),
        secret_backend: BackendChoice::File,
    })
    .await
    .unwrap();
    let owner = ctx.owner().to_owned();
    let started = Instant::now();

    let (canvases, memories, messages, runs) = (
        scaled(1_000),
        scaled(100_000),
        scaled(1_000_000),
        scaled(10_000),
    );

    let user = owner.clone();
    ctx.store()
        .write(move |tx| {
            let mut canvas = tx.prepare(
                "INSERT INTO canvases (id, user_id, name, created_at, updated_at, last_active_at)
                 VALUES (?1, ?2, ?3, ?4, ?4, ?4)",
            )?;
            for n in 0..canvases {
                canvas.execute((id(), &user, format!("Canvas {n}"), at(n)))?;
            }
            let mut memory = tx.prepare(
                "INSERT INTO memories (id, user_id, title, content, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
            )?;
            for n in 0..memories {
                memory.execute((
                    id(),
                    &user,
                    format!("memory {n}"),
                    format!("Fact number {n}: the client prefers reports on Mondays, in PDF."),
                    at(n),
                ))?;
            }
            let mut run = tx.prepare(
                "INSERT INTO runs (id, kind, target_id, user_id, input, status, output, started_at, finished_at)
                 VALUES (?1, 'agent', 'seeded-agent', ?2, ?3, 'completed', 'Done.', ?4, ?4)",
            )?;
            for n in 0..runs {
                run.execute((id(), &user, format!("Task {n}"), at(n)))?;
            }
            Ok(())
        })
        .await
        .unwrap();

    // Mail between a few roles and the owner's own author.
    let mut authors = Vec::new();
    for n in 0..8 {
        let made = inbox::authors::create(
            &ctx,
            NewAuthor {
                name: format!("Seeded role {n}"),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        authors.push(made.author.id);
    }
    let me = inbox::authors::list(&ctx)
        .await
        .unwrap()
        .into_iter()
        .find(|a| a.is_owner)
        .map(|a| a.id);
    if let Some(me) = me {
        authors.push(me);
    }
    const BATCH: usize = 100_000;
    let mut sent = 0;
    while sent < messages {
        let (first, count, authors) = (sent, BATCH.min(messages - sent), authors.clone());
        ctx.store()
            .write(move |tx| {
                let mut insert = tx.prepare(
                    "INSERT INTO bus_messages (id, from_author, to_author, body, priority, created_at, read_at)
                     VALUES (?1, ?2, ?3, ?4, 'normal', ?5, ?5)",
                )?;
                for n in first..first + count {
                    let from = &authors[n % authors.len()];
                    let to = &authors[(n + 1) % authors.len()];
                    insert.execute((id(), from, to, format!("Message {n}: status of the weekly report."), at(n)))?;
                }
                Ok(())
            })
            .await
            .unwrap();
        sent += count;
    }
    let loaded = started.elapsed();
    ctx.reindex().await.unwrap();
    println!(
        "seeded {canvases} canvases, {memories} memories, {messages} messages, {runs} runs in {:.1} s (+ reindex {:.1} s)",
        loaded.as_secs_f64(),
        (started.elapsed() - loaded).as_secs_f64()
    );
    colmena_core::workspace::shutdown(&ctx).await;
}
