//! The handlers: parse, call core in one line, answer. The caller was
//! authenticated (and rate-limited) by `auth::require_token` before the
//! handler runs, so nothing here reads a body for an unknown client.

use std::collections::HashMap;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use colmena_core::contracts::bus::{self, ListAuthorsArgs};
use colmena_core::inbox::authors::DirectoryEntry;
use colmena_core::inbox::{
    self, Caller, InboxQuery, Message, MessageReceipt, SendMessage, SentQuery,
};
use colmena_core::{AppError, Ctx, ErrorCode};
use serde_json::json;

use super::errors::Failure;

/// The query string as pairs; a key given twice is a 400.
fn query_pairs(raw: Option<String>) -> Result<HashMap<String, String>, Failure> {
    let mut pairs = HashMap::new();
    for (key, value) in url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
        if pairs.insert(key.to_string(), value.to_string()).is_some() {
            return Err(Failure::bad_request(
                &key,
                "repeated",
                format!("'{key}' is given more than once"),
            ));
        }
    }
    Ok(pairs)
}

fn flag(pairs: &HashMap<String, String>, key: &str) -> Result<Option<bool>, Failure> {
    match pairs.get(key).map(String::as_str) {
        None => Ok(None),
        Some("true" | "1") => Ok(Some(true)),
        Some("false" | "0") => Ok(Some(false)),
        Some(other) => Err(Failure::bad_request(
            key,
            "invalid_boolean",
            format!("{key} must be true or false, not '{other}'"),
        )),
    }
}

fn limit(pairs: &HashMap<String, String>) -> Result<Option<u32>, Failure> {
    pairs
        .get("limit")
        .map(|l| {
            l.parse::<u32>().map_err(|_| {
                Failure::bad_request(
                    "limit",
                    "invalid_number",
                    format!("limit must be a whole number, not '{l}'"),
                )
            })
        })
        .transpose()
}

/// A JSON body's `Content-Type`: JSON (`application/json`, `…+json`), none,
/// or the form type `curl -d` sends by default (the README's examples);
/// anything else is 415.
pub(super) fn json_content_type(headers: &HeaderMap) -> Result<(), Failure> {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return Ok(());
    };
    let essence = value
        .to_str()
        .ok()
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default();
    if essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
        || essence == "application/x-www-form-urlencoded"
    {
        return Ok(());
    }
    Err(Failure::with_status(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        AppError::invalid_field(
            "contentType",
            "unsupported_media_type",
            "the body must be JSON (Content-Type: application/json)",
        ),
    ))
}

/// A JSON request body as `T`: unreadable, malformed or the wrong shape
/// (`shape` says the right one) are each a clear 4xx naming `body`.
fn json_body<T: serde::de::DeserializeOwned>(
    body: Result<Bytes, BytesRejection>,
    shape: &str,
) -> Result<T, Failure> {
    let body = body.map_err(|e| {
        let error = AppError::invalid_field(
            "body",
            "unreadable",
            format!("the request body could not be read: {e}"),
        );
        Failure::with_status(e.status(), error)
    })?;
    serde_json::from_slice(&body).map_err(|e| {
        if e.is_data() {
            Failure::from(AppError::invalid_field(
                "body",
                "invalid_json_shape",
                format!("the JSON must be {shape}: {e}"),
            ))
        } else {
            Failure::bad_request(
                "body",
                "malformed_json",
                format!("the request body is not valid JSON: {e}"),
            )
        }
    })
}

/// A message as the REST route takes it: exactly these fields.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SendBody {
    body: String,
    #[serde(default)]
    priority: Option<String>,
    /// The message this one answers (issue 15); absent for older clients.
    #[serde(default, alias = "replyTo")]
    reply_to: Option<String>,
    /// The sender's own id for the message (issue 17): a retry with the
    /// same one answers the same receipt and delivers nothing twice.
    #[serde(default, alias = "messageId")]
    message_id: Option<String>,
}

pub async fn send(
    State(ctx): State<Ctx>,
    Path((id, to_id)): Path<(String, String)>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<MessageReceipt>), Failure> {
    json_content_type(&headers)?;
    let message: SendBody = json_body(
        body,
        "{\"body\": \"…\", \"priority\": \"normal\"|\"urgent\", \"reply_to\": \"…\", \"message_id\": \"…\"}",
    )?;
    let message = SendMessage {
        body: message.body,
        priority: message.priority,
        reply_to: message.reply_to,
        message_id: message.message_id,
    };
    let sent = inbox::messages::send(&ctx, &caller, &id, &to_id, message).await?;
    Ok((
        StatusCode::CREATED,
        Json(MessageReceipt {
            id: sent.id,
            created_at: sent.created_at,
        }),
    ))
}

