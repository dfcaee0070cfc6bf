//! Full-text search over the SQLite bus's messages, per author (issue 15,
//! item 4); `inbox::search` checks the query, this answers it.
//!
//! A tantivy index of its own (`bus-index/` in the data dir), apart from the
//! catalog index of `crate::search`: messages are many, written on the
//! hottest path there is, and searched only by the two authors of each.
//!
//! Why it is built this way:
//! - **Nothing in the send path.** `send` stays one grouped SQLite commit.
//!   The index is brought up to date when someone searches: the rows with a
//!   `seq` above the index's watermark (the seq and id of the newest row it
//!   has, kept in tantivy's commit payload) are indexed in one commit.
//! - **`seq` is a rowid without AUTOINCREMENT**, so deleting the newest
//!   message lets the next one take its number again. The watermark keeps
//!   the id as well: when the row at the watermark is gone or is another
//!   message, catch-up walks down from the top to the newest row the index
//!   really holds and indexes everything above it.
//! - **The store has the last word.** Every hit is read back from
//!   `bus_messages` with "the searcher is its sender or its recipient" in the
//!   same SQL, so a stale index (a deleted message, a copied data dir) never
//!   leaks or resurrects mail. The index's `owner` filter is only the fast
//!   path to the same answer.
//! - **Query text is user input**: tantivy's lenient parser (words, `"…"`,
//!   `AND`/`OR`, `-word`), words joined by AND; syntax it cannot read is
//!   dropped, never an error or a panic.
//!
//! Catch-up is serialised by a mutex in this process and by tantivy's writer
//! lock across processes (the app and the CLI), and the watermark is re-read
//! under that lock, so two processes never index a row twice.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use tantivy::collector::{Count, TopDocs};
use tantivy::directory::error::LockError;
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, QueryParser, TermQuery};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing,
    TextOptions, Value,
};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, TantivyError, Term};

use crate::error::{AppError, Result};
use crate::search::{TOKENIZER, register_tokenizer};

/// Folder of the index inside the data dir.
pub const INDEX_DIR: &str = "bus-index";
/// Bumped when the schema or tokenizer changes: an older index is rebuilt.
const SCHEMA_VERSION: u32 = 1;
const WRITER_HEAP: usize = 64 * 1024 * 1024;
const LOCK_RETRIES: u32 = 200;
const LOCK_RETRY_DELAY: Duration = Duration::from_millis(50);

#[derive(Clone, Copy)]
struct Fields {
    id: Field,
    owner: Field,
    seq: Field,
    body: Field,
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let fields = Fields {
        id: builder.add_text_field("id", STRING | STORED),
        // Multi-valued: the sender and the recipient.
        owner: builder.add_text_field("owner", STRING),
        seq: builder.add_i64_field("seq", INDEXED | STORED | FAST),
        body: builder.add_text_field("body", text),
    };
    (builder.build(), fields)
}

fn tantivy_error(context: &str) -> impl Fn(TantivyError) -> AppError + '_ {
    move |e| AppError::internal(format!("message search index: {context}: {e}"))
}

/// The newest row the index holds: its seq and id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Watermark {
    seq: i64,
    id: String,
}

#[derive(Serialize, Deserialize)]
struct Payload {
    schema: u32,
    #[serde(flatten)]
    mark: Watermark,
}

/// The open index of bus messages (one per open workspace, in its `Ctx`).
pub struct BusIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    /// What this process last saw committed; checked against the store's
    /// newest row before each search.
    seen: Mutex<Watermark>,
    /// Serialises this process's catch-ups; other processes wait on
    /// tantivy's writer lock.
    writing: Mutex<()>,
}

impl BusIndex {
    /// Opens `data_dir/bus-index`, creating it when missing and recreating
    /// it when unreadable or of another schema (it holds derived data only).
    pub fn open(data_dir: &Path) -> Result<BusIndex> {
        let dir = data_dir.join(INDEX_DIR);
        match Self::open_dir(&dir) {
            Ok(index) => Ok(index),
            Err(e) => {
                tracing::warn!("rebuilding the message search index: {}", e.message);
                if dir.exists() {
                    std::fs::remove_dir_all(&dir)?;
                }
                Self::open_dir(&dir)
            }
        }
    }

