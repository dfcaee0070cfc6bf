//! The full-text index: tantivy (BM25) over skills, tools and memories.
//!
//! It holds derived data only. Every searchable write bumps a *generation*
//! number in the store inside its own transaction; after the commit the
//! change is applied to the index and the index's commit payload records the
//! generation it reflects. At start-up an index that is missing, unreadable,
//! of another schema, or behind the store's generation is rebuilt from the
//! store — so deleting the `index/` folder, or a crash between the two
//! commits, costs a rebuild and never a wrong answer. `colmena reindex`
//! forces one.
//!
//! The writer is taken per batch (not held), so the app and the CLI can both
//! update the same index: tantivy's writer lock makes them take turns.

mod docs;
mod query;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use tantivy::directory::error::LockError;
use tantivy::schema::{
    Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, RemoveLongFilter, SimpleTokenizer, TextAnalyzer, TokenStream,
};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, TantivyError, Term};

use crate::error::{AppError, Result};
use crate::store::meta;

pub use docs::{all_docs, memory_doc, skill_doc, tool_doc};
pub use query::{SearchHit, SearchQuery, SnippetPart};

/// Folder of the index inside the data dir.
pub const INDEX_DIR: &str = "index";
/// Bumped when the index schema or tokenizer changes: an older index is rebuilt.
const SCHEMA_VERSION: u32 = 1;
pub(crate) const TOKENIZER: &str = "colmena_text";
const META_GENERATION: &str = "search_generation";
const WRITER_HEAP: usize = 32 * 1024 * 1024;
const LOCK_RETRIES: u32 = 100;
const LOCK_RETRY_DELAY: Duration = Duration::from_millis(50);

/// What a search hit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum DocKind {
    Skill,
    Tool,
    Memory,
}

impl DocKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DocKind::Skill => "skill",
            DocKind::Tool => "tool",
            DocKind::Memory => "memory",
        }
    }

    fn parse(text: &str) -> Option<DocKind> {
        match text {
            "skill" => Some(DocKind::Skill),
            "tool" => Some(DocKind::Tool),
            "memory" => Some(DocKind::Memory),
            _ => None,
        }
    }
}

/// One document of the index, built from a store row.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchDoc {
    pub kind: DocKind,
    pub id: String,
    /// The user a memory belongs to; `None` for shared things.
    pub owner: Option<String>,
    pub title: String,
    pub body: String,
    pub active: bool,
}

#[derive(Clone, Copy)]
struct Fields {
    key: Field,
    kind: Field,
    id: Field,
    owner: Field,
    active: Field,
    title: Field,
    body: Field,
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let text = TextOptions::default()
        .set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
        .set_stored();
    let fields = Fields {
        key: builder.add_text_field("key", STRING),
        kind: builder.add_text_field("kind", STRING | STORED),
        id: builder.add_text_field("id", STRING | STORED),
        owner: builder.add_text_field("owner", STRING | STORED),
        active: builder.add_text_field("active", STRING),
        title: builder.add_text_field("title", text.clone()),
        body: builder.add_text_field("body", text),
    };
    (builder.build(), fields)
}

/// Words split on anything that is not a letter or digit, lowercased, with
/// accents folded: "Diseño" and "diseno" are the same word.
pub(crate) fn register_tokenizer(index: &Index) {
    let analyzer = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build();
    index.tokenizers().register(TOKENIZER, analyzer);
}

/// `text` with each word lowercased and its accents folded as this index
/// does, everything between the words kept as is: the bus's PostgreSQL
/// store indexes and queries this, so its full-text search treats
/// "Diseño" and "DISENO" alike, as tantivy does (a query keeps its quotes
/// and minus signs).
pub(crate) fn fold_words(text: &str) -> String {
    let mut analyzer = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build();
    let mut stream = analyzer.token_stream(text);
    let mut folded = String::with_capacity(text.len());
    let mut at = 0;
    while stream.advance() {
        let token = stream.token();
        folded.push_str(&text[at..token.offset_from]);
        folded.push_str(&token.text);
        at = token.offset_to;
    }
    folded.push_str(&text[at..]);
    folded
}

fn key_of(kind: DocKind, id: &str) -> String {
    format!("{}:{id}", kind.as_str())
}

fn tantivy_error(context: &str) -> impl Fn(TantivyError) -> AppError + '_ {
    move |e| AppError::internal(format!("search index: {context}: {e}"))
}

/// The open index.
pub struct SearchIndex {
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    fields: Fields,
    /// Serialises this process's writers; other processes wait on tantivy's lock.
    writing: Mutex<()>,
}

/// The generation the store is at (0 before any searchable write).
pub fn store_generation(conn: &Connection) -> Result<i64> {
    Ok(meta::get(conn, META_GENERATION)?
        .and_then(|g| g.parse().ok())
        .unwrap_or(0))
}

