//! Bus message search at scale (BENCHMARKS.md, issue 15 item 4): 100,000
//! messages between 50 authors in a real workspace, then
//! - the first catch-up (indexing every message, what the first search
//!   after an upgrade pays),
//! - p50/p95/p99 of `inbox::search::search` end to end (watermark check,
//!   BM25 query with the owner filter, the store re-check of every hit),
//! - a search right after one new message (catch-up of one row + commit),
//! - and, over the same rows, the SQLite scan a search would be without the
//!   index: `(from = ? OR to = ?) AND body LIKE '%word%'`, newest 20.
//!
//! Words are drawn from 5,000 made-up words with a Zipf distribution;
//! queries are one or two words, any but the 50 most frequent.
//!
//! Run: `cargo bench -p colmena-core --bench bus_search`
//! (`COLMENA_BENCH_MESSAGES=N` changes the size).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use colmena_core::inbox::{self, Caller, NewAuthor, SendMessage};
use colmena_core::secrets::BackendChoice;
use colmena_core::{Ctx, OpenOptions};

const AUTHORS: usize = 50;
const VOCABULARY: usize = 5000;
const WORDS_PER_MESSAGE: usize = 24;
const QUERIES: usize = 2000;
const WARM_UP: usize = 200;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A pronounceable made-up word for rank `n`.
fn word(n: usize) -> String {
    const SYLLABLES: [&str; 20] = [
        "ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "da", "fe", "gu", "ha", "ji", "ko", "lu",
        "ma", "no", "pe", "sa", "vi",
    ];
    let mut out = String::new();
    let mut n = n + 20;
    while n > 0 {
        out.push_str(SYLLABLES[n % 20]);
        n /= 20;
    }
    out
}

struct Zipf(Vec<f64>);

