//! The exact bytes each provider streams, written from a scripted reply, and
//! the bits of a request that rules match on.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use base64::Engine;

use crate::{Matcher, RecordedImage, Reply, Rule};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    OpenAi,
    Anthropic,
    Ollama,
}

/// What a rule can look at in a request, whatever the protocol.
pub(crate) struct RequestView {
    system: String,
    last_user: String,
    tool_results: usize,
    model: String,
    images: usize,
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

impl RequestView {
    pub(crate) fn of(protocol: Protocol, body: &Value) -> RequestView {
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let mut system = text_of(&body["system"]);
        let mut last_user = String::new();
        let mut tool_results = 0;
        for m in &messages {
            match m["role"].as_str() {
                Some("system") => system.push_str(&text_of(&m["content"])),
                Some("tool") => tool_results += 1,
                Some("user") => {
                    let blocks = m["content"].as_array().cloned().unwrap_or_default();
                    let results = blocks.iter().filter(|b| b["type"] == "tool_result").count();
                    tool_results += results;
                    if results == 0 || protocol != Protocol::Anthropic {
                        last_user = text_of(&m["content"]);
                    }
                }
                _ => {}
            }
        }
        RequestView {
            system,
            last_user,
            tool_results,
            model: body["model"].as_str().unwrap_or_default().to_owned(),
            images: images(protocol, body).len(),
        }
    }

