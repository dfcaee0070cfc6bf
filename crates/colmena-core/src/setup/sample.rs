//! The sample canvas the first run opens (issue 12): one short source and
//! two variants — a TL;DR brief and an X thread — ready to generate, so the
//! first thing a new user does is press Generate and read drafts.
//!
//! It is made with the canvas's own functions (`canvas::create`,
//! `items::add_item`, `variants::add_variant`), as the person would by
//! hand: nothing about it is special afterwards. The variants name no model,
//! so they use the default — the model connected in the first step. The
//! text is in the language the person chose (English or Spanish). If adding
//! the item or a variant fails, the half-made canvas is deleted again, so a
//! failed first run never leaves an empty "Sample" behind.

use crate::caller::Caller;
use crate::canvas::items::{self, NewItem, SourceKind};
use crate::canvas::variants::{self, NewVariant};
use crate::canvas::{self, CanvasDetail};
use crate::ctx::Ctx;
use crate::error::Result;

struct SampleText {
    canvas: &'static str,
    title: &'static str,
    snippet: &'static str,
    brief_prompt: &'static str,
    thread_prompt: &'static str,
}

const EN: SampleText = SampleText {
    canvas: "Sample: a city library opens at night",
    title: "The city library will open until midnight from March",
    snippet: "From 1 March the central library stays open until midnight on weekdays. The council says study rooms were full every evening last year; the late opening is paid for by closing two hours later on Sunday mornings. Staff will work in shifts, and the café on the ground floor will stay open until 22:00.",
    brief_prompt: "Summarise the news for busy neighbours.",
    thread_prompt: "Announce it to students, with a friendly tone.",
};

const ES: SampleText = SampleText {
    canvas: "Ejemplo: la biblioteca abre de noche",
    title: "La biblioteca municipal abrirá hasta medianoche desde marzo",
    snippet: "Desde el 1 de marzo la biblioteca central abrirá hasta medianoche de lunes a viernes. El ayuntamiento explica que las salas de estudio se llenaron cada tarde el año pasado; la apertura nocturna se compensa abriendo dos horas más tarde los domingos por la mañana. El personal trabajará por turnos y la cafetería de la planta baja cerrará a las 22:00.",
    brief_prompt: "Resume la noticia para vecinos con poco tiempo. Escribe en español.",
    thread_prompt: "Anúncialo a los estudiantes, con un tono cercano. Escribe en español.",
};

/// Creates the sample canvas in `language` (`es`, else English).
pub async fn open_sample_canvas(ctx: &Ctx, actor: &Caller, language: &str) -> Result<CanvasDetail> {
    let text = if language.trim().to_ascii_lowercase().starts_with("es") {
        &ES
    } else {
        &EN
    };
    let item = NewItem {
        source_kind: Some(SourceKind::Custom),
        title: Some(text.title.to_owned()),
        snippet: Some(text.snippet.to_owned()),
        ..NewItem::default()
    };
    let drafts = [text.brief_prompt, text.thread_prompt];
    first_canvas(ctx, actor, text.canvas, item, drafts).await
}

/// A canvas named `name` with `item` and the two first drafts — a TL;DR
/// brief and an X thread with these instructions. If adding the item or a
/// variant fails, the half-made canvas is deleted again.
pub(super) async fn first_canvas(
    ctx: &Ctx,
    actor: &Caller,
    name: &str,
    item: NewItem,
    [brief, thread]: [&str; 2],
) -> Result<CanvasDetail> {
    let made = canvas::create(ctx, actor, Some(name.to_owned())).await?;
    if let Err(error) = fill(ctx, actor, &made.id, item, [brief, thread]).await {
        if let Err(undo) = canvas::delete(ctx, actor, &made.id).await {
            tracing::warn!("could not remove the half-made first canvas: {undo}");
        }
        return Err(error);
    }
    canvas::get(ctx, actor, &made.id).await
}

/// The item and its two variants.
async fn fill(
    ctx: &Ctx,
    actor: &Caller,
    canvas: &str,
    item: NewItem,
    [brief, thread]: [&str; 2],
) -> Result<()> {
    items::add_item(ctx, actor, canvas, item).await?;
    for (preset, prompt) in [("tldr-brief", brief), ("x-thread", thread)] {
        let variant = NewVariant {
            preset_id: preset.to_owned(),
            prompt: Some(prompt.to_owned()),
            ..NewVariant::default()
        };
        variants::add_variant(ctx, actor, canvas, variant).await?;
    }
    Ok(())
}