impl Zipf {
    fn new(n: usize) -> Zipf {
        let mut total = 0.0;
        let cumulative = (1..=n)
            .map(|k| {
                total += 1.0 / k as f64;
                total
            })
            .collect::<Vec<_>>();
        Zipf(cumulative.into_iter().map(|c| c / total).collect())
    }
    fn sample(&self, rng: &mut Rng) -> usize {
        let x = (rng.next() % 1_000_000_000) as f64 / 1e9;
        self.0.partition_point(|&c| c < x).min(self.0.len() - 1)
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn report(name: &str, mut times: Vec<Duration>) -> Duration {
    times.sort();
    let p50 = percentile(&times, 0.5);
    println!(
        "{name}: p50 {} p95 {} p99 {} max {}",
        ms(p50),
        ms(percentile(&times, 0.95)),
        ms(percentile(&times, 0.99)),
        ms(*times.last().unwrap())
    );
    p50
}

#[tokio::main]
async fn main() {
    let count: usize = std::env::var("COLMENA_BENCH_MESSAGES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir().unwrap();
    let ctx = colmena_core::workspace::open(OpenOptions {
        data_dir: dir.path().to_owned(),
        secret_backend: BackendChoice::File,
    })
    .await
    .unwrap();
    let mut authors = Vec::new();
    for n in 0..AUTHORS {
        let created = inbox::authors::create(
            &ctx,
            NewAuthor {
                name: format!("Author {n}"),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        authors.push(created.author.id);
    }
    let zipf = Zipf::new(VOCABULARY);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut rows = Vec::with_capacity(count);
    for n in 0..count {
        let from = authors[rng.below(AUTHORS)].clone();
        let mut to = authors[rng.below(AUTHORS)].clone();
        if to == from {
            to = authors[(n + 1) % AUTHORS].clone();
        }
        let body = (0..WORDS_PER_MESSAGE)
            .map(|_| word(zipf.sample(&mut rng)))
            .collect::<Vec<_>>()
            .join(" ");
        rows.push((from, to, body));
    }
    let loaded = Instant::now();
    insert_messages(&ctx, rows).await;
    println!(
        "bulk insert of {count} messages: {:.2} s",
        loaded.elapsed().as_secs_f64()
    );

    let indexed = Instant::now();
    let added = inbox::search::catch_up(&ctx).await.unwrap();
    let took = indexed.elapsed();
    println!(
        "first catch-up: {added} messages in {:.2} s ({:.0} msg/s)",
        took.as_secs_f64(),
        added as f64 / took.as_secs_f64()
    );
    let size: u64 = walk_size(&dir.path().join(inbox::search::INDEX_DIR));
    println!("index size on disk: {:.1} MB", size as f64 / 1e6);

    let ui = Caller::ui(&ctx);
    let queries: Vec<(String, String)> = (0..QUERIES + WARM_UP)
        .map(|i| {
            let pick = |rng: &mut Rng| word(50 + rng.below(VOCABULARY - 50));
            let text = if i % 2 == 0 {
                pick(&mut rng)
            } else {
                format!("{} {}", word(50 + rng.below(200)), pick(&mut rng))
            };
            (authors[rng.below(AUTHORS)].clone(), text)
        })
        .collect();
    let mut times = Vec::with_capacity(QUERIES);
    let mut hits = 0;
    for (i, (author, text)) in queries.iter().enumerate() {
        let started = Instant::now();
        let found = inbox::search::search(&ctx, &ui, author, text, None)
            .await
            .unwrap();
        if i >= WARM_UP {
            times.push(started.elapsed());
            hits += found.len();
        }
    }
    println!(
        "average hits per query: {:.1}",
        hits as f64 / QUERIES as f64
    );
    let indexed_p50 = report("search (index, end to end)", times);

    // One word only, for the scan (LIKE has no AND of words).
    let mut times = Vec::with_capacity(QUERIES);
    for (i, (author, text)) in queries.iter().enumerate().take(QUERIES / 4 + WARM_UP / 4) {
        let word = text.split_whitespace().last().unwrap().to_owned();
        let author = author.clone();
        let started = Instant::now();
        let n = ctx
            .store()
            .read(move |conn| {
                let mut stmt = conn.prepare_cached(
                    "SELECT id, from_author, to_author, body, priority, created_at, read_at
                     FROM bus_messages
                     WHERE (from_author = ?1 OR to_author = ?1) AND body LIKE ?2
                     ORDER BY seq DESC LIMIT 20",
                )?;
                let rows =
                    stmt.query_map((&author, format!("%{word}%")), |r| r.get::<_, String>(0))?;
                Ok(rows.count())
            })
            .await
            .unwrap();
        std::hint::black_box(n);
        if i >= WARM_UP / 4 {
            times.push(started.elapsed());
        }
    }
    let scan_p50 = report("SQLite LIKE '%word%' scan, same rows", times);
    println!(
        "scan p50 / index p50: {:.1}x",
        scan_p50.as_secs_f64() / indexed_p50.as_secs_f64()
    );

    // Freshness: one new message, then a search that indexes it first.
    let mut times = Vec::new();
    for i in 0..100 {
        inbox::messages::send(
            &ctx,
            &ui,
            &authors[0],
            &authors[1],
            SendMessage {
                body: format!("fresh note {i} {}", word(60 + i)),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        let started = Instant::now();
        let found = inbox::search::search(
            &ctx,
            &ui,
            &authors[1],
            &format!("fresh {}", word(60 + i)),
            None,
        )
        .await
        .unwrap();
        times.push(started.elapsed());
        assert!(!found.is_empty());
    }
    report("search right after one new message (catch-up of 1)", times);
}

fn walk_size(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.metadata().map(|m| m.len()).unwrap_or(0))
                .sum()
        })
        .unwrap_or(0)
}

/// Bulk loading for the benchmark only: one transaction of plain inserts,
/// the shape `inbox::messages::send` writes.
async fn insert_messages(ctx: &Ctx, rows: Vec<(String, String, String)>) {
    ctx.store()
        .write(move |tx| {
            let mut insert = tx.prepare(
                "INSERT INTO bus_messages (id, from_author, to_author, body, priority, created_at)
                 VALUES (?1, ?2, ?3, ?4, 'normal', ?5)",
            )?;
            let start = chrono::Utc::now() - chrono::Duration::days(30);
            for (n, (from, to, body)) in rows.into_iter().enumerate() {
                let at = (start + chrono::Duration::milliseconds(n as i64 * 2))
                    .to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
                insert.execute((uuid::Uuid::now_v7().to_string(), from, to, body, at))?;
            }
            Ok(())
        })
        .await
        .unwrap();
}
