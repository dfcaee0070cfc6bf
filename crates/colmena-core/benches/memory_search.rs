//! Memory search at scale (BENCHMARKS.md): 100,000 memories of one user in
//! a real workspace, then p50/p99 of `memory::search` (index query, owner
//! filter, snippets and the store lookup of each hit), the time to index
//! them all, and the cost of a single write with its index update.
//!
//! Two corpora: *natural* — words drawn from a 5,000-word vocabulary with a
//! Zipf distribution, like real notes, and queries made of words people
//! search for (any but the 50 most frequent, uniformly) — and *narrow* — 56
//! words only, so every query matches most of the 100,000 memories (the
//! worst case for ranking). Queries are one word, two words, or the first
//! four letters of a word (search as you type), in equal parts.
//!
//! Run: `cargo bench -p colmena-core --bench memory_search`
//! (`COLMENA_BENCH_MEMORIES=N` changes the size).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use colmena_core::Caller;
use colmena_core::secrets::BackendChoice;
use colmena_core::{OpenOptions, memory, search};

const WORDS: &[&str] = &[
    "presupuesto",
    "viaje",
    "hotel",
    "reunión",
    "cliente",
    "factura",
    "proyecto",
    "lanzamiento",
    "diseño",
    "budget",
    "meeting",
    "invoice",
    "release",
    "roadmap",
    "deadline",
    "contract",
    "marketing",
    "campaign",
    "newsletter",
    "agent",
    "swarm",
    "research",
    "report",
    "quarterly",
    "revenue",
    "supplier",
    "Lisboa",
    "Madrid",
    "Berlin",
    "Tokyo",
    "python",
    "rust",
    "database",
    "migration",
    "backup",
    "password",
    "doctor",
    "dentist",
    "birthday",
    "anniversary",
    "gift",
    "restaurant",
    "recipe",
    "garden",
    "bicycle",
    "insurance",
    "mortgage",
    "tax",
    "holiday",
    "flight",
    "train",
    "ticket",
    "museum",
    "concert",
    "book",
    "podcast",
];

const SYLLABLES: &[&str] = &[
    "ba", "ce", "di", "fo", "gu", "la", "me", "ni", "po", "ru", "sa", "te", "vi", "lo", "mu", "ra",
    "de", "ki", "no", "pe", "ta", "zo", "cha", "ri", "so",
];

/// A vocabulary and how words are drawn from it.
struct Corpus {
    words: Vec<String>,
    /// Cumulative Zipf weights (empty: uniform).
    cumulative: Vec<f64>,
}

impl Corpus {
    fn narrow() -> Corpus {
        Corpus {
            words: WORDS.iter().map(|w| (*w).to_owned()).collect(),
            cumulative: Vec::new(),
        }
    }

