//! One contract per operation (ARCHITECTURE "where the code converges").
//!
//! Every operation reachable by models or outside clients has exactly one
//! input struct here, deriving `Deserialize` and `schemars::JsonSchema`:
//! the MCP tool, the built-in agent tool and the HTTP route deserialize that
//! struct, and every tool schema is generated from it by [`input_schema`] —
//! never written by hand. Each field has one limit, enforced by the
//! operation in core and, where JSON Schema can say it, shown in the schema.
//!
//! The names are the seeds': the canvas tools take camelCase arguments
//! (seed 001: `sessionId`, `variantId`, `presetId`, …), the bus tools the
//! seed 003 names (`to_author_name`, `unread_only`), the hive tools the
//! built-in agent tools' snake_case (`agent_id`, `query`).
//!
//! Each function takes the [`Caller`](crate::caller::Caller) its door built once
//! and does nothing but call the operation in its domain module: the logic
//! stays there.

pub mod activity;
pub mod bus;
pub mod canvas;
pub mod cron;
pub mod hive;
pub mod models;
mod progress;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub use progress::{Progress, ProgressSink, until_cancelled};

use crate::error::{AppError, Result};

/// The JSON schema of an operation's input: draft 2020-12, sub-schemas
/// inline, an object at the root, without the wrapper's title.
pub fn input_schema<T: JsonSchema>() -> Map<String, Value> {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut object = match serde_json::to_value(schema) {
        Ok(Value::Object(object)) => object,
        _ => Map::new(),
    };
    for noise in ["$schema", "title", "description"] {
        object.remove(noise);
    }
    object
        .entry("type")
        .or_insert_with(|| Value::String("object".into()));
    object
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    object
}

/// The schema as text, for the tool rows of the catalog.
pub fn input_schema_text<T: JsonSchema>() -> String {
    Value::Object(input_schema::<T>()).to_string()
}

/// Reads an operation's input from JSON arguments. A wrong shape is a
/// `validation` error naming the problem, never a panic or a protocol
/// failure.
pub fn parse<T: DeserializeOwned>(arguments: Value) -> Result<T> {
    let arguments = if arguments.is_null() {
        Value::Object(Map::new())
    } else {
        arguments
    };
    serde_json::from_value(arguments).map_err(|e| {
        AppError::new(
            crate::error::ErrorCode::Validation,
            format!("the arguments are not valid: {e}"),
        )
        .with_details(serde_json::json!({ "reason": "invalid_arguments" }))
    })
}

/// A list as an object, for answers that must be objects (MCP structured
/// content): `{ "<key>": [...] }`.
pub fn listed<T: serde::Serialize>(key: &str, items: Vec<T>) -> Result<Value> {
    Ok(serde_json::json!({ key: serde_json::to_value(items)? }))
}
