//! Queries: what the person typed (lenient: stray quotes or colons never
//! fail), the last word also matched as a prefix so results follow typing,
//! restricted by kind, by owner for memories, and optionally to active rows.

use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, QueryParser, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::snippet::SnippetGenerator;
use tantivy::{TantivyDocument, Term};

use super::{DocKind, SearchIndex, tantivy_error};
use crate::error::Result;

const SNIPPET_CHARS: usize = 180;
pub const MAX_LIMIT: usize = 200;

/// A search over the index.
#[derive(Debug, Clone)]
pub struct SearchQuery {
    pub text: String,
    /// Kinds to include; empty means all.
    pub kinds: Vec<DocKind>,
    /// Memories are only ever returned for this user; without one, none are.
    pub owner: Option<String>,
    /// Only active skills and tools (what a model may use).
    pub active_only: bool,
    pub limit: usize,
}

impl SearchQuery {
    pub fn new(text: &str) -> SearchQuery {
        SearchQuery {
            text: text.to_owned(),
            kinds: Vec::new(),
            owner: None,
            active_only: false,
            limit: 20,
        }
    }
}

/// A piece of a snippet; highlighted pieces are the matched words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SnippetPart {
    pub text: String,
    pub highlighted: bool,
}

/// One result, best first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    pub kind: DocKind,
    pub id: String,
    pub title: String,
    /// The best passage of the body, split into plain and matched parts.
    pub snippet: Vec<SnippetPart>,
    pub score: f32,
}

impl SearchIndex {
    pub fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>> {
        let words: Vec<&str> = q.text.split_whitespace().collect();
        let Some(last) = words.last() else {
            return Ok(Vec::new());
        };
        let f = self.fields;

        let mut parser = QueryParser::for_index(&self.index, vec![f.title, f.body]);
        parser.set_field_boost(f.title, 2.0);
        let (typed, _ignored_errors) = parser.parse_query_lenient(&q.text);
        let searcher = self.reader.searcher();
        // The last word is also taken as a prefix (results follow typing): it
        // is expanded to the indexed words it starts, which both score (BM25)
        // and highlight the snippet. Cheaper than an automaton per query.
        let mut text_query: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Should, typed.box_clone())];
        let mut highlight: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Should, typed)];
        for token in self.tokens(last) {
            for field in [f.title, f.body] {
                for word in completions(&searcher, field, &token) {
                    if word == token {
                        continue; // the typed query already has it
                    }
                    let term = Term::from_field_text(field, &word);
                    let query: Box<dyn Query> =
                        Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs));
                    if field == f.body {
                        highlight.push((Occur::Should, query.box_clone()));
                    }
                    text_query.push((Occur::Should, query));
                }
            }
        }

        // Filters only narrow the set: they add nothing to the BM25 score.
        let term = |field, text: &str| -> Box<dyn Query> {
            Box::new(ConstScoreQuery::new(
                Box::new(TermQuery::new(
                    Term::from_field_text(field, text),
                    IndexRecordOption::Basic,
                )),
                0.0,
            ))
        };
        let kinds = if q.kinds.is_empty() {
            vec![DocKind::Skill, DocKind::Tool, DocKind::Memory]
        } else {
            q.kinds.clone()
        };
        let mut kind_filter: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for kind in kinds {
            match kind {
                DocKind::Memory => {
                    // A memory is only ever found by its owner.
                    if let Some(owner) = &q.owner {
                        kind_filter.push((
                            Occur::Should,
                            Box::new(BooleanQuery::new(vec![
                                (Occur::Must, term(f.kind, DocKind::Memory.as_str())),
                                (Occur::Must, term(f.owner, owner)),
                            ])),
                        ));
                    }
                }
                other => kind_filter.push((Occur::Should, term(f.kind, other.as_str()))),
            }
        }
        if kind_filter.is_empty() {
            return Ok(Vec::new());
        }

        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![
            (Occur::Must, Box::new(BooleanQuery::new(text_query))),
            (Occur::Must, Box::new(BooleanQuery::new(kind_filter))),
        ];
        if q.active_only {
            clauses.push((Occur::Must, term(f.active, "1")));
        }
        let query = BooleanQuery::new(clauses);

        let limit = q.limit.clamp(1, MAX_LIMIT);
        let top = searcher
            .search(&query, &TopDocs::with_limit(limit).order_by_score())
            .map_err(tantivy_error("search failed"))?;
        let mut snippets =
            SnippetGenerator::create(&searcher, &BooleanQuery::new(highlight), f.body)
                .map_err(tantivy_error("snippet failed"))?;
        snippets.set_max_num_chars(SNIPPET_CHARS);

        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let doc: TantivyDocument = searcher
                .doc(address)
                .map_err(tantivy_error("cannot read a hit"))?;
            let Some(kind) = DocKind::parse(&Self::stored_text(&doc, f.kind)) else {
                continue;
            };
            let snippet = snippets.snippet_from_doc(&doc);
            let mut parts = split_snippet(snippet.fragment(), snippet.highlighted());
            if parts.is_empty() {
                let body = Self::stored_text(&doc, f.body);
                let lead: String = body.chars().take(SNIPPET_CHARS).collect();
                if !lead.is_empty() {
                    parts.push(SnippetPart {
                        text: lead,
                        highlighted: false,
                    });
                }
            }
            hits.push(SearchHit {
                kind,
                id: Self::stored_text(&doc, f.id),
                title: Self::stored_text(&doc, f.title),
                snippet: parts,
                score,
            });
        }
        Ok(hits)
    }

    /// The index's own tokens for a word (lowercased, accents folded).
    fn tokens(&self, word: &str) -> Vec<String> {
        let Ok(mut analyzer) = self.index.tokenizer_for_field(self.fields.title) else {
            return Vec::new();
        };
        let mut stream = analyzer.token_stream(word);
        let mut out = Vec::new();
        while let Some(token) = stream.next() {
            out.push(token.text.clone());
        }
        out
    }
}

