//! The OpenAPI 3.1 document served at `/openapi.json`. Written by hand (the
//! canvas item body is generated from its contract): the
//! API is small and fixed by the seed, and a test checks that every route
//! the router serves is described here and nothing else.

use serde_json::{Value, json};

use super::config::{MAX_SESSIONS_PER_AUTHOR, MAX_STREAMS_PER_AUTHOR};

/// The paths the document describes (checked against the router by a test).
pub const PATHS: [&str; 14] = [
    "/author/{id}/message-to/{to_id}",
    "/author/{id}/inbox",
    "/author/{id}/sent",
    "/author/{id}/search",
    "/author/{id}/thread/{message_id}",
    "/author/{id}/mark-unread",
    "/authors",
    "/message/{id}",
    "/health",
    "/api/sessions/activity",
    "/api/sessions/{id}/items",
    "/api/sessions/{id}/variants/{vid}/regenerate",
    "/api/sessions/sources/{id}/refresh",
    "/mcp",
];

/// The one answer of every `/author/{id}/…` route whose id is not the
/// token's author: the same for an author that does not exist, so no token
/// can find out who is on the bus by trying ids.
const NOT_YOURS: &str = "The id is not the token's author: someone else's, or no author at all (the same answer for both; details.reason not_your_author).";

fn path_id(name: &str, description: &str) -> Value {
    json!({ "name": name, "in": "path", "required": true, "description": description, "schema": { "type": "string" } })
}

fn object_response(description: &str) -> Value {
    json!({ "description": description, "content": { "application/json": { "schema": { "type": "object" } } } })
}

/// The item fields of `session_add_item`, generated from its contract; the
/// canvas id comes from the path.
fn item_fields() -> Value {
    let mut schema =
        colmena_core::contracts::input_schema::<colmena_core::contracts::canvas::SessionAddItem>();
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.remove("sessionId");
    }
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|r| r != "sessionId");
    }
    Value::Object(schema)
}

