//! HTTP endpoints as tools (SPEC H27–H29): the nearest thing to "make a
//! tool from the UI" without running anyone's code — the person gives data
//! (method, URL, headers, which parameters it takes) and the executor is
//! generic. Each endpoint becomes the tool `endpoint_<id>`.
//!
//! Rules kept here:
//! - Registering writes the definition, seals the secret headers apart, and
//!   writes the tool row, in one write transaction; the search index and
//!   the change feed hear of it after the commit. Without the tool row and
//!   its index entry the model would never find the endpoint.
//! - Secrets never come back (H28): every read answers
//!   `secret_header_names`, the preview and the test mask them, a call's
//!   result has any echo of them redacted, and errors never quote them.
//! - Only a person at this computer (the window, the `colmena` CLI) may
//!   declare, change or test an endpoint: declaring one is what lets calls
//!   reach its origin, the local network included, and sends its secrets
//!   there. An agent, or an MCP/HTTP client of Colmena, gets `forbidden`.
//! - Calling one from a run goes through the permission gate like any tool:
//!   a GET reaches the network; any other method changes something on the
//!   other side on the person's behalf, so it counts as sending
//!   (see `toolbox::gate::risk_in`).
//! - After a restart the tool rows are re-armed from the store (H29):
//!   [`rearm`] runs with the other start-up reconciliation.

mod call;
pub mod config;
mod store;
mod template;
mod tool;

use std::time::{Duration, Instant};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use call::{MASK, MAX_RESPONSE_BYTES};
pub use config::{
    DEFAULT_TIMEOUT_SECS, Endpoint, EndpointInput, EndpointPair, EndpointRequest,
    EndpointTestResult, HttpMethod, MAX_TIMEOUT_SECS, SecretHeaderInput, ShownHeader, TOOL_PREFIX,
};
pub(crate) use tool::rearm;

use crate::caller::Caller;
use crate::caller::Client;
use crate::ctx::{Change, Ctx};
use crate::error::{AppError, ErrorCode, Result};
use crate::runs::context::RunContext;
use crate::search;

/// Only a person at this computer declares what calls may reach.
fn local_only(caller: &Caller) -> Result<()> {
    if caller.is_remote() || caller.client == Client::Agent {
        return Err(AppError::new(
            ErrorCode::Forbidden,
            "HTTP endpoints carry secrets and decide where agents' calls go: only a person at this computer (the Colmena window or the colmena CLI) may declare, change or test one",
        )
        .with_details(serde_json::json!({ "reason": "local_only" })));
    }
    Ok(())
}

fn name_conflict(name: &str, other: &str) -> AppError {
    AppError::conflicting_field(
        "name",
        "duplicate",
        format!("an endpoint named '{name}' (id '{other}') already exists"),
    )
}

pub async fn list(ctx: &Ctx) -> Result<Vec<Endpoint>> {
    ctx.store()
        .read(|conn| Ok(store::all(conn)?.into_iter().map(store::view).collect()))
        .await
}

/// The endpoint `id` (its slug, or its tool name `endpoint_<slug>`).
pub async fn get(ctx: &Ctx, id: &str) -> Result<Endpoint> {
    let id = id.to_owned();
    ctx.store()
        .read(move |conn| store::require(conn, &id).map(store::view))
        .await
}

/// What a write changed in the catalog, applied after its commit.
struct Effects {
    upserts: Vec<search::SearchDoc>,
    deletes: Vec<(search::DocKind, String)>,
    generation: i64,
}

async fn after_commit(ctx: &Ctx, effects: Effects) {
    ctx.index(effects.upserts, effects.deletes, effects.generation)
        .await;
    ctx.changed(Change::Tools);
    ctx.changed(Change::Agents);
    ctx.changed(Change::Endpoints);
}

