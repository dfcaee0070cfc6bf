//! Anthropic messages: `POST {base}/v1/messages` with `stream: true`; SSE
//! events `message_start`, `content_block_start` (text or `tool_use`),
//! `content_block_delta` (`text_delta` or `input_json_delta` pieces of a
//! tool's JSON input), `message_delta` (stop reason, output tokens),
//! `message_stop`, and `error` inside the stream.
//!
//! A user turn with images is a list of blocks: one `{"type":"image",
//! "source":{"type":"base64","media_type":…,"data":…}}` per image, then the
//! text — images before text, as Anthropic's vision guide advises. A count
//! missing from `usage` is "not reported", not zero.

use serde_json::{Value, json};

use super::openai::count;
use super::sse::SseDecoder;
use super::{
    ChatRequest, Decoded, Endpoint, FinishReason, Role, StreamDecoder, Usage, WireProtocol,
    WireRequest, join_url,
};
use crate::error::{AppError, ErrorCode, Result};

pub struct Anthropic;

const VERSION: &str = "2023-06-01";

/// Anthropic wants alternating user/assistant turns; tool results are user
/// turns of `tool_result` blocks, merged when several follow each other.
fn messages(request: &ChatRequest) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for m in &request.messages {
        let (role, blocks) = match m.role {
            Role::User if m.images.is_empty() => {
                ("user", vec![json!({ "type": "text", "text": m.content })])
            }
            Role::User => {
                let mut blocks: Vec<Value> = m
                    .images
                    .iter()
                    .map(|image| {
                        json!({ "type": "image", "source": { "type": "base64", "media_type": image.media_type, "data": image.base64() } })
                    })
                    .collect();
                // An empty text block is refused: images alone are a turn.
                if !m.content.is_empty() {
                    blocks.push(json!({ "type": "text", "text": m.content }));
                }
                ("user", blocks)
            }
            Role::Assistant => {
                let mut blocks = Vec::new();
                if !m.content.is_empty() {
                    blocks.push(json!({ "type": "text", "text": m.content }));
                }
                for call in &m.tool_calls {
                    let input: Value =
                        serde_json::from_str(&call.arguments).unwrap_or_else(|_| json!({}));
                    blocks.push(json!({ "type": "tool_use", "id": call.id, "name": call.name, "input": input }));
                }
                ("assistant", blocks)
            }
            Role::Tool => (
                "user",
                vec![
                    json!({ "type": "tool_result", "tool_use_id": m.tool_call_id, "content": m.content }),
                ],
            ),
        };
        match out.last_mut() {
            Some(last) if last["role"] == role => {
                if let Some(existing) = last["content"].as_array_mut() {
                    existing.extend(blocks);
                }
            }
            _ => out.push(json!({ "role": role, "content": blocks })),
        }
    }
    out
}

impl WireProtocol for Anthropic {
    fn request(&self, endpoint: &Endpoint, request: &ChatRequest) -> Result<WireRequest> {
        let mut body = json!({
            "model": request.model,
            "max_tokens": request.max_tokens,
            "messages": messages(request),
            "stream": true,
        });
        if let Some(system) = &request.system {
            body["system"] = json!(system);
        }
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        if !request.tools.is_empty() {
            body["tools"] = request
                .tools
                .iter()
                .map(|t| json!({ "name": t.name, "description": t.description, "input_schema": t.parameters }))
                .collect();
        }
        let mut headers = vec![
            ("anthropic-version".to_owned(), VERSION.to_owned()),
            ("accept".to_owned(), "text/event-stream".to_owned()),
        ];
        if let Some(key) = &endpoint.api_key {
            headers.push(("x-api-key".to_owned(), key.as_str().to_owned()));
        }
        let base = endpoint.base_url.trim_end_matches('/');
        let path = if base.ends_with("/v1") {
            "messages"
        } else {
            "v1/messages"
        };
        Ok(WireRequest {
            url: join_url(base, path),
            headers,
            body,
        })
    }

    fn decoder(&self) -> Box<dyn StreamDecoder> {
        Box::new(Decoder {
            sse: SseDecoder::new(),
            stopped: false,
        })
    }
}

struct Decoder {
    sse: SseDecoder,
    stopped: bool,
}

impl Decoder {
    fn event(&mut self, data: &str, out: &mut Vec<Decoded>) -> Result<()> {
        let json: Value = serde_json::from_str(data).map_err(|e| {
            AppError::new(
                ErrorCode::Upstream,
                format!("the provider streamed something that is not JSON: {e}"),
            )
        })?;
        let index = json["index"].as_u64().unwrap_or(0) as usize;
        match json["type"].as_str().unwrap_or_default() {
            "message_start" => {
                let usage = &json["message"]["usage"];
                out.push(Decoded::Usage(Usage {
                    prompt_tokens: count(&usage["input_tokens"]),
                    completion_tokens: count(&usage["output_tokens"]),
                }));
            }
            "content_block_start" => {
                let block = &json["content_block"];
                match block["type"].as_str() {
                    Some("tool_use") => out.push(Decoded::ToolCallStart {
                        index,
                        id: block["id"].as_str().unwrap_or_default().to_owned(),
                        name: block["name"].as_str().unwrap_or_default().to_owned(),
                    }),
                    Some("text") => {
                        if let Some(text) = block["text"].as_str().filter(|t| !t.is_empty()) {
                            out.push(Decoded::Text(text.to_owned()));
                        }
                    }
                    _ => {}
                }
            }
            "content_block_delta" => {
                let delta = &json["delta"];
                match delta["type"].as_str() {
                    Some("text_delta") => out.push(Decoded::Text(
                        delta["text"].as_str().unwrap_or_default().to_owned(),
                    )),
                    Some("input_json_delta") => out.push(Decoded::ToolCallArguments {
                        index,
                        fragment: delta["partial_json"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned(),
                    }),
                    _ => {}
                }
            }
            "message_delta" => {
                let usage = &json["usage"];
                if usage.is_object() {
                    out.push(Decoded::Usage(Usage {
                        prompt_tokens: count(&usage["input_tokens"]),
                        completion_tokens: count(&usage["output_tokens"]),
                    }));
                }
                if let Some(reason) = json["delta"]["stop_reason"].as_str() {
                    out.push(Decoded::Finish(match reason {
                        "end_turn" | "stop_sequence" => FinishReason::Stop,
                        "tool_use" => FinishReason::ToolCalls,
                        "max_tokens" => FinishReason::Length,
                        _ => FinishReason::Other,
                    }));
                }
            }
            "message_stop" => self.stopped = true,
            "error" => {
                let message = json["error"]["message"].as_str().unwrap_or("unknown error");
                return Err(AppError::new(
                    ErrorCode::Upstream,
                    format!("the provider reported an error mid-stream: {message}"),
                )
                .with_details(json!({ "reason": "stream_error" })));
            }
            _ => {}
        }
        Ok(())
    }
}

impl StreamDecoder for Decoder {
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<Decoded>) -> Result<()> {
        for event in self.sse.feed(bytes) {
            self.event(&event.data, out)?;
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<Decoded>) -> Result<()> {
        if let Some(event) = self.sse.finish() {
            self.event(&event.data, out)?;
        }
        if !self.stopped {
            return Err(
                AppError::new(ErrorCode::Upstream, "the stream ended before message_stop")
                    .with_details(json!({ "reason": "stream_truncated" })),
            );
        }
        Ok(())
    }
}