    fn open_dir(dir: &PathBuf) -> Result<BusIndex> {
        let (schema, fields) = schema();
        let index = if dir.join("meta.json").exists() {
            let index = Index::open_in_dir(dir).map_err(tantivy_error("cannot open"))?;
            if index.schema() != schema {
                return Err(AppError::internal(
                    "message search index: the schema changed",
                ));
            }
            index
        } else {
            std::fs::create_dir_all(dir)?;
            Index::create_in_dir(dir, schema).map_err(tantivy_error("cannot create"))?
        };
        register_tokenizer(&index);
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()
            .map_err(tantivy_error("cannot read"))?;
        let bus = BusIndex {
            index,
            reader,
            fields,
            seen: Mutex::new(Watermark::default()),
            writing: Mutex::new(()),
        };
        let committed = bus.committed()?;
        *bus.seen_lock()? = committed;
        Ok(bus)
    }

    fn seen_lock(&self) -> Result<std::sync::MutexGuard<'_, Watermark>> {
        self.seen
            .lock()
            .map_err(|_| AppError::internal("message search index: lock poisoned"))
    }

    /// The watermark on disk (any process's last commit); an index without
    /// one, or of an older schema version, holds nothing we trust.
    fn committed(&self) -> Result<Watermark> {
        let metas = self
            .index
            .load_metas()
            .map_err(tantivy_error("cannot read the commit"))?;
        Ok(metas
            .payload
            .as_deref()
            .and_then(|p| serde_json::from_str::<Payload>(p).ok())
            .filter(|p| p.schema == SCHEMA_VERSION)
            .map(|p| p.mark)
            .unwrap_or_default())
    }

    /// Live documents in the index (stale ones of deleted mail included).
    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Indexes the rows the index does not have yet; returns how many.
    /// Cheap when nothing changed: one indexed SQLite lookup.
    pub fn catch_up(&self, conn: &Connection) -> Result<usize> {
        let top = top_row(conn)?;
        if *self.seen_lock()? == top {
            return Ok(0);
        }
        let _turn = self
            .writing
            .lock()
            .map_err(|_| AppError::internal("message search index: writer lock poisoned"))?;
        let mut writer = self.take_writer()?;
        // Under the writer lock: what is really committed, by anyone.
        let committed = self.committed()?;
        self.reader
            .reload()
            .map_err(tantivy_error("cannot reload"))?;
        let top = top_row(conn)?;
        if committed == top {
            *self.seen_lock()? = top;
            return Ok(0);
        }
        let start = self.resume_after(conn, &committed, &top)?;
        let f = self.fields;
        let mut added = 0;
        let mut stmt = conn.prepare(
            "SELECT seq, id, from_author, to_author, body FROM bus_messages
             WHERE seq > ?1 AND seq <= ?2 ORDER BY seq",
        )?;
        let mut rows = stmt.query(params![start, top.seq])?;
        while let Some(row) = rows.next()? {
            let mut doc = TantivyDocument::default();
            doc.add_i64(f.seq, row.get(0)?);
            doc.add_text(f.id, row.get::<_, String>(1)?);
            doc.add_text(f.owner, row.get::<_, String>(2)?);
            doc.add_text(f.owner, row.get::<_, String>(3)?);
            doc.add_text(f.body, row.get::<_, String>(4)?);
            writer
                .add_document(doc)
                .map_err(tantivy_error("cannot add a message"))?;
            added += 1;
        }
        let payload = serde_json::to_string(&Payload {
            schema: SCHEMA_VERSION,
            mark: top.clone(),
        })?;
        let mut commit = writer
            .prepare_commit()
            .map_err(tantivy_error("cannot commit"))?;
        commit.set_payload(&payload);
        commit.commit().map_err(tantivy_error("cannot commit"))?;
        writer
            .wait_merging_threads()
            .map_err(tantivy_error("cannot merge"))?;
        self.reader
            .reload()
            .map_err(tantivy_error("cannot reload"))?;
        *self.seen_lock()? = top;
        Ok(added)
    }

    /// The seq above which rows are missing from the index. Normally the
    /// watermark's; when its row is gone or is another message (a rowid
    /// taken again after the newest message was deleted), the newest row the
    /// index does hold.
    fn resume_after(
        &self,
        conn: &Connection,
        committed: &Watermark,
        top: &Watermark,
    ) -> Result<i64> {
        let at_mark: Option<String> = conn
            .prepare_cached("SELECT id FROM bus_messages WHERE seq = ?1")?
            .query_row([committed.seq], |r| r.get(0))
            .optional()?;
        if committed.seq > 0 && at_mark.as_deref() == Some(committed.id.as_str()) {
            return Ok(committed.seq);
        }
        let searcher = self.reader.searcher();
        let mut stmt =
            conn.prepare("SELECT seq, id FROM bus_messages WHERE seq <= ?1 ORDER BY seq DESC")?;
        let mut rows = stmt.query([committed.seq.min(top.seq)])?;
        while let Some(row) = rows.next()? {
            let id: String = row.get(1)?;
            let held = searcher
                .search(
                    &TermQuery::new(
                        Term::from_field_text(self.fields.id, &id),
                        IndexRecordOption::Basic,
                    ),
                    &Count,
                )
                .map_err(tantivy_error("cannot look up a message"))?;
            if held > 0 {
                return Ok(row.get(0)?);
            }
        }
        Ok(0)
    }

    /// Takes the index writer, waiting for another process to release it.
    fn take_writer(&self) -> Result<IndexWriter> {
        let mut attempts = 0;
        loop {
            match self.index.writer(WRITER_HEAP) {
                Ok(writer) => return Ok(writer),
                Err(TantivyError::LockFailure(LockError::LockBusy, _))
                    if attempts < LOCK_RETRIES =>
                {
                    attempts += 1;
                    std::thread::sleep(LOCK_RETRY_DELAY);
                }
                Err(e) => return Err(tantivy_error("cannot take the writer")(e)),
            }
        }
    }

    /// Ids of `author`'s messages matching `text`, best first, then newest.
    pub(super) fn hits(&self, author: &str, text: &str, wanted: usize) -> Result<Vec<String>> {
        let f = self.fields;
        let mut parser = QueryParser::for_index(&self.index, vec![f.body]);
        parser.set_conjunction_by_default();
        let owner = || -> Box<dyn Query> {
            Box::new(ConstScoreQuery::new(
                Box::new(TermQuery::new(
                    Term::from_field_text(f.owner, author),
                    IndexRecordOption::Basic,
                )),
                0.0,
            ))
        };
        let searcher = self.reader.searcher();
        let run = |text: &str| {
            let (typed, _ignored) = parser.parse_query_lenient(text);
            let query = BooleanQuery::new(vec![(Occur::Must, typed), (Occur::Must, owner())]);
            searcher.search(&query, &TopDocs::with_limit(wanted).order_by_score())
        };
        // Syntax the parser reads but the index cannot answer (`id:*` on a
        // field that is not fast, say) is searched again as plain words.
        let top = match run(text) {
            Ok(top) => top,
            Err(_) => {
                let words: String = text
                    .chars()
                    .map(|c| if c.is_alphanumeric() { c } else { ' ' })
                    .collect();
                run(&words).map_err(tantivy_error("search failed"))?
            }
        };
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let doc: TantivyDocument = searcher
                .doc(address)
                .map_err(tantivy_error("cannot read a hit"))?;
            let seq = doc.get_first(f.seq).and_then(|v| v.as_i64()).unwrap_or(0);
            let Some(id) = doc.get_first(f.id).and_then(|v| v.as_str()) else {
                continue;
            };
            hits.push((score, seq, id.to_owned()));
        }
        hits.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
        let mut seen = std::collections::HashSet::new();
        Ok(hits
            .into_iter()
            .filter_map(|(_, _, id)| seen.insert(id.clone()).then_some(id))
            .collect())
    }
}

fn top_row(conn: &Connection) -> Result<Watermark> {
    Ok(conn
        .prepare_cached("SELECT seq, id FROM bus_messages ORDER BY seq DESC LIMIT 1")?
        .query_row([], |r| {
            Ok(Watermark {
                seq: r.get(0)?,
                id: r.get(1)?,
            })
        })
        .optional()?
        .unwrap_or_default())
}