    fn natural(size: usize) -> Corpus {
        let mut words: Vec<String> = WORDS.iter().map(|w| (*w).to_owned()).collect();
        let mut n = 0u64;
        while words.len() < size {
            let mut word = String::new();
            let mut k = n;
            for _ in 0..(2 + n % 3) {
                word.push_str(SYLLABLES[(k % SYLLABLES.len() as u64) as usize]);
                k /= SYLLABLES.len() as u64;
                k += n % 7;
            }
            if !words.contains(&word) {
                words.push(word);
            }
            n += 1;
        }
        let mut total = 0.0;
        let cumulative = (1..=words.len())
            .map(|rank| {
                total += 1.0 / (rank as f64).powf(1.07);
                total
            })
            .collect();
        Corpus { words, cumulative }
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn word<'c>(&mut self, corpus: &'c Corpus) -> &'c str {
        if corpus.cumulative.is_empty() {
            return &corpus.words[(self.next() % corpus.words.len() as u64) as usize];
        }
        let total = *corpus.cumulative.last().unwrap_or(&1.0);
        let x = (self.next() as f64 / u64::MAX as f64) * total;
        let at = corpus
            .cumulative
            .partition_point(|&c| c < x)
            .min(corpus.words.len() - 1);
        &corpus.words[at]
    }
    /// A word someone would search for: any word but the 50 most frequent
    /// (the "the" and "de" of the corpus), uniformly.
    fn query_word<'c>(&mut self, corpus: &'c Corpus) -> &'c str {
        if corpus.cumulative.is_empty() {
            return self.word(corpus);
        }
        let pool = &corpus.words[50..];
        &pool[(self.next() % pool.len() as u64) as usize]
    }
    fn sentence(&mut self, corpus: &Corpus, words: usize) -> String {
        (0..words)
            .map(|_| self.word(corpus))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let count: usize = std::env::var("COLMENA_BENCH_MEMORIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    println!("== natural text (Zipf over 5,000 words) ==");
    runtime.block_on(run(count, Corpus::natural(5_000)));
    println!("\n== narrow text (56 words: every query matches most memories) ==");
    runtime.block_on(run(count, Corpus::narrow()));
}

async fn run(count: usize, corpus: Corpus) {
    {
        let dir = tempfile::tempdir().unwrap();
        let ctx = colmena_core::workspace::open(OpenOptions {
            data_dir: dir.path().to_owned(),
            secret_backend: BackendChoice::File,
        })
        .await
        .unwrap();
        let owner = ctx.owner().to_owned();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);

        // Bulk load through the store, then index everything: the path of a
        // restore or a `colmena reindex`.
        let rows: Vec<(String, String)> = (0..count)
            .map(|i| {
                (
                    format!("{} {i}", rng.sentence(&corpus, 3)),
                    rng.sentence(&corpus, 40),
                )
            })
            .collect();
        let started = Instant::now();
        ctx.store()
            .write(move |tx| {
                let now = chrono::Utc::now();
                let mut insert = tx.prepare(
                    "INSERT INTO memories (id, user_id, title, content, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                )?;
                for (title, content) in &rows {
                    insert.execute(rusqlite::params![format!("{owner}:{title}"), owner, title, content, now])?;
                }
                search::bump_generation(tx)
            })
            .await
            .unwrap();
        let stored = started.elapsed();
        let started = Instant::now();
        let documents = ctx.reindex().await.unwrap();
        let indexed = started.elapsed();

        // A single write as the app does it: store commit, then index commit.
        let mut writes = Vec::new();
        for i in 0..200 {
            let started = Instant::now();
            memory::write(
                &ctx,
                &Caller::ui(&ctx),
                &format!("fresh {i}"),
                &rng.sentence(&corpus, 40),
            )
            .await
            .unwrap();
            writes.push(started.elapsed());
        }
        writes.sort();

        // Searches: one word, two words, and a prefix as typed.
        let mut queries = Vec::new();
        for i in 0..3_000 {
            queries.push(match i % 3 {
                0 => rng.query_word(&corpus).to_owned(),
                1 => format!("{} {}", rng.query_word(&corpus), rng.query_word(&corpus)),
                _ => rng.query_word(&corpus).chars().take(4).collect(),
            });
        }
        for q in queries.iter().take(200) {
            memory::search(&ctx, &Caller::ui(&ctx), q, Some(20))
                .await
                .unwrap();
        }
        let index = search::SearchIndex::open(dir.path()).unwrap();
        let mut detail = vec![format!(
            "index segments           {}",
            index.segment_count()
        )];
        let mut raw = Vec::with_capacity(queries.len());
        for q in &queries {
            let query = search::SearchQuery {
                text: q.clone(),
                kinds: vec![search::DocKind::Memory],
                owner: Some(ctx.owner().to_owned()),
                active_only: false,
                limit: 20,
            };
            let started = Instant::now();
            index.search(&query).unwrap();
            raw.push(started.elapsed());
        }
        for (kind, name) in ["one word", "two words", "prefix"].iter().enumerate() {
            let mut of_kind: Vec<Duration> = raw
                .iter()
                .enumerate()
                .filter(|(i, _)| i % 3 == kind)
                .map(|(_, d)| *d)
                .collect();
            of_kind.sort();
            detail.push(format!(
                "index only, {name:<12} p50 {}  p99 {}",
                ms(percentile(&of_kind, 0.50)),
                ms(percentile(&of_kind, 0.99))
            ));
        }
        raw.sort();
        detail.push(format!(
            "index only, all          p50 {}  p99 {}",
            ms(percentile(&raw, 0.50)),
            ms(percentile(&raw, 0.99))
        ));
        let mut hops = Vec::new();
        for _ in 0..2000 {
            let started = Instant::now();
            ctx.store().read(|_| Ok(())).await.unwrap();
            hops.push(started.elapsed());
        }
        hops.sort();
        detail.push(format!(
            "store read hop           p50 {}  p99 {}",
            ms(percentile(&hops, 0.50)),
            ms(percentile(&hops, 0.99))
        ));
        let mut latencies = Vec::with_capacity(queries.len());
        let mut hits = 0usize;
        for q in &queries {
            let started = Instant::now();
            hits += memory::search(&ctx, &Caller::ui(&ctx), q, Some(20))
                .await
                .unwrap()
                .len();
            latencies.push(started.elapsed());
        }
        latencies.sort();

        println!("memories                 {count}");
        println!("documents indexed        {documents}");
        println!("bulk insert into store   {:.2} s", stored.as_secs_f64());
        println!(
            "index build (reindex)    {:.2} s ({:.0} docs/s)",
            indexed.as_secs_f64(),
            documents as f64 / indexed.as_secs_f64()
        );
        println!("write + index, p50       {}", ms(percentile(&writes, 0.50)));
        println!("write + index, p99       {}", ms(percentile(&writes, 0.99)));
        println!(
            "search ({} queries)    p50 {}",
            queries.len(),
            ms(percentile(&latencies, 0.50))
        );
        println!(
            "                         p90 {}",
            ms(percentile(&latencies, 0.90))
        );
        println!(
            "                         p99 {}",
            ms(percentile(&latencies, 0.99))
        );
        println!(
            "                         max {}",
            ms(*latencies.last().unwrap())
        );
        println!(
            "hits per query (avg)     {:.1}",
            hits as f64 / queries.len() as f64
        );
        let size: u64 = walk(&dir.path().join(search::INDEX_DIR));
        println!("index size on disk       {:.1} MB", size as f64 / 1e6);
        for line in detail {
            println!("{line}");
        }
    }
}

fn walk(path: &std::path::Path) -> u64 {
    std::fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| {
                    if e.path().is_dir() {
                        walk(&e.path())
                    } else {
                        e.metadata().map(|m| m.len()).unwrap_or(0)
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}
