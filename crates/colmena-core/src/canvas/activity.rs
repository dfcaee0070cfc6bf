//! The activity log (SPEC C8): append-only, one line per operation on a
//! canvas — which client asked, the operation's dotted name, a readable
//! detail. It feeds the Console's "now" feed: what was this canvas doing?
//!
//! Reading it back, each line also carries what a sentence about it needs
//! ("Claude Code generated round 3 of «X thread» in «Morning brief»"): the
//! canvas's name as it is now (or, once deleted, as it was), and the facts
//! the operations write into their detail in a fixed form — the preset of
//! a variant, the round, the model, how many items or variants. Those forms
//! are written by this crate's own operations and pinned by
//! `tests/activity_facts.rs`, which runs each operation for real.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};

use crate::caller::{Caller, Client};
use crate::ctx::Ctx;
use crate::error::{AppError, Result};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Activity {
    pub seq: i64,
    /// None once the canvas was deleted.
    pub canvas_id: Option<String>,
    pub client: Client,
    /// Dotted, like `session.add_variant`.
    pub tool: String,
    pub detail: String,
    pub created_at: DateTime<Utc>,
    /// The canvas's name now; for a deleted canvas, the name this line
    /// gave it (create, rename, delete), if any. None when unnamed.
    pub canvas_name: Option<String>,
    /// The variant's preset (`x-thread`, `custom`, `user-saved`, …) for the
    /// operations on one variant.
    pub preset_id: Option<String>,
    /// The round, counted from 1: the one generated or the one shown.
    pub round: Option<u32>,
    /// The model that wrote a generated round.
    pub model: Option<String>,
    /// How many: variants generated at once, items removed or fetched.
    pub count: Option<u32>,
}

/// What an operation's detail says, read back from the form it was
/// written in (see the module doc).
#[derive(Debug, Default, PartialEq)]
struct Facts {
    preset_id: Option<String>,
    round: Option<u32>,
    model: Option<String>,
    count: Option<u32>,
    /// The canvas's name as this line (create, rename, delete) gave it.
    named: Option<String>,
}

fn facts(tool: &str, detail: &str) -> Facts {
    let mut facts = Facts::default();
    match tool {
        "session.add_variant" | "session.update_variant" | "session.remove_variant" => {
            facts.preset_id = Some(detail.to_owned()).filter(|p| !p.is_empty());
        }
        // "{preset} round {n} ({model})"; by hand, "… ({n}) (by hand)"
        "session.generate_variant" | "session.write_round" => {
            if let Some((preset, rest)) = detail.split_once(" round ") {
                facts.preset_id = Some(preset.to_owned());
                let (round, model) = rest.split_once(" (").unwrap_or((rest, ""));
                facts.round = round.parse().ok();
                facts.model = model
                    .strip_suffix(')')
                    .map(str::to_owned)
                    .filter(|m| !m.is_empty() && tool == "session.generate_variant");
            }
        }
        // "round {n}"
        "session.select_round" => {
            facts.round = detail.strip_prefix("round ").and_then(|n| n.parse().ok());
        }
        // "{n} variants", "{n} items"
        "session.generate_all" | "session.clear_selection" | "session.refresh_source" => {
            facts.count = detail.split_once(' ').and_then(|(n, _)| n.parse().ok());
        }
        "session.create" | "session.delete" if detail != "untitled" => {
            facts.named = Some(detail.to_owned());
        }
        "session.update" if detail != "(no name)" => facts.named = Some(detail.to_owned()),
        _ => {}
    }
    facts
}

/// Appends one line, in the transaction of the change it describes.
pub(crate) fn record(
    conn: &Connection,
    actor: &Caller,
    canvas: Option<&str>,
    tool: &str,
    detail: &str,
) -> Result<()> {
    let detail: String = detail.chars().take(300).collect();
    conn.execute(
        "INSERT INTO canvas_activity (user_id, canvas_id, client, tool, detail, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            actor.person()?,
            canvas,
            actor.client.as_str(),
            tool,
            detail,
            Utc::now()
        ],
    )?;
    Ok(())
}

/// The latest activity of the user's canvases, newest first (`limit`
/// 1–100, default 20), optionally of one canvas.
pub async fn recent(
    ctx: &Ctx,
    actor: &Caller,
    canvas: Option<String>,
    limit: Option<u32>,
) -> Result<Vec<Activity>> {
    let limit = limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(AppError::invalid_field(
            "limit",
            "out_of_range",
            format!("limit must be 1 to 100, not {limit}"),
        ));
    }
    let user = actor.person()?.to_owned();
    ctx.store()
        .read(move |conn| {
            let mut stmt = conn.prepare(
                "SELECT a.seq, a.canvas_id, a.client, a.tool, a.detail, a.created_at, c.name
                 FROM canvas_activity a LEFT JOIN canvases c ON c.id = a.canvas_id
                 WHERE a.user_id = ?1 AND (?2 IS NULL OR a.canvas_id = ?2)
                 ORDER BY a.seq DESC LIMIT ?3",
            )?;
            let rows = stmt.query_map(params![user, canvas, limit], |r| {
                let tool: String = r.get(3)?;
                let detail: String = r.get(4)?;
                let facts = facts(&tool, &detail);
                let name: Option<String> = r.get(6)?;
                Ok(Activity {
                    seq: r.get(0)?,
                    canvas_id: r.get(1)?,
                    client: Client::parse(&r.get::<_, String>(2)?),
                    canvas_name: name.or(facts.named),
                    preset_id: facts.preset_id,
                    round: facts.round,
                    model: facts.model,
                    count: facts.count,
                    tool,
                    detail,
                    created_at: r.get(5)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_round_names_its_preset_round_and_model() {
        let f = facts(
            "session.generate_variant",
            "x-thread round 3 (gpt-4o (mini))",
        );
        assert_eq!(f.preset_id.as_deref(), Some("x-thread"));
        assert_eq!(f.round, Some(3));
        assert_eq!(f.model.as_deref(), Some("gpt-4o (mini)"));
    }

    #[test]
    fn a_round_written_by_hand_has_no_model() {
        let f = facts("session.write_round", "custom round 4 (by hand)");
        assert_eq!(f.preset_id.as_deref(), Some("custom"));
        assert_eq!(f.round, Some(4));
        assert_eq!(f.model, None);
    }

    #[test]
    fn counts_and_rounds_are_read_and_free_text_is_left_alone() {
        assert_eq!(facts("session.generate_all", "4 variants").count, Some(4));
        assert_eq!(facts("session.select_round", "round 2").round, Some(2));
        assert_eq!(
            facts("session.add_item", "3 ways to 2 items"),
            Facts::default()
        );
        assert_eq!(facts("session.delete", "untitled"), Facts::default());
        assert_eq!(
            facts("session.delete", "Morning brief").named.as_deref(),
            Some("Morning brief")
        );
    }
}