/// The canvas routes of seed 001 and the MCP endpoint.
fn canvas_paths() -> Value {
    json!({
        "/api/sessions/activity": { "get": {
            "summary": "The latest activity of your canvases, newest first",
            "parameters": [{ "name": "limit", "in": "query", "required": false, "description": "1–100, default 20.", "schema": { "type": "integer", "minimum": 1, "maximum": 100, "default": 20 } }],
            "responses": {
                "200": { "description": "Activity lines: client, dotted tool name, detail.", "content": { "application/json": { "schema": { "type": "array", "items": { "type": "object" } } } } },
                "400": error_response("limit is not a number from 1 to 100."),
                "401": error_response("No token, or not a valid one.")
            }
        } },
        "/api/sessions/{id}/items": { "post": {
            "summary": "Add an item to a canvas (session_add_item)",
            "parameters": [path_id("id", "The canvas.")],
            "requestBody": { "required": true, "content": { "application/json": { "schema": item_fields() } } },
            "responses": {
                "201": object_response("The item, an immutable snapshot."),
                "400": error_response("The body is not JSON."),
                "401": error_response("No token, or not a valid one."),
                "404": error_response("No such canvas of yours (or no such source item)."),
                "422": error_response("A field has the wrong type or breaks its limit.")
            }
        } },
        "/api/sessions/{id}/variants/{vid}/regenerate": { "post": {
            "summary": "Generate a variant again: one model call, one new round",
            "parameters": [path_id("id", "The canvas."), path_id("vid", "The variant.")],
            "responses": {
                "200": object_response("The new round."),
                "401": error_response("No token, or not a valid one."),
                "404": error_response("No such canvas or variant of yours."),
                "409": error_response("No model to generate with."),
                "502": error_response("The model's provider failed.")
            }
        } },
        "/api/sessions/sources/{id}/refresh": { "post": {
            "summary": "Refresh an upstream source in the background",
            "parameters": [path_id("id", "The source.")],
            "responses": {
                "202": object_response("The source, now refreshing."),
                "401": error_response("No token, or not a valid one."),
                "404": error_response("No such source of yours."),
                "409": error_response("A custom source has nothing to fetch.")
            }
        } },
        "/mcp": {
            "post": {
                "summary": "The MCP server (streamable HTTP): the canvas, bus and hive tools",
                "description": format!("JSON-RPC as the MCP specification gives it. The bearer token's author is who acts: a role's token reaches the bus tools only (any other tool answers isError, code forbidden). A browser Origin other than a loopback page, or a Host other than a loopback name, is refused. One author holds at most {MAX_SESSIONS_PER_AUTHOR} sessions; an idle session is closed (after 5 minutes by default)."),
                "responses": {
                    "200": { "description": "A JSON-RPC answer, or an event stream." },
                    "401": error_response("No token, or not a valid one."),
                    "403": error_response("A foreign Origin or Host, or another author's session."),
                    "404": error_response("No such session (never opened, or closed): initialize a new one."),
                    "429": error_response(&format!("Over the token's rate, or an initialize with {MAX_SESSIONS_PER_AUTHOR} sessions open (details.reason too_many_sessions)."))
                }
            },
            "get": {
                "summary": "A session's event stream (a person's token only)",
                "description": format!("Server-sent events for the session named in mcp-session-id. One author holds at most {MAX_STREAMS_PER_AUTHOR} streams, and streams together hold at most three quarters of the server's connections. Refusals of a stream close the connection."),
                "responses": {
                    "200": { "description": "The event stream." },
                    "401": error_response("No token, or not a valid one."),
                    "403": error_response("Another author's session."),
                    "404": error_response("No such session."),
                    "405": error_response("A role's token: no event stream (code forbidden, details.reason role_no_event_stream). Allow: POST, DELETE."),
                    "429": error_response(&format!("{MAX_STREAMS_PER_AUTHOR} streams open already (details.reason too_many_streams).")),
                    "503": error_response("Every stream slot is taken (details.reason stream_slots_full); Retry-After.")
                }
            },
            "delete": {
                "summary": "Close a session",
                "responses": {
                    "202": { "description": "Closed." },
                    "401": error_response("No token, or not a valid one."),
                    "403": error_response("Another author's session."),
                    "404": error_response("No such session.")
                }
            }
        }
    })
}

fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
    })
}

fn since() -> Value {
    json!({
        "name": "since", "in": "query", "required": false,
        "description": "Only messages created after this ISO 8601 time (2026-11-30T10:00:00Z; a bare date means its midnight UTC).",
        "schema": { "type": "string" }
    })
}

fn limit() -> Value {
    json!({
        "name": "limit", "in": "query", "required": false,
        "description": "Most messages returned (1–1000, default 100).",
        "schema": { "type": "integer", "minimum": 1, "maximum": 1000, "default": 100 }
    })
}

fn author_id(description: &str) -> Value {
    json!({ "name": "id", "in": "path", "required": true, "description": description, "schema": { "type": "string" } })
}

fn message_list(description: &str) -> Value {
    json!({
        "description": description,
        "content": { "application/json": { "schema": {
            "type": "array", "items": { "$ref": "#/components/schemas/Message" }
        } } }
    })
}

pub fn document() -> Value {
    let mut document = bus_document();
    if let (Some(Value::Object(paths)), Value::Object(more)) =
        (document.get_mut("paths"), canvas_paths())
    {
        paths.extend(more);
    }
    document
}