/// Bumps the store's generation inside a write transaction; returns the new one.
pub fn bump_generation(conn: &Connection) -> Result<i64> {
    let next = store_generation(conn)? + 1;
    meta::set(conn, META_GENERATION, &next.to_string())?;
    Ok(next)
}

#[derive(Serialize, Deserialize)]
struct Payload {
    schema: u32,
    generation: i64,
}

impl SearchIndex {
    /// Opens the index in `data_dir/index`, creating an empty one if the
    /// folder is missing. Fails on an unreadable index (the caller rebuilds).
    pub fn open(data_dir: &Path) -> Result<SearchIndex> {
        let dir = data_dir.join(INDEX_DIR);
        let (schema, fields) = schema();
        let index = if dir.join("meta.json").exists() {
            let index = Index::open_in_dir(&dir).map_err(tantivy_error("cannot open"))?;
            if index.schema() != schema {
                return Err(AppError::internal("search index: the schema changed"));
            }
            index
        } else {
            std::fs::create_dir_all(&dir)?;
            Index::create_in_dir(&dir, schema).map_err(tantivy_error("cannot create"))?
        };
        register_tokenizer(&index);
        // Segments are searched in parallel: on a desktop the cores are idle
        // while someone types into a search box.
        let mut index = index;
        if let Err(e) = index.set_default_multithread_executor() {
            tracing::debug!("search stays single-threaded: {e}");
        }
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()
            .map_err(tantivy_error("cannot read"))?;
        Ok(SearchIndex {
            dir,
            index,
            reader,
            fields,
            writing: Mutex::new(()),
        })
    }

