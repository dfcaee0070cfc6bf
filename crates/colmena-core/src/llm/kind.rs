//! The wire protocols Colmena speaks (SPEC H22): a provider's kind picks
//! the client in this folder, so the kind lives with the clients and the
//! provider rows above name it.

use serde::{Deserialize, Serialize};

use crate::error::{AppError, Result};

/// What a `local` provider stores as its base URL: it has none.
pub const LOCAL_BASE_URL: &str = "local";

/// The wire protocols Colmena speaks (H22).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// OpenAI chat completions: OpenAI, OpenRouter, Groq, vLLM, LM Studio,
    /// llama.cpp server…
    OpenaiCompatible,
    /// Anthropic messages.
    Anthropic,
    /// Ollama's chat API.
    Ollama,
    /// GGUF models run by Colmena's own engine (issue 35): one provider per
    /// workspace, `local`, made when the first local model arrives.
    Local,
}

impl ProviderKind {
    /// The kinds a person connects by hand (a picker's list); `local` is
    /// made by Colmena itself.
    pub const ALL: [ProviderKind; 3] = [
        ProviderKind::OpenaiCompatible,
        ProviderKind::Anthropic,
        ProviderKind::Ollama,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenaiCompatible => "openai_compatible",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Ollama => "ollama",
            ProviderKind::Local => "local",
        }
    }

    /// Parses a kind, accepting the spellings people type (`openai`,
    /// `openai-compatible`).
    pub fn parse(text: &str) -> Result<ProviderKind> {
        match text.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "openai_compatible" | "openai" => Ok(ProviderKind::OpenaiCompatible),
            "anthropic" => Ok(ProviderKind::Anthropic),
            "ollama" => Ok(ProviderKind::Ollama),
            "local" => Ok(ProviderKind::Local),
            _ => Err(AppError::invalid_field(
                "kind",
                "unknown_kind",
                format!(
                    "unknown provider kind '{}' (expected openai_compatible, anthropic, ollama or local)",
                    text.trim()
                ),
            )),
        }
    }

    /// Where the provider's API lives when the user gives no base URL.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::OpenaiCompatible => "https://api.openai.com/v1",
            ProviderKind::Anthropic => "https://api.anthropic.com",
            ProviderKind::Ollama => "http://127.0.0.1:11434",
            ProviderKind::Local => LOCAL_BASE_URL,
        }
    }
}