pub async fn inbox(
    State(ctx): State<Ctx>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
    Extension(caller): Extension<Caller>,
) -> Result<Json<Vec<Message>>, Failure> {
    let pairs = query_pairs(raw)?;
    let query = InboxQuery {
        since: pairs.get("since").cloned(),
        unread_only: flag(&pairs, "unread_only")?,
        peek: flag(&pairs, "peek")?,
        limit: limit(&pairs)?,
    };
    let messages = inbox::messages::inbox(&ctx, &caller, &id, query)
        .await
        .map_err(query_error)?;
    Ok(Json(messages))
}

pub async fn sent(
    State(ctx): State<Ctx>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
    Extension(caller): Extension<Caller>,
) -> Result<Json<Vec<Message>>, Failure> {
    let pairs = query_pairs(raw)?;
    let query = SentQuery {
        since: pairs.get("since").cloned(),
        limit: limit(&pairs)?,
    };
    let messages = inbox::messages::sent(&ctx, &caller, &id, query)
        .await
        .map_err(query_error)?;
    Ok(Json(messages))
}

/// `GET /authors`: the bus's directory, for the caller to address mail.
pub async fn authors(
    State(ctx): State<Ctx>,
    Extension(caller): Extension<Caller>,
) -> Result<Json<Vec<DirectoryEntry>>, Failure> {
    let entries = bus::list_authors(&ctx, &caller, ListAuthorsArgs {}).await?;
    Ok(Json(entries))
}

pub async fn search(
    State(ctx): State<Ctx>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
    Extension(caller): Extension<Caller>,
) -> Result<Json<Vec<Message>>, Failure> {
    let pairs = query_pairs(raw)?;
    let text = pairs.get("q").map(String::as_str).unwrap_or_default();
    let messages = inbox::search::search(&ctx, &caller, &id, text, limit(&pairs)?)
        .await
        .map_err(query_error)?;
    Ok(Json(messages))
}

/// The thread a message is in, oldest first, as the token's author sees
/// it (issue 15). A message it neither sent nor received is a 404.
pub async fn thread(
    State(ctx): State<Ctx>,
    Path((id, message_id)): Path<(String, String)>,
    Extension(caller): Extension<Caller>,
) -> Result<Json<Vec<Message>>, Failure> {
    Ok(Json(
        inbox::messages::thread(&ctx, &caller, &id, &message_id).await?,
    ))
}

/// `{"ids": [...]}`: marks those messages of the author's inbox unread
/// again; answers `{"marked": n}`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct MarkUnreadBody {
    ids: Vec<String>,
}

pub async fn mark_unread(
    State(ctx): State<Ctx>,
    Path(id): Path<String>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<serde_json::Value>, Failure> {
    json_content_type(&headers)?;
    let body: MarkUnreadBody = json_body(body, "{\"ids\": [\"…\"]}")?;
    let marked = inbox::messages::mark_unread(&ctx, &caller, &id, body.ids).await?;
    Ok(Json(json!({ "marked": marked })))
}

/// A query parameter core refused (a bad `since`, `limit`) is a malformed
/// request: 400, not 422.
fn query_error(e: AppError) -> Failure {
    if e.code == ErrorCode::Validation {
        Failure::with_status(StatusCode::BAD_REQUEST, e)
    } else {
        Failure::from(e)
    }
}

pub async fn delete(
    State(ctx): State<Ctx>,
    Path(id): Path<String>,
    Extension(caller): Extension<Caller>,
) -> Result<StatusCode, Failure> {
    let me = caller.speaks_as(&ctx)?;
    inbox::messages::delete(&ctx, &caller, &me, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn openapi() -> Json<serde_json::Value> {
    Json(super::openapi::document())
}

pub async fn health() -> Json<serde_json::Value> {
    Json(json!({ "status": "ok", "version": env!("CARGO_PKG_VERSION") }))
}

pub async fn unknown_route() -> Response {
    Failure::from(AppError::new(
        ErrorCode::NotFound,
        "no such route: see /openapi.json for the API",
    ))
    .into_response()
}