    pub(crate) fn matches(&self, when: &Matcher) -> bool {
        when.system_contains
            .as_ref()
            .is_none_or(|s| self.system.contains(s.as_str()))
            && when
                .last_user_contains
                .as_ref()
                .is_none_or(|s| self.last_user.contains(s.as_str()))
            && when.tool_results.is_none_or(|n| n == self.tool_results)
            && when.model.as_ref().is_none_or(|m| *m == self.model)
            && when.images.is_none_or(|n| n == self.images)
    }
}

fn decode(data: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD
        .decode(data.as_bytes())
        .ok()
}

fn image(
    message: usize,
    role: &str,
    media_type: Option<String>,
    data: Option<&str>,
    shape_ok: bool,
) -> RecordedImage {
    let bytes = data.and_then(decode);
    let well_formed = shape_ok && bytes.as_ref().is_some_and(|b| !b.is_empty());
    let data = bytes.unwrap_or_default();
    RecordedImage {
        message,
        role: role.to_owned(),
        media_type,
        size: data.len(),
        data,
        well_formed,
    }
}

/// The image parts of a request, in order, as each protocol writes them:
/// OpenAI-compatible `{"type":"image_url","image_url":{"url":"data:…"}}`
/// content parts, Anthropic `{"type":"image","source":{"type":"base64",…}}`
/// blocks, Ollama `images: ["<base64>"]` on a message.
pub(crate) fn images(protocol: Protocol, body: &Value) -> Vec<RecordedImage> {
    let mut out = Vec::new();
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    for (index, m) in messages.iter().enumerate() {
        let role = m["role"].as_str().unwrap_or_default();
        match protocol {
            Protocol::OpenAi => {
                for part in m["content"].as_array().into_iter().flatten() {
                    if part["type"] != "image_url" {
                        continue;
                    }
                    let url = part["image_url"]["url"].as_str().unwrap_or_default();
                    let parsed = url
                        .strip_prefix("data:")
                        .and_then(|rest| rest.split_once(";base64,"));
                    out.push(match parsed {
                        Some((mime, data)) => image(
                            index,
                            role,
                            Some(mime.to_owned()),
                            Some(data),
                            !mime.is_empty(),
                        ),
                        None => image(index, role, None, None, false),
                    });
                }
            }
            Protocol::Anthropic => {
                for block in m["content"].as_array().into_iter().flatten() {
                    if block["type"] != "image" {
                        continue;
                    }
                    let source = &block["source"];
                    let media_type = source["media_type"].as_str().map(str::to_owned);
                    let shape_ok = source["type"] == "base64" && media_type.is_some();
                    out.push(image(
                        index,
                        role,
                        media_type,
                        source["data"].as_str(),
                        shape_ok,
                    ));
                }
            }
            Protocol::Ollama => {
                for data in m["images"].as_array().into_iter().flatten() {
                    let text = data.as_str();
                    let shape_ok = text.is_some_and(|t| !t.starts_with("data:"));
                    out.push(image(index, role, None, text, shape_ok));
                }
            }
        }
    }
    out
}

/// Splits text into the deltas a model would stream: word by word (with the
/// space kept), or `size` characters at a time.
fn text_pieces(text: &str, size: Option<usize>) -> Vec<String> {
    match size {
        Some(size) if size > 0 => {
            let chars: Vec<char> = text.chars().collect();
            chars.chunks(size).map(|c| c.iter().collect()).collect()
        }
        _ => {
            let mut pieces = Vec::new();
            let mut current = String::new();
            for ch in text.chars() {
                current.push(ch);
                if ch == ' ' {
                    pieces.push(std::mem::take(&mut current));
                }
            }
            if !current.is_empty() {
                pieces.push(current);
            }
            pieces
        }
    }
}

fn argument_pieces(arguments: &str, size: Option<usize>) -> Vec<String> {
    text_pieces(arguments, Some(size.unwrap_or(usize::MAX).max(1)))
}

fn tokens(text: &str) -> u64 {
    text.split_whitespace().count() as u64 + 1
}

/// The whole stream of a reply, as the provider would send it.
pub(crate) fn encode(protocol: Protocol, rule: &Rule, model: &str) -> Vec<u8> {
    match protocol {
        Protocol::OpenAi => openai(rule, model),
        Protocol::Anthropic => anthropic(rule, model),
        Protocol::Ollama => ollama(rule, model),
    }
}

fn sse(out: &mut Vec<u8>, event: Option<&str>, data: &Value) {
    if let Some(event) = event {
        out.extend_from_slice(format!("event: {event}\n").as_bytes());
    }
    out.extend_from_slice(format!("data: {data}\n\n").as_bytes());
}

fn openai(rule: &Rule, model: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let chunk = |delta: Value, finish: Value| {
        json!({ "id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0, "model": model,
                "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }] })
    };
    sse(
        &mut out,
        None,
        &chunk(json!({ "role": "assistant", "content": "" }), Value::Null),
    );
    let (text, calls, error) = match &rule.reply {
        Reply::Text { text } => (text.as_str(), Vec::new(), None),
        Reply::ToolCalls { text, calls } => (text.as_str(), calls.clone(), None),
        Reply::MidStreamError { text, message } => {
            (text.as_str(), Vec::new(), Some(message.as_str()))
        }
        Reply::Error { .. } => ("", Vec::new(), None),
    };
    for piece in text_pieces(text, rule.text_piece) {
        sse(
            &mut out,
            None,
            &chunk(json!({ "content": piece }), Value::Null),
        );
    }
    if let Some(message) = error {
        sse(
            &mut out,
            None,
            &json!({ "error": { "message": message, "type": "server_error" } }),
        );
        return out;
    }
    for (index, call) in calls.iter().enumerate() {
        sse(
            &mut out,
            None,
            &chunk(
                json!({ "tool_calls": [{ "index": index, "id": format!("call_{index}"), "type": "function",
                                          "function": { "name": call.name, "arguments": "" } }] }),
                Value::Null,
            ),
        );
        for piece in argument_pieces(&call.arguments, rule.argument_piece) {
            sse(
                &mut out,
                None,
                &chunk(
                    json!({ "tool_calls": [{ "index": index, "function": { "arguments": piece } }] }),
                    Value::Null,
                ),
            );
        }
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    sse(&mut out, None, &chunk(json!({}), json!(finish)));
    if !rule.omit_usage {
        sse(
            &mut out,
            None,
            &json!({ "id": "chatcmpl-scripted", "object": "chat.completion.chunk", "model": model, "choices": [],
                     "usage": { "prompt_tokens": 42, "completion_tokens": tokens(text), "total_tokens": 42 + tokens(text) } }),
        );
    }
    out.extend_from_slice(b"data: [DONE]\n\n");
    out
}

fn anthropic(rule: &Rule, model: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut message = json!({ "id": "msg_scripted", "type": "message", "role": "assistant",
                              "model": model, "content": [], "stop_reason": null,
                              "usage": { "input_tokens": 42, "output_tokens": 1 } });
    if rule.omit_usage {
        message["usage"] = json!({});
    }
    sse(
        &mut out,
        Some("message_start"),
        &json!({ "type": "message_start", "message": message }),
    );
    let (text, calls, error) = match &rule.reply {
        Reply::Text { text } => (text.as_str(), Vec::new(), None),
        Reply::ToolCalls { text, calls } => (text.as_str(), calls.clone(), None),
        Reply::MidStreamError { text, message } => {
            (text.as_str(), Vec::new(), Some(message.as_str()))
        }
        Reply::Error { .. } => ("", Vec::new(), None),
    };
    let mut index = 0;
    if !text.is_empty() || calls.is_empty() {
        sse(
            &mut out,
            Some("content_block_start"),
            &json!({ "type": "content_block_start", "index": index, "content_block": { "type": "text", "text": "" } }),
        );
        sse(&mut out, Some("ping"), &json!({ "type": "ping" }));
        for piece in text_pieces(text, rule.text_piece) {
            sse(
                &mut out,
                Some("content_block_delta"),
                &json!({ "type": "content_block_delta", "index": index, "delta": { "type": "text_delta", "text": piece } }),
            );
        }
        if let Some(message) = error {
            sse(
                &mut out,
                Some("error"),
                &json!({ "type": "error", "error": { "type": "overloaded_error", "message": message } }),
            );
            return out;
        }
        sse(
            &mut out,
            Some("content_block_stop"),
            &json!({ "type": "content_block_stop", "index": index }),
        );
        index += 1;
    }
    for (n, call) in calls.iter().enumerate() {
        sse(
            &mut out,
            Some("content_block_start"),
            &json!({ "type": "content_block_start", "index": index,
                     "content_block": { "type": "tool_use", "id": format!("toolu_{n}"), "name": call.name, "input": {} } }),
        );
        for piece in argument_pieces(&call.arguments, rule.argument_piece) {
            sse(
                &mut out,
                Some("content_block_delta"),
                &json!({ "type": "content_block_delta", "index": index, "delta": { "type": "input_json_delta", "partial_json": piece } }),
            );
        }
        sse(
            &mut out,
            Some("content_block_stop"),
            &json!({ "type": "content_block_stop", "index": index }),
        );
        index += 1;
    }
    let stop = if calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    let mut delta = json!({ "type": "message_delta", "delta": { "stop_reason": stop, "stop_sequence": null },
                            "usage": { "output_tokens": tokens(text) } });
    if rule.omit_usage
        && let Some(fields) = delta.as_object_mut()
    {
        fields.remove("usage");
    }
    sse(&mut out, Some("message_delta"), &delta);
    sse(
        &mut out,
        Some("message_stop"),
        &json!({ "type": "message_stop" }),
    );
    out
}

fn ollama(rule: &Rule, model: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut line = |value: Value| {
        out.extend_from_slice(value.to_string().as_bytes());
        out.push(b'\n');
    };
    let (text, calls, error) = match &rule.reply {
        Reply::Text { text } => (text.as_str(), Vec::new(), None),
        Reply::ToolCalls { text, calls } => (text.as_str(), calls.clone(), None),
        Reply::MidStreamError { text, message } => {
            (text.as_str(), Vec::new(), Some(message.as_str()))
        }
        Reply::Error { .. } => ("", Vec::new(), None),
    };
    for piece in text_pieces(text, rule.text_piece) {
        line(
            json!({ "model": model, "message": { "role": "assistant", "content": piece }, "done": false }),
        );
    }
    if let Some(message) = error {
        line(json!({ "error": message }));
        return out;
    }
    if !calls.is_empty() {
        let tool_calls: Vec<Value> = calls
            .iter()
            .map(|c| {
                let arguments: Value = serde_json::from_str(&c.arguments)
                    .unwrap_or(Value::String(c.arguments.clone()));
                json!({ "function": { "name": c.name, "arguments": arguments } })
            })
            .collect();
        line(
            json!({ "model": model, "message": { "role": "assistant", "content": "", "tool_calls": tool_calls }, "done": false }),
        );
    }
    let mut last = json!({ "model": model, "message": { "role": "assistant", "content": "" }, "done": true,
                           "done_reason": "stop", "prompt_eval_count": 42, "eval_count": tokens(text) });
    if rule.omit_usage
        && let Some(fields) = last.as_object_mut()
    {
        fields.remove("prompt_eval_count");
        fields.remove("eval_count");
    }
    line(last);
    out
}

/// Without a chunk size, pieces are whole events or lines, like a real server.
pub(crate) fn natural_pieces(protocol: Protocol, bytes: &[u8]) -> Vec<Vec<u8>> {
    let separator: &[u8] = match protocol {
        Protocol::Ollama => b"\n",
        _ => b"\n\n",
    };
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while at + separator.len() <= bytes.len() {
        if &bytes[at..at + separator.len()] == separator {
            pieces.push(bytes[start..at + separator.len()].to_vec());
            at += separator.len();
            start = at;
        } else {
            at += 1;
        }
    }
    if start < bytes.len() {
        pieces.push(bytes[start..].to_vec());
    }
    pieces
}
