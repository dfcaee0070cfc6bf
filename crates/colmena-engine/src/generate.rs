//! One chat on the loaded model: the conversation through the model's own
//! chat template, the prompt checked against the context before anything
//! is decoded, the part already in the KV cache skipped, then token by
//! token until the end of turn, a stop sequence, the token budget or a
//! cancel — streaming text as it goes and counting every token.

use colmena_core::llm::local::wire::{EngineChat, EngineEvent};
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;

use crate::requests::Requests;
use crate::text_out::TextOut;
use crate::tool_prompt;
use crate::window::Window;

/// The tokens in the KV cache (sequence 0), in order: the previous chat's
/// prompt and answer, so a conversation's next turn reads only what is new.
#[derive(Default)]
pub(crate) struct KvCache {
    tokens: Vec<LlamaToken>,
}

/// Why a chat failed: a stable code and a sentence.
pub(crate) struct Fail(pub(crate) &'static str, pub(crate) String);

/// Writes the answer to `chat`, as events; never panics on bad input.
pub(crate) fn answer(
    model: &LlamaModel,
    window: &mut Window<'_>,
    cache: &mut KvCache,
    chat: &EngineChat,
    requests: &Requests,
) {
    let result = write(model, window, cache, chat, requests);
    requests.ended(&chat.id);
    if let Err(Fail(code, message)) = result {
        // Whatever the cache held is no longer known to be whole.
        cache.tokens.clear();
        if let Ok(ctx) = window.ctx() {
            ctx.clear_kv_cache();
        }
        crate::error(Some(&chat.id), code, message);
    }
}

fn write(
    model: &LlamaModel,
    window: &mut Window<'_>,
    cache: &mut KvCache,
    chat: &EngineChat,
    requests: &Requests,
) -> Result<(), Fail> {
    let tokens = crate::prompt::tokens(model, chat)?;
    let context = window.max() as usize;
    if tokens.len() >= context {
        return Err(Fail(
            "context_too_long",
            format!(
                "the conversation is {} tokens; this model's context holds {context}",
                tokens.len()
            ),
        ));
    }
    let budget = (chat.max_tokens.max(1) as usize).min(context - tokens.len());
    // Room for the prompt and the first tokens of the answer.
    if window.fit(tokens.len() + 1)? {
        cache.tokens.clear();
    }
    let mut last = read_prompt(window.ctx()?, cache, &tokens, &chat.id, requests)?;
    let tools = !chat.tools.is_empty();
    let mut sampler = sampler(model, chat)?;
    let mut out = TextOut::new(&chat.stop, tools.then_some(tool_prompt::OPEN));
    let vocab = model.vocab();
    let mut batch = LlamaBatch::new(1, 1);
    let mut written = 0usize;
    let mut finish = loop {
        if requests.cancelled(&chat.id) {
            break "cancelled";
        }
        if written >= budget {
            break "length";
        }
        let token = sampler.sample(window.ctx()?, last);
        written += 1;
        if vocab.is_eog(token) {
            break "stop";
        }
        let text = out.push(&vocab.token_to_piece(token, false, None));
        send_text(&chat.id, text);
        if out.stopped() {
            break "stop";
        }
        if written >= budget {
            // The last token the answer may have: not worth a bigger context.
            break "length";
        }
        if cache.tokens.len() + 1 > window.size() {
            // The context is full: a bigger one reads everything so far,
            // this token included, and the answer goes on.
            window.fit(cache.tokens.len() + 1)?;
            let so_far: Vec<LlamaToken> = cache.tokens.iter().copied().chain([token]).collect();
            cache.tokens.clear();
            last = read_prompt(window.ctx()?, cache, &so_far, &chat.id, requests)?;
            continue;
        }
        batch.clear();
        add(&mut batch, token, cache.tokens.len())?;
        decode(window.ctx()?, &mut batch)?;
        cache.tokens.push(token);
        last = 0;
    };
    send_text(&chat.id, out.finish());
    if let Some(call_text) = out.call_text() {
        match tool_prompt::parse_calls(call_text, &chat.tools) {
            Some(calls) if finish != "cancelled" => {
                for call in calls {
                    crate::emit(&EngineEvent::ToolCall {
                        id: chat.id.clone(),
                        name: call.name,
                        arguments: call.arguments,
                    });
                }
                finish = "tool_calls";
            }
            // Cut short or malformed: it is shown as what it is, text.
            _ => send_text(&chat.id, call_text.to_owned()),
        }
    }
    crate::emit(&EngineEvent::Done {
        id: chat.id.clone(),
        finish: finish.to_owned(),
        prompt_tokens: u32::try_from(tokens.len()).unwrap_or(u32::MAX),
        completion_tokens: u32::try_from(written).unwrap_or(u32::MAX),
    });
    Ok(())
}

fn send_text(id: &str, text: String) {
    if !text.is_empty() {
        crate::emit(&EngineEvent::Text {
            id: id.to_owned(),
            text,
        });
    }
}

/// Puts the prompt in the KV cache, reading only what the cache does not
/// already hold; returns the batch index of the last token's logits.
fn read_prompt(
    ctx: &mut LlamaContext<'_>,
    cache: &mut KvCache,
    tokens: &[LlamaToken],
    id: &str,
    requests: &Requests,
) -> Result<i32, Fail> {
    // At least the last token is read again: its logits start the answer.
    let same = cache
        .tokens
        .iter()
        .zip(tokens)
        .take_while(|(a, b)| a == b)
        .count()
        .min(tokens.len() - 1);
    let kept = u32::try_from(same).unwrap_or(0);
    if ctx.clear_kv_cache_seq(Some(0), Some(kept), None) == Ok(true) {
        cache.tokens.truncate(same);
    } else {
        ctx.clear_kv_cache();
        cache.tokens.clear();
    }
    let size = ctx.n_batch().max(1) as usize;
    let mut batch = LlamaBatch::new(size, 1);
    let rest = &tokens[cache.tokens.len()..];
    let mut last = 0;
    for (n, chunk) in rest.chunks(size).enumerate() {
        if requests.cancelled(id) {
            return Err(Fail("cancelled", "cancelled".to_owned()));
        }
        batch.clear();
        let final_chunk = (n + 1) * size >= rest.len();
        for (i, &token) in chunk.iter().enumerate() {
            let logits = final_chunk && i + 1 == chunk.len();
            batch
                .add(
                    token,
                    i32::try_from(cache.tokens.len()).unwrap_or(i32::MAX),
                    &[0],
                    logits,
                )
                .map_err(|e| Fail("decode_failed", e.to_string()))?;
            cache.tokens.push(token);
            if logits {
                last = i32::try_from(i).unwrap_or(0);
            }
        }
        decode(ctx, &mut batch)?;
    }
    Ok(last)
}

fn add(batch: &mut LlamaBatch, token: LlamaToken, position: usize) -> Result<(), Fail> {
    batch
        .add(
            token,
            i32::try_from(position).unwrap_or(i32::MAX),
            &[0],
            true,
        )
        .map_err(|e| Fail("decode_failed", e.to_string()))
}

fn decode(ctx: &mut LlamaContext<'_>, batch: &mut LlamaBatch) -> Result<(), Fail> {
    ctx.decode(batch)
        .map_err(|e| Fail("decode_failed", format!("llama.cpp could not decode: {e}")))
}

/// llama.cpp server's default sampling (top-k 40, top-p 0.95, min-p 0.05,
/// temperature 0.8) with a repeat penalty of 1.1, greedy at temperature 0; with tools, the lazy grammar
/// first, so a call, once begun, is valid JSON naming an offered tool.
fn sampler(model: &LlamaModel, chat: &EngineChat) -> Result<LlamaSampler, Fail> {
    let mut chain = Vec::new();
    if !chat.tools.is_empty() {
        let grammar = LlamaSampler::grammar_lazy(
            model,
            &tool_prompt::grammar(&chat.tools),
            "root",
            [tool_prompt::OPEN],
            &[],
        )
        .map_err(|e| Fail("bad_request", format!("the tools' grammar failed: {e}")))?;
        chain.push(grammar);
    }
    let temperature = chat.temperature.unwrap_or(0.8);
    if temperature <= 0.0 {
        chain.push(LlamaSampler::greedy());
    } else {
        chain.extend([
            // Small models fall into loops ("Cabinet to 14:15:15…" for a
            // page): a mild penalty on the last 64 tokens, as LM Studio's
            // default, keeps them writing.
            LlamaSampler::penalties(model.n_vocab(), 64, 1.1, 0.0, 0.0),
            LlamaSampler::top_k(40),
            LlamaSampler::top_p(0.95, 1),
            LlamaSampler::min_p(0.05, 1),
            LlamaSampler::temp(temperature),
            LlamaSampler::dist(seed()),
        ]);
    }
    Ok(LlamaSampler::chain_simple(chain))
}

/// The sampler's seed: `COLMENA_ENGINE_SEED` when set (the same answers on
/// every run, as llama-server's `--seed`), else a fresh one per chat.
fn seed() -> u32 {
    if let Some(seed) = std::env::var("COLMENA_ENGINE_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
    {
        return seed;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    nanos ^ std::process::id()
}
