//! The engine's context, sized to the conversation rather than to the most
//! the model may hold: it starts small and doubles, up to the size the
//! model was loaded with, when a chat needs more. The KV cache is the
//! largest thing the engine allocates after the weights (for a 4096-token
//! context as much as a small model itself), and most chats use a fraction
//! of it. Growing means a new context whose cache starts empty: the tokens
//! so far are read into it again, once per doubling. The old context is
//! freed before the new one is made (never both in memory); if the new one
//! cannot be made, the old size is made again and the chat fails.

use std::num::NonZeroU32;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::LlamaModel;

use crate::generate::Fail;

/// The first size of a context (tokens): a short chat's.
const START: u32 = 512;

/// Tokens read per decode call: the prompt's chunks.
pub(crate) const BATCH: u32 = 512;

/// Tokens computed at once inside a decode call. It sizes llama.cpp's
/// compute buffer (its worst case holds logits for `n_vocab × UBATCH`
/// floats: 250 MB at 512 for a 128k vocabulary); at 128 prompts read as
/// fast on a CPU (measured on the bench) in 70 MB less.
const UBATCH: u32 = 128;

pub(crate) struct Window<'m> {
    backend: &'m LlamaBackend,
    model: &'m LlamaModel,
    threads: i32,
    max: u32,
    /// `None` only when neither the bigger nor the old size could be made.
    ctx: Option<LlamaContext<'m>>,
}

impl<'m> Window<'m> {
    /// A context for `model` of at most `max` tokens, starting small.
    pub(crate) fn new(
        backend: &'m LlamaBackend,
        model: &'m LlamaModel,
        max: u32,
        threads: i32,
    ) -> Result<Window<'m>, String> {
        let ctx = context(backend, model, START.min(max), threads)?;
        Ok(Window {
            backend,
            model,
            threads,
            max,
            ctx: Some(ctx),
        })
    }

    /// The most tokens a conversation may have on this model.
    pub(crate) fn max(&self) -> u32 {
        self.max
    }

    /// The tokens the context holds now.
    pub(crate) fn size(&self) -> usize {
        self.ctx.as_ref().map_or(0, |c| c.n_ctx() as usize)
    }

    /// The context, to decode and sample with.
    pub(crate) fn ctx(&mut self) -> Result<&mut LlamaContext<'m>, Fail> {
        match self.ctx {
            Some(ref mut ctx) => Ok(ctx),
            None => Err(out_of_memory(
                "the engine lost its context for want of memory".to_owned(),
            )),
        }
    }

    /// Makes room for `tokens` tokens (at most [`Self::max`]); true when
    /// that took a new context, whose KV cache is empty.
    pub(crate) fn fit(&mut self, tokens: usize) -> Result<bool, Fail> {
        let had = self.size();
        if self.ctx.is_some() && (tokens <= had || had >= self.max as usize) {
            return Ok(false);
        }
        let wanted = u32::try_from(tokens)
            .unwrap_or(u32::MAX)
            .checked_next_power_of_two()
            .unwrap_or(u32::MAX)
            .clamp(START.min(self.max), self.max);
        self.ctx = None;
        match context(self.backend, self.model, wanted, self.threads) {
            Ok(ctx) => {
                self.ctx = Some(ctx);
                Ok(true)
            }
            Err(e) => {
                let old = u32::try_from(had).unwrap_or(START).max(START.min(self.max));
                self.ctx = context(self.backend, self.model, old, self.threads).ok();
                Err(out_of_memory(e))
            }
        }
    }
}

fn out_of_memory(message: String) -> Fail {
    Fail("out_of_memory", message)
}

fn context<'m>(
    backend: &LlamaBackend,
    model: &'m LlamaModel,
    size: u32,
    threads: i32,
) -> Result<LlamaContext<'m>, String> {
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(size))
        .with_n_batch(BATCH)
        .with_n_ubatch(UBATCH)
        .with_n_threads(threads)
        .with_n_threads_batch(threads);
    model
        .new_context(backend, params)
        .map_err(|e| format!("llama.cpp could not make a context of {size} tokens: {e}"))
}
