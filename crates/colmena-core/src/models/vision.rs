//! Which models accept images when the user has not said (SPEC H37): a
//! small table of the names of known vision-capable models. It is a guess
//! from the name, never a promise — the user's own setting
//! (`models::set_images`) always wins, both ways.
//!
//! How a name is read: lower case, only its last `/` segment
//! (`openai/gpt-4o` → `gpt-4o`, `meta-llama/llama-3.2-11b-vision-instruct`
//! → `llama-3.2-11b-vision-instruct`), Ollama tags kept (`llava:13b`).
//!
//! | family | names (prefix) |
//! |---|---|
//! | OpenAI | `gpt-4o`, `gpt-4.1`, `gpt-4-turbo`, `gpt-4-vision`, `gpt-5`, `o1`, `o3`, `o4` (not `o1-mini`, `o1-preview`, `o3-mini`) |
//! | Anthropic | `claude-3…`, `claude-{opus,sonnet,haiku}-N…` (every Claude from 3 on) |
//! | Google | `gemini…`, `gemma3…` / `gemma-3…` (not the 1B, which is text only) |
//! | Meta | `llama3.2-vision…`, `llama-3.2-…-vision…`, `llama4…` / `llama-4…` |
//! | Qwen | `qwen2.5vl`, `qwen2.5-vl`, `qwen2-vl`, `qwen-vl`, `qwen3-vl` |
//! | Mistral | `pixtral…`, `mistral-small3.1`/`3.2`, `mistral-small-3.1`/`3.2`, `mistral-small-2503`/`2506`, `mistral-medium-3…` |
//! | others | `llava…`, `bakllava…`, `minicpm-v…`, `moondream…`, `granite3.2-vision…`, `internvl…`, `smolvlm…` |
//! | any | a name containing `vision`, `-vl` or ending in `vl` |
//!
//! Never: embedding models, and the audio/speech variants of the above
//! (`gpt-4o-audio…`, `…-transcribe`, `…-tts`, `…-realtime…`).

/// Name prefixes of models that see images.
const PREFIXES: &[&str] = &[
    "gpt-4o",
    "gpt-4.1",
    "gpt-4-turbo",
    "gpt-4-vision",
    "gpt-5",
    "o1",
    "o3",
    "o4",
    "chatgpt-4o",
    "claude-3",
    "gemini",
    "gemma3",
    "gemma-3",
    "llama3.2-vision",
    "llama4",
    "llama-4",
    "qwen2.5vl",
    "qwen2.5-vl",
    "qwen2-vl",
    "qwen-vl",
    "qwen3-vl",
    "pixtral",
    "mistral-small3.1",
    "mistral-small3.2",
    "mistral-small-3.1",
    "mistral-small-3.2",
    "mistral-small-2503",
    "mistral-small-2506",
    "mistral-medium-3",
    "llava",
    "bakllava",
    "minicpm-v",
    "moondream",
    "granite3.2-vision",
    "internvl",
    "smolvlm",
];

/// Claude families named `claude-<family>-<version>` (all from Claude 4).
const CLAUDE_FAMILIES: &[&str] = &["claude-opus-", "claude-sonnet-", "claude-haiku-"];

/// Names (prefixes) that match the table but are text or audio only.
const EXCEPT_PREFIXES: &[&str] = &[
    "o1-mini",
    "o1-preview",
    "o3-mini",
    "gemma3:1b",
    "gemma-3-1b",
];

/// Words that mark a model that takes no images whatever its family.
const EXCEPT_WORDS: &[&str] = &["embed", "audio", "transcribe", "tts", "realtime"];

/// Whether a model of this name accepts images, by default.
pub fn accepts_images_by_name(name: &str) -> bool {
    let lower = name.trim().to_lowercase();
    let base = lower.rsplit('/').next().unwrap_or(&lower);
    if base.is_empty()
        || EXCEPT_WORDS.iter().any(|w| base.contains(w))
        || EXCEPT_PREFIXES.iter().any(|p| base.starts_with(p))
    {
        return false;
    }
    let family = PREFIXES.iter().any(|p| starts_word(base, p))
        || CLAUDE_FAMILIES.iter().any(|p| {
            base.strip_prefix(p)
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        });
    let untagged = base.split(':').next().unwrap_or(base);
    family || base.contains("vision") || base.contains("-vl") || untagged.ends_with("vl")
}

/// `name` starts with `prefix` and what follows does not continue a word
/// or a number of it (`o1` matches `o1`, `o1-pro`, not `o10` nor `olmo`).
fn starts_word(name: &str, prefix: &str) -> bool {
    match name.strip_prefix(prefix) {
        Some(rest) => {
            let next = rest.chars().next();
            // Prefixes ending in a digit must not run into another digit
            // (`o1` is not `o10`); the others may go on (`gemini2`).
            match next {
                None => true,
                Some(c) if prefix.ends_with(|p: char| p.is_ascii_digit()) => !c.is_ascii_digit(),
                Some(_) => true,
            }
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h37_known_vision_models_accept_images_by_default() {
        for name in [
            "gpt-4o",
            "gpt-4o-mini",
            "openai/gpt-4o-2024-08-06",
            "gpt-4.1-nano",
            "gpt-5",
            "gpt-5-mini",
            "o3",
            "o4-mini",
            "o1",
            "claude-3-5-sonnet-20241022",
            "claude-3.5-sonnet",
            "anthropic/claude-3-haiku",
            "claude-sonnet-4-5",
            "claude-opus-4-1-20250805",
            "claude-haiku-4-5",
            "gemini-2.5-flash",
            "google/gemini-1.5-pro",
            "llava:13b",
            "llava-phi3",
            "llama3.2-vision:11b",
            "meta-llama/llama-3.2-11b-vision-instruct",
            "llama4:scout",
            "qwen2.5vl:7b",
            "Qwen/Qwen2.5-VL-7B-Instruct",
            "qwen-vl-max",
            "gemma3:4b",
            "gemma3:27b",
            "google/gemma-3-12b-it",
            "pixtral-12b-2409",
            "minicpm-v:8b",
            "moondream",
            "mistral-small3.1:24b",
            "mistral-small-2503",
            "granite3.2-vision",
        ] {
            assert!(accepts_images_by_name(name), "{name} should accept images");
        }
    }

    #[test]
    fn h37_text_models_do_not_accept_images_by_default() {
        for name in [
            "gpt-3.5-turbo",
            "gpt-4",
            "o1-mini",
            "o3-mini",
            "o10-preview",
            "claude-2.1",
            "claude-instant-1.2",
            "llama3.1:8b",
            "llama-3.3-70b-instruct",
            "qwen2.5:7b",
            "qwen3:8b",
            "mistral:7b",
            "mistral-small:22b",
            "gemma2:9b",
            "gemma3:1b",
            "deepseek-r1:14b",
            "phi4",
            "nomic-embed-text",
            "text-embedding-3-small",
            "gpt-4o-audio-preview",
            "gpt-4o-mini-transcribe",
            "gpt-4o-realtime-preview",
            "olmo2",
            "scripted-model",
            "",
        ] {
            assert!(
                !accepts_images_by_name(name),
                "{name} should not accept images"
            );
        }
    }
}