/// Declares an endpoint and registers its tool (SPEC H27).
pub async fn create(ctx: &Ctx, caller: &Caller, input: EndpointInput) -> Result<Endpoint> {
    local_only(caller)?;
    let enabled = input.enabled.unwrap_or(true);
    let mut checked = config::check(input)?;
    checked.enabled = enabled;
    let owned = ctx.clone();
    let (id, effects) = ctx
        .store()
        .write(move |tx| {
            if let Some(other) = store::taken(tx, &checked.def.name, &checked.id, None)? {
                return Err(name_conflict(&checked.def.name, &other));
            }
            let tool_id = tool::tool_id(&checked.id);
            if crate::tools::find(tx, &tool_id)?.is_some() {
                return Err(AppError::conflicting_field(
                    "slug",
                    "duplicate",
                    format!("a tool named '{tool_id}' already exists"),
                ));
            }
            save(tx, owned.vault(), &checked, None)
        })
        .await?;
    after_commit(ctx, effects).await;
    get(ctx, &id).await
}

/// Writes a checked endpoint (new when `was_on` is `None`), seals its
/// secrets and its tool row; the tool's switch follows the endpoint's only
/// when that changed (a switch set in the Tools panel otherwise holds).
fn save(
    tx: &rusqlite::Transaction<'_>,
    vault: &crate::secrets::Vault,
    checked: &config::Checked,
    was_on: Option<bool>,
) -> Result<(String, Effects)> {
    store::write(tx, checked, chrono::Utc::now(), was_on.is_none())?;
    store::write_secrets(tx, vault, checked)?;
    let row = store::require(tx, &checked.id)?;
    let switched = was_on != Some(row.enabled);
    let upserts = tool::upsert(tx, &row, switched)?.into_iter().collect();
    Ok((
        checked.id.clone(),
        Effects {
            upserts,
            deletes: Vec::new(),
            generation: search::bump_generation(tx)?,
        },
    ))
}

/// Replaces an endpoint's definition; its id (and tool name) stay. Secret
/// headers given without a value keep the sealed one; those left out go.
pub async fn update(
    ctx: &Ctx,
    caller: &Caller,
    id: &str,
    input: EndpointInput,
) -> Result<Endpoint> {
    local_only(caller)?;
    let enabled = input.enabled;
    let slug = input.slug.clone();
    let mut checked = config::check(EndpointInput {
        slug: None,
        ..input
    })?;
    let (owned, wanted) = (ctx.clone(), id.to_owned());
    let (id, effects) = ctx
        .store()
        .write(move |tx| {
            let current = store::require(tx, &wanted)?;
            if slug
                .as_deref()
                .is_some_and(|s| !s.trim().is_empty() && s.trim() != current.id)
            {
                return Err(AppError::invalid_field(
                    "slug",
                    "immutable",
                    format!(
                        "the id of endpoint '{}' cannot change: agents call it as '{}'",
                        current.def.name,
                        tool::tool_id(&current.id)
                    ),
                ));
            }
            checked.id = current.id.clone();
            checked.enabled = enabled.unwrap_or(current.enabled);
            if let Some(other) = store::taken(tx, &checked.def.name, "", Some(&current.id))? {
                return Err(name_conflict(&checked.def.name, &other));
            }
            save(tx, owned.vault(), &checked, Some(current.enabled))
        })
        .await?;
    after_commit(ctx, effects).await;
    get(ctx, &id).await
}

/// Switches an endpoint on or off (`None` flips it); its tool follows.
pub async fn set_enabled(
    ctx: &Ctx,
    caller: &Caller,
    id: &str,
    enabled: Option<bool>,
) -> Result<Endpoint> {
    local_only(caller)?;
    let wanted = id.to_owned();
    let (id, effects) = ctx
        .store()
        .write(move |tx| {
            let current = store::require(tx, &wanted)?;
            let on = enabled.unwrap_or(!current.enabled);
            tx.execute(
                "UPDATE endpoints SET enabled = ?2, updated_at = ?3 WHERE id = ?1",
                rusqlite::params![current.id, on, chrono::Utc::now()],
            )?;
            let row = store::require(tx, &current.id)?;
            let upserts = tool::upsert(tx, &row, true)?.into_iter().collect();
            Ok((
                current.id,
                Effects {
                    upserts,
                    deletes: Vec::new(),
                    generation: search::bump_generation(tx)?,
                },
            ))
        })
        .await?;
    after_commit(ctx, effects).await;
    get(ctx, &id).await
}