    /// Deletes the folder and creates an empty index.
    pub fn recreate(data_dir: &Path) -> Result<SearchIndex> {
        let dir = data_dir.join(INDEX_DIR);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        SearchIndex::open(data_dir)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The store generation this index reflects, or `None` for an empty or
    /// foreign index.
    pub fn generation(&self) -> Option<i64> {
        let metas = self.index.load_metas().ok()?;
        let payload: Payload = serde_json::from_str(metas.payload.as_deref()?).ok()?;
        (payload.schema == SCHEMA_VERSION).then_some(payload.generation)
    }

    /// How many segments the reader sees (many small ones slow queries down).
    pub fn segment_count(&self) -> usize {
        self.reader.searcher().segment_readers().len()
    }

    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Applies upserts and deletions, recording `generation` (never moving it back).
    pub fn apply(
        &self,
        upserts: &[SearchDoc],
        deletes: &[(DocKind, String)],
        generation: i64,
    ) -> Result<()> {
        let generation = generation.max(self.generation().unwrap_or(0));
        self.with_writer(
            |writer| {
                for (kind, id) in deletes {
                    writer.delete_term(Term::from_field_text(self.fields.key, &key_of(*kind, id)));
                }
                for doc in upserts {
                    writer.delete_term(Term::from_field_text(
                        self.fields.key,
                        &key_of(doc.kind, &doc.id),
                    ));
                    writer
                        .add_document(self.document(doc))
                        .map_err(tantivy_error("cannot add a document"))?;
                }
                Ok(())
            },
            generation,
        )
    }

    /// Replaces the whole content with `docs`.
    pub fn rebuild(&self, docs: &[SearchDoc], generation: i64) -> Result<()> {
        self.with_writer(
            |writer| {
                writer
                    .delete_all_documents()
                    .map_err(tantivy_error("cannot clear"))?;
                for doc in docs {
                    writer
                        .add_document(self.document(doc))
                        .map_err(tantivy_error("cannot add a document"))?;
                }
                Ok(())
            },
            generation,
        )
    }

    fn with_writer(
        &self,
        work: impl FnOnce(&mut IndexWriter) -> Result<()>,
        generation: i64,
    ) -> Result<()> {
        let _turn = self
            .writing
            .lock()
            .map_err(|_| AppError::internal("search index: writer lock poisoned"))?;
        let mut writer = self.take_writer()?;
        work(&mut writer)?;
        let payload = serde_json::to_string(&Payload {
            schema: SCHEMA_VERSION,
            generation,
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
        Ok(())
    }

    /// Takes the index writer, waiting for another process to release it.
    fn take_writer(&self) -> Result<IndexWriter> {
        let mut attempts = 0;
        loop {
            match self.index.writer_with_num_threads(1, WRITER_HEAP) {
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

    fn document(&self, doc: &SearchDoc) -> TantivyDocument {
        let f = self.fields;
        let mut out = TantivyDocument::default();
        out.add_text(f.key, key_of(doc.kind, &doc.id));
        out.add_text(f.kind, doc.kind.as_str());
        out.add_text(f.id, &doc.id);
        out.add_text(f.owner, doc.owner.as_deref().unwrap_or(""));
        out.add_text(f.active, if doc.active { "1" } else { "0" });
        out.add_text(f.title, &doc.title);
        out.add_text(f.body, &doc.body);
        out
    }

    fn stored_text(doc: &TantivyDocument, field: Field) -> String {
        doc.get_first(field)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned()
    }
}

/// Opens the index and rebuilds it from the store when it is missing,
/// unreadable or behind. Returns the index and whether it was rebuilt.
pub fn open_or_repair(data_dir: &Path, conn: &Connection) -> Result<(SearchIndex, bool)> {
    let generation = store_generation(conn)?;
    let index = match SearchIndex::open(data_dir) {
        Ok(index) if index.generation() == Some(generation) => return Ok((index, false)),
        Ok(index) => index,
        Err(e) => {
            tracing::warn!("rebuilding the search index: {}", e.message);
            SearchIndex::recreate(data_dir)?
        }
    };
    index.rebuild(&all_docs(conn)?, generation)?;
    Ok((index, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(kind: DocKind, id: &str, owner: Option<&str>, title: &str, body: &str) -> SearchDoc {
        SearchDoc {
            kind,
            id: id.into(),
            owner: owner.map(Into::into),
            title: title.into(),
            body: body.into(),
            active: true,
        }
    }

    #[test]
    fn accents_are_folded_and_prefixes_match_as_you_type() {
        let dir = tempfile::tempdir().unwrap();
        let index = SearchIndex::open(dir.path()).unwrap();
        index
            .apply(
                &[doc(
                    DocKind::Skill,
                    "diseno",
                    None,
                    "Diseño gráfico",
                    "Paletas y tipografía",
                )],
                &[],
                1,
            )
            .unwrap();
        for text in ["diseno", "DISEÑO", "tipografia", "pale"] {
            let hits = index.search(&SearchQuery::new(text)).unwrap();
            assert_eq!(hits.len(), 1, "{text}");
        }
    }

    #[test]
    fn upserting_replaces_and_deleting_removes() {
        let dir = tempfile::tempdir().unwrap();
        let index = SearchIndex::open(dir.path()).unwrap();
        index
            .apply(&[doc(DocKind::Tool, "t", None, "alpha", "one")], &[], 1)
            .unwrap();
        index
            .apply(&[doc(DocKind::Tool, "t", None, "beta", "two")], &[], 2)
            .unwrap();
        assert!(index.search(&SearchQuery::new("alpha")).unwrap().is_empty());
        assert_eq!(index.search(&SearchQuery::new("beta")).unwrap().len(), 1);
        index.apply(&[], &[(DocKind::Tool, "t".into())], 3).unwrap();
        assert!(index.search(&SearchQuery::new("beta")).unwrap().is_empty());
        assert_eq!(index.generation(), Some(3));
    }

    #[test]
    fn the_recorded_generation_never_moves_back() {
        let dir = tempfile::tempdir().unwrap();
        let index = SearchIndex::open(dir.path()).unwrap();
        index.apply(&[], &[], 7).unwrap();
        index.apply(&[], &[], 5).unwrap();
        assert_eq!(index.generation(), Some(7));
    }

    #[test]
    fn a_corrupt_index_fails_to_open_and_can_be_recreated() {
        let dir = tempfile::tempdir().unwrap();
        SearchIndex::open(dir.path()).unwrap();
        std::fs::write(dir.path().join(INDEX_DIR).join("meta.json"), b"{ not json").unwrap();
        assert!(SearchIndex::open(dir.path()).is_err());
        let fresh = SearchIndex::recreate(dir.path()).unwrap();
        assert_eq!(fresh.num_docs(), 0);
    }

    #[test]
    fn two_handles_on_one_folder_take_turns_writing() {
        let dir = tempfile::tempdir().unwrap();
        let a = SearchIndex::open(dir.path()).unwrap();
        let b = SearchIndex::open(dir.path()).unwrap();
        std::thread::scope(|s| {
            s.spawn(|| {
                for i in 0..5 {
                    a.apply(
                        &[doc(DocKind::Tool, &format!("a{i}"), None, "alpha", "x")],
                        &[],
                        i,
                    )
                    .unwrap();
                }
            });
            s.spawn(|| {
                for i in 0..5 {
                    b.apply(
                        &[doc(DocKind::Tool, &format!("b{i}"), None, "alpha", "x")],
                        &[],
                        i,
                    )
                    .unwrap();
                }
            });
        });
        a.reader.reload().unwrap();
        assert_eq!(a.num_docs(), 10);
    }
}
