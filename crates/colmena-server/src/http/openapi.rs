//! The OpenAPI 3.1 document served at `/openapi.json`. Written by hand: the
//! API is small and fixed by the seed, and a test checks that every route
//! the router serves is described here and nothing else.

use serde_json::{Value, json};

/// The paths the document describes (checked against the router by a test).
pub const PATHS: [&str; 5] = [
    "/author/{id}/message-to/{to_id}",
    "/author/{id}/inbox",
    "/author/{id}/sent",
    "/message/{id}",
    "/health",
];

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
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Colmena bus",
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
                    "201": { "description": "Stored (durably) for the recipient.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Receipt" } } } },
                    "400": error_response("The body is not JSON."),
                    "401": error_response("No token, or not a valid one."),
                    "403": error_response("The token belongs to another author."),
                    "404": error_response("The sender or the recipient does not exist."),
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
                    "403": error_response("Someone else's inbox."),
                    "404": error_response("No such author.")
                }
            } },
            "/author/{id}/sent": { "get": {
                "summary": "What an author sent, oldest first",
                "parameters": [author_id("The sender: must be the token's author."), since(), limit()],
                "responses": {
                    "200": message_list("The messages."),
                    "400": error_response("A query parameter does not parse."),
                    "401": error_response("No token, or not a valid one."),
                    "403": error_response("Someone else's sent mail."),
                    "404": error_response("No such author.")
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
                    "type": "object", "required": ["body"], "additionalProperties": true,
                    "properties": {
                        "body": { "type": "string", "minLength": 1, "description": "At most 64 KiB." },
                        "priority": { "type": "string", "enum": ["normal", "urgent"], "default": "normal", "description": "Urgent wakes a role at once and notifies a person." }
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
                        "read_at": { "type": ["string", "null"], "format": "date-time", "description": "null while unread." }
                    }
                },
                "Error": {
                    "type": "object", "required": ["code", "message"],
                    "properties": {
                        "code": { "type": "string", "enum": ["not_found", "validation", "conflict", "unauthorized", "forbidden", "precondition", "upstream", "cancelled", "internal"] },
                        "message": { "type": "string" },
                        "details": { "type": ["object", "null"] }
                    }
                }
            }
        }
    })
}