/// Deletes an endpoint, its sealed secrets and its tool.
pub async fn delete(ctx: &Ctx, caller: &Caller, id: &str) -> Result<()> {
    local_only(caller)?;
    let wanted = id.to_owned();
    let effects = ctx
        .store()
        .write(move |tx| {
            let current = store::require(tx, &wanted)?;
            let deletes = tool::remove(tx, &current.id)?;
            tx.execute("DELETE FROM endpoints WHERE id = ?1", [&current.id])?;
            Ok(Effects {
                upserts: Vec::new(),
                deletes,
                generation: search::bump_generation(tx)?,
            })
        })
        .await?;
    after_commit(ctx, effects).await;
    Ok(())
}

/// The request calling `input` with `params` would send — method, final
/// URL, headers with secret values masked, body — for the form's live
/// preview. Nothing is stored or sent.
pub fn preview(input: EndpointInput, params: &Value) -> Result<EndpointRequest> {
    let checked = config::check(input)?;
    let built = call::build(&checked.def, params)?;
    Ok(call::shown(&built, &checked.def.secret_names))
}

/// Calls endpoint `id` with `params`, without the model (SPEC H29): status,
/// headers and body (secrets masked), and how long it took. A switched-off
/// endpoint can be tested: that is how one is tried before an agent gets it.
pub async fn test(
    ctx: &Ctx,
    caller: &Caller,
    id: &str,
    params: &Value,
) -> Result<EndpointTestResult> {
    local_only(caller)?;
    let (row, secrets) = armed(ctx, id).await?;
    let built = call::build(&row.def, params)?;
    let started = Instant::now();
    let answer = call::send(
        &built,
        &secrets,
        Duration::from_secs(u64::from(row.def.timeout_seconds)),
        &CancellationToken::new(),
    )
    .await?;
    Ok(call::for_test(
        &built,
        &answer,
        &secrets,
        &row.def.secret_names,
        started,
    ))
}

/// The row of `id` and its secret headers, opened.
async fn armed(ctx: &Ctx, id: &str) -> Result<(store::Row, call::Secrets)> {
    let (owned, id) = (ctx.clone(), id.to_owned());
    ctx.store()
        .read(move |conn| {
            let row = store::require(conn, &id)?;
            let headers = store::open_secrets(conn, owned.vault(), &row)?;
            Ok((row, call::Secrets { headers }))
        })
        .await
}

/// Runs the endpoint tool `tool_id` for an agent run (the gate has passed
/// and the arguments match the schema).
pub(crate) async fn call_tool(rc: &RunContext, tool_id: &str, arguments: &Value) -> Result<String> {
    let (row, secrets) = armed(&rc.ctx, tool_id).await?;
    if !row.enabled {
        return Err(AppError::precondition(format!(
            "endpoint '{}' is switched off",
            row.def.name
        )));
    }
    let built = call::build(&row.def, arguments)?;
    let answer = call::send(
        &built,
        &secrets,
        Duration::from_secs(u64::from(row.def.timeout_seconds)),
        &rc.cancel,
    )
    .await?;
    call::for_model(&built, &answer, &secrets)
}

/// The method of the endpoint behind `tool`, if it is an endpoint's tool.
pub(crate) fn method_in(conn: &rusqlite::Connection, tool: &str) -> Result<Option<HttpMethod>> {
    let Some(id) = tool.strip_prefix(TOOL_PREFIX) else {
        return Ok(None);
    };
    Ok(store::find(conn, id)?.map(|row| row.def.method))
}
