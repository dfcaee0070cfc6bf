//! The four REST routes of seed 001 over the canvas operations, for callers
//! that prefer REST to MCP. Same token, same contracts, same core:
//!
//! | route | contract |
//! |---|---|
//! | `GET /api/sessions/activity?limit=` | `contracts::canvas::activity` |
//! | `POST /api/sessions/{id}/items` | `contracts::canvas::add_item` |
//! | `POST /api/sessions/{id}/variants/{vid}/regenerate` | `contracts::canvas::regenerate` |
//! | `POST /api/sessions/sources/{id}/refresh` | `contracts::canvas::refresh_source` |

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Extension, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use axum::{Json, Router};
use colmena_core::canvas::activity::Activity;
use colmena_core::canvas::items::CanvasItem;
use colmena_core::canvas::sources::Source;
use colmena_core::canvas::variants::Round;
use colmena_core::contracts::{self, canvas};
use colmena_core::{AppError, Caller, Ctx};
use serde::Deserialize;
use serde_json::{Value, json};

use super::errors::Failure;

/// The routes; every one needs a token (`auth::require_token` is layered
/// on by the caller).
pub fn routes() -> Router<Ctx> {
    Router::new()
        .route("/api/sessions/activity", get(activity))
        .route("/api/sessions/{id}/items", post(add_item))
        .route(
            "/api/sessions/{id}/variants/{vid}/regenerate",
            post(regenerate),
        )
        .route("/api/sessions/sources/{id}/refresh", post(refresh_source))
}

#[derive(Debug, Deserialize)]
pub struct ActivityQuery {
    limit: Option<String>,
}

async fn activity(
    State(ctx): State<Ctx>,
    Extension(me): Extension<Caller>,
    Query(query): Query<ActivityQuery>,
) -> Result<Json<Vec<Activity>>, Failure> {
    let limit = query
        .limit
        .map(|l| {
            l.parse::<u32>().map_err(|_| {
                Failure::bad_request(
                    "limit",
                    "invalid_number",
                    format!("limit must be a whole number, not '{l}'"),
                )
            })
        })
        .transpose()?;
    let input = canvas::SessionActivity {
        session_id: None,
        limit,
    };
    Ok(Json(
        canvas::activity(&ctx, &me, input)
            .await
            .map_err(bad_query)?,
    ))
}

async fn add_item(
    State(ctx): State<Ctx>,
    Path(id): Path<String>,
    Extension(me): Extension<Caller>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<CanvasItem>), Failure> {
    super::routes::json_content_type(&headers)?;
    let mut fields = match json_body(body)? {
        Value::Object(fields) => fields,
        _ => {
            return Err(Failure::from(AppError::invalid_field(
                "body",
                "invalid_json_shape",
                "the body must be a JSON object with the item's fields",
            )));
        }
    };
    fields.insert("sessionId".into(), Value::String(id));
    let input = contracts::parse(Value::Object(fields))?;
    let item = canvas::add_item(&ctx, &me, input).await?;
    Ok((StatusCode::CREATED, Json(item)))
}

async fn regenerate(
    State(ctx): State<Ctx>,
    Path((id, vid)): Path<(String, String)>,
    Extension(me): Extension<Caller>,
) -> Result<Json<Round>, Failure> {
    let input = canvas::VariantRef {
        session_id: id,
        variant_id: vid,
    };
    Ok(Json(canvas::regenerate(&ctx, &me, input).await?))
}

async fn refresh_source(
    State(ctx): State<Ctx>,
    Path(id): Path<String>,
    Extension(me): Extension<Caller>,
) -> Result<(StatusCode, Json<Source>), Failure> {
    let input = canvas::SourceRefresh { source_id: id };
    let source = canvas::refresh_source(&ctx, &me, input).await?;
    Ok((StatusCode::ACCEPTED, Json(source)))
}

/// The request body as JSON; unreadable or malformed is 400.
fn json_body(body: Result<Bytes, BytesRejection>) -> Result<Value, Failure> {
    let body = body.map_err(|e| {
        let status = e.status();
        Failure::with_status(
            status,
            AppError::invalid_field(
                "body",
                "unreadable",
                format!("the request body could not be read: {e}"),
            ),
        )
    })?;
    if body.is_empty() {
        return Ok(json!({}));
    }
    serde_json::from_slice(&body).map_err(|e| {
        Failure::bad_request(
            "body",
            "malformed_json",
            format!("the request body is not valid JSON: {e}"),
        )
    })
}

/// A query parameter core refused is a malformed request: 400.
fn bad_query(e: AppError) -> Failure {
    if e.code == colmena_core::ErrorCode::Validation {
        Failure::with_status(StatusCode::BAD_REQUEST, e)
    } else {
        Failure::from(e)
    }
}