/// The indexed words of `field` that start with `prefix`: the most frequent
/// few among the first few hundred, so a short prefix stays cheap.
fn completions(
    searcher: &tantivy::Searcher,
    field: tantivy::schema::Field,
    prefix: &str,
) -> Vec<String> {
    const SCANNED: usize = 512;
    const KEPT: usize = 4;
    let mut upper = prefix.as_bytes().to_vec();
    upper.push(0xff);
    let mut found: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    for segment in searcher.segment_readers() {
        let Ok(inverted) = segment.inverted_index(field) else {
            continue;
        };
        let Ok(mut stream) = inverted
            .terms()
            .range()
            .ge(prefix.as_bytes())
            .lt(&upper)
            .into_stream()
        else {
            continue;
        };
        let mut scanned = 0;
        while scanned < SCANNED && stream.advance() {
            scanned += 1;
            if let Ok(word) = std::str::from_utf8(stream.key()) {
                *found.entry(word.to_owned()).or_default() += stream.value().doc_freq;
            }
        }
    }
    let mut ranked: Vec<(String, u32)> = found.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ranked
        .into_iter()
        .take(KEPT)
        .map(|(word, _)| word)
        .collect()
}

fn split_snippet(fragment: &str, highlighted: &[std::ops::Range<usize>]) -> Vec<SnippetPart> {
    let mut parts = Vec::new();
    let mut at = 0;
    for range in highlighted {
        if range.start > at
            && let Some(text) = fragment.get(at..range.start)
        {
            parts.push(SnippetPart {
                text: text.to_owned(),
                highlighted: false,
            });
        }
        if let Some(text) = fragment.get(range.clone()) {
            parts.push(SnippetPart {
                text: text.to_owned(),
                highlighted: true,
            });
        }
        at = range.end;
    }
    if let Some(rest) = fragment.get(at..).filter(|r| !r.is_empty()) {
        parts.push(SnippetPart {
            text: rest.to_owned(),
            highlighted: false,
        });
    }
    parts
}