fn bus_document() -> Value {
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Colmena: the bus, the canvas routes and MCP",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Messages between long-lived roles and people (seed 003). Every call carries the bearer token of the author it acts as: the sender for POST and /sent, the recipient for /inbox. Errors are {code, message, details} with a stable code."
        },
        "security": [{ "bearer": [] }],
        "paths": {
            "/author/{id}/message-to/{to_id}": { "post": {
                "summary": "Send a message",
                "parameters": [
                    author_id("The sender: must be the token's author."),
                    { "name": "to_id", "in": "path", "required": true, "description": "The recipient's author id.", "schema": { "type": "string" } }
                ],
                "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/SendMessage" } } } },
                "responses": {
                    "201": { "description": "Stored (durably) for the recipient — or, for a message_id this sender already used for the same mail, the receipt of that message (nothing is delivered twice).", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Receipt" } } } },
                    "400": error_response("The body is not JSON."),
                    "401": error_response("No token, or not a valid one."),
                    "403": error_response(NOT_YOURS),
                    "404": error_response("The recipient does not exist."),
                    "409": error_response("The message_id was already used by this sender for other mail."),
                    "413": error_response("The request is larger than 1 MiB."),
                    "422": error_response("Empty body, body over 64 KiB, or a priority other than normal/urgent.")
                }
            } },
            "/author/{id}/inbox": { "get": {
                "summary": "Read an inbox, oldest first",
                "description": "The messages returned are marked read, unless peek=true.",
                "parameters": [
                    author_id("The recipient: must be the token's author."),
                    since(),
                    { "name": "unread_only", "in": "query", "required": false, "schema": { "type": "boolean", "default": true } },
                    { "name": "peek", "in": "query", "required": false, "description": "Look without marking read.", "schema": { "type": "boolean", "default": false } },
                    limit()
                ],
                "responses": {
                    "200": message_list("The messages."),
                    "400": error_response("A query parameter does not parse (since, unread_only, peek, limit)."),
                    "401": error_response("No token, or not a valid one."),
                    "403": error_response(NOT_YOURS)
                }
            } },
            "/author/{id}/sent": { "get": {
                "summary": "What an author sent, oldest first",
                "parameters": [author_id("The sender: must be the token's author."), since(), limit()],
                "responses": {
                    "200": message_list("The messages."),
                    "400": error_response("A query parameter does not parse."),
                    "401": error_response("No token, or not a valid one."),
                    "403": error_response(NOT_YOURS)
                }
            } },
            "/author/{id}/search": { "get": {
                "summary": "Full-text search over the mail an author sent or received",
                "description": "Best match first, then newest. All words must match; \"…\" for a phrase, -word to exclude. Nothing is marked read.",
                "parameters": [
                    author_id("The searcher: must be the token's author."),
                    { "name": "q", "in": "query", "required": true, "description": "What to search for (1–1000 bytes).", "schema": { "type": "string" } },
                    { "name": "limit", "in": "query", "required": false, "description": "Most messages returned (1–100, default 20).", "schema": { "type": "integer", "minimum": 1, "maximum": 100, "default": 20 } }
                ],
                "responses": {
                    "200": message_list("The messages."),
                    "400": error_response("No q, or a limit that does not parse or is out of range."),
                    "401": error_response("No token, or not a valid one."),
                    "403": error_response(NOT_YOURS)
                }
            } },
            "/author/{id}/thread/{message_id}": { "get": {
                "summary": "The thread a message is in, oldest first",
                "description": "Every message of the conversation the message belongs to (its answers, and what it answers), its latest 500. A message in no thread is a thread of one. Nothing is marked read.",
                "parameters": [
                    author_id("The reader: must be the token's author."),
                    { "name": "message_id", "in": "path", "required": true, "description": "Any message of the thread, one the author sent or received.", "schema": { "type": "string" } }
                ],
                "responses": {
                    "200": message_list("The messages."),
                    "401": error_response("No token, or not a valid one."),
                    "403": error_response(NOT_YOURS),
                    "404": error_response("No such message in the author's mail.")
                }
            } },
            "/author/{id}/mark-unread": { "post": {
                "summary": "Mark messages of an inbox unread again",
                "parameters": [author_id("The recipient: must be the token's author.")],
                "requestBody": { "required": true, "content": { "application/json": { "schema": {
                    "type": "object", "required": ["ids"], "additionalProperties": false,
                    "properties": { "ids": { "type": "array", "items": { "type": "string" }, "description": "Messages of this inbox; others, and ones already unread, are ignored." } }
                } } } },
                "responses": {
                    "200": { "description": "How many were marked: {\"marked\": n}.", "content": { "application/json": { "schema": { "type": "object", "required": ["marked"], "properties": { "marked": { "type": "integer" } } } } } },
                    "400": error_response("The body is not JSON."),
                    "401": error_response("No token, or not a valid one."),
                    "403": error_response(NOT_YOURS),
                    "422": error_response("The body is not {\"ids\": [...]}.")
                }
            } },
            "/authors": { "get": {
                "summary": "Who is on this bus, by name: the directory to address mail",
                "responses": {
                    "200": { "description": "Every author, by name: [{\"id\", \"name\", \"kind\": \"user\"|\"role\"}].", "content": { "application/json": { "schema": { "type": "array", "items": { "type": "object", "required": ["id", "name", "kind"], "properties": { "id": { "type": "string" }, "name": { "type": "string" }, "kind": { "type": "string", "enum": ["user", "role"] } } } } } } },
                    "401": error_response("No token, or not a valid one.")
                }
            } },
            "/message/{id}": { "delete": {
                "summary": "Delete a message (its sender only)",
                "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string" } }],
                "responses": {
                    "204": { "description": "Deleted." },
                    "401": error_response("No token, or not a valid one."),
                    "403": error_response("The token's author did not send it."),
                    "404": error_response("No such message.")
                }
            } },
            "/health": { "get": {
                "summary": "Is the server up",
                "security": [],
                "responses": { "200": { "description": "Up.", "content": { "application/json": { "schema": { "type": "object" } } } } }
            } }
        },
        "components": {
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer", "description": "The author's token (colmena_ + 64 hex), shown once when the author is created or its token rotated." } },
            "schemas": {
                "SendMessage": {
                    "type": "object", "required": ["body"], "additionalProperties": false,
                    "properties": {
                        "body": { "type": "string", "minLength": 1, "description": "At most 64 KiB." },
                        "priority": { "type": "string", "enum": ["normal", "urgent"], "default": "normal", "description": "Urgent wakes a role at once and notifies a person." },
                        "reply_to": { "type": "string", "description": "The id of the message this one answers, one between the same two authors; omit it to start a new conversation." },
                        "message_id": { "type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[A-Za-z0-9._:-]+$", "description": "Your own id for this message (a UUID, say). Sending again with the same id answers the same receipt and delivers nothing twice; the same id for other mail is 409 conflict. Omit it and every send is a new message." }
                    }
                },
                "Receipt": {
                    "type": "object", "required": ["id", "created_at"],
                    "properties": { "id": { "type": "string" }, "created_at": { "type": "string", "format": "date-time" } }
                },
                "Message": {
                    "type": "object", "required": ["id", "from", "to", "body", "priority", "created_at", "read_at"],
                    "properties": {
                        "id": { "type": "string" },
                        "from": { "type": "string", "description": "The sender's author id." },
                        "to": { "type": "string", "description": "The recipient's author id." },
                        "body": { "type": "string" },
                        "priority": { "type": "string", "enum": ["normal", "urgent"] },
                        "created_at": { "type": "string", "format": "date-time" },
                        "read_at": { "type": ["string", "null"], "format": "date-time", "description": "null while unread." },
                        "reply_to": { "type": ["string", "null"], "description": "The message this one answers; null when none (or it was deleted)." },
                        "thread_root": { "type": ["string", "null"], "description": "The first message of the thread this one is in; null while in none." }
                    }
                },
                "Error": {
                    "type": "object", "required": ["code", "message"],
                    "properties": {
                        "code": { "type": "string", "enum": ["not_found", "validation", "conflict", "unauthorized", "forbidden", "precondition", "upstream", "cancelled", "internal", "rate_limited", "busy"] },
                        "message": { "type": "string" },
                        "details": { "type": ["object", "null"] }
                    }
                }
            }
        }
    })
}
