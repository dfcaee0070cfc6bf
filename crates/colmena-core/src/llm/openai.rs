//! OpenAI-compatible chat completions (OpenAI, OpenRouter, Groq, vLLM,
//! LM Studio, llama.cpp server…): `POST {base}/chat/completions` with
//! `stream: true`; SSE `data:` chunks of `choices[0].delta`, tool-call
//! arguments split across deltas and keyed by `index`, `data: [DONE]` last.
//! An error can arrive inside the stream as `data: {"error": …}`.
//!
//! A user turn with images becomes a content array: the text part (when
//! there is text), then one `{"type":"image_url","image_url":{"url":
//! "data:<mime>;base64,…"}}` per image — text first, as OpenRouter
//! recommends for the models behind it. Usage comes in the last chunk when
//! the server honours `stream_options.include_usage`; llama.cpp's server
//! may instead send only `timings` (`prompt_n` + `cache_n` prompt tokens,
//! `predicted_n` generated), which are its true counts and are read as
//! such; a server that sends neither reports nothing (`None`).

use serde_json::{Value, json};

use super::sse::SseDecoder;
use super::{
    ChatRequest, Decoded, Endpoint, FinishReason, Role, StreamDecoder, Usage, WireProtocol,
    WireRequest, join_url,
};
use crate::error::{AppError, ErrorCode, Result};

pub struct OpenAi;

/// A user turn's content: its text, or text and images as parts.
fn user_content(m: &super::Message) -> Value {
    if m.images.is_empty() {
        return json!(m.content);
    }
    let mut parts = Vec::new();
    if !m.content.is_empty() {
        parts.push(json!({ "type": "text", "text": m.content }));
    }
    for image in &m.images {
        parts.push(json!({ "type": "image_url", "image_url": { "url": image.data_url() } }));
    }
    Value::Array(parts)
}

fn message(m: &super::Message) -> Value {
    match m.role {
        Role::User => json!({ "role": "user", "content": user_content(m) }),
        Role::Assistant => {
            let mut out = json!({ "role": "assistant", "content": m.content });
            if !m.tool_calls.is_empty() {
                out["tool_calls"] = m
                    .tool_calls
                    .iter()
                    .map(|c| json!({ "id": c.id, "type": "function", "function": { "name": c.name, "arguments": c.arguments } }))
                    .collect();
            }
            out
        }
        Role::Tool => {
            json!({ "role": "tool", "tool_call_id": m.tool_call_id, "content": m.content })
        }
    }
}

impl WireProtocol for OpenAi {
    fn request(&self, endpoint: &Endpoint, request: &ChatRequest) -> Result<WireRequest> {
        let mut messages = Vec::new();
        if let Some(system) = &request.system {
            messages.push(json!({ "role": "system", "content": system }));
        }
        messages.extend(request.messages.iter().map(message));
        let mut body = json!({
            "model": request.model,
            "messages": messages,
            "stream": true,
            "stream_options": { "include_usage": true },
            "max_tokens": request.max_tokens,
        });
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        if !request.tools.is_empty() {
            body["tools"] = request
                .tools
                .iter()
                .map(|t| json!({ "type": "function", "function": { "name": t.name, "description": t.description, "parameters": t.parameters } }))
                .collect();
        }
        let mut headers = vec![("accept".to_owned(), "text/event-stream".to_owned())];
        if let Some(key) = &endpoint.api_key {
            headers.push((
                "authorization".to_owned(),
                format!("Bearer {}", key.as_str()),
            ));
        }
        Ok(WireRequest {
            url: join_url(&endpoint.base_url, "chat/completions"),
            headers,
            body,
        })
    }

    fn decoder(&self) -> Box<dyn StreamDecoder> {
        Box::new(Decoder {
            sse: SseDecoder::new(),
            done: false,
        })
    }
}

struct Decoder {
    sse: SseDecoder,
    done: bool,
}

impl Decoder {
    fn event(&mut self, data: &str, out: &mut Vec<Decoded>) -> Result<()> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let json: Value = serde_json::from_str(data).map_err(|e| {
            AppError::new(
                ErrorCode::Upstream,
                format!("the provider streamed something that is not JSON: {e}"),
            )
        })?;
        if let Some(error) = json.get("error") {
            let message = error["message"]
                .as_str()
                .or(error.as_str())
                .unwrap_or("unknown error");
            return Err(AppError::new(
                ErrorCode::Upstream,
                format!("the provider reported an error mid-stream: {message}"),
            )
            .with_details(json!({ "reason": "stream_error" })));
        }
        if let Some(usage) = json.get("usage").filter(|u| u.is_object()) {
            out.push(Decoded::Usage(Usage {
                prompt_tokens: count(&usage["prompt_tokens"]),
                completion_tokens: count(&usage["completion_tokens"]),
            }));
        } else if let Some(timings) = json.get("timings").filter(|t| t.is_object()) {
            let cached = count(&timings["cache_n"]).unwrap_or(0);
            out.push(Decoded::Usage(Usage {
                prompt_tokens: count(&timings["prompt_n"]).map(|n| n.saturating_add(cached)),
                completion_tokens: count(&timings["predicted_n"]),
            }));
        }
        let Some(choice) = json["choices"].get(0) else {
            return Ok(());
        };
        let delta = &choice["delta"];
        if let Some(text) = delta["content"].as_str() {
            out.push(Decoded::Text(text.to_owned()));
        }
        if let Some(calls) = delta["tool_calls"].as_array() {
            for (position, call) in calls.iter().enumerate() {
                let index = call["index"].as_u64().map_or(position, |i| i as usize);
                let id = call["id"].as_str().unwrap_or_default();
                let name = call["function"]["name"].as_str().unwrap_or_default();
                if !id.is_empty() || !name.is_empty() {
                    out.push(Decoded::ToolCallStart {
                        index,
                        id: id.to_owned(),
                        name: name.to_owned(),
                    });
                }
                if let Some(fragment) = call["function"]["arguments"]
                    .as_str()
                    .filter(|f| !f.is_empty())
                {
                    out.push(Decoded::ToolCallArguments {
                        index,
                        fragment: fragment.to_owned(),
                    });
                }
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            out.push(Decoded::Finish(match reason {
                "stop" => FinishReason::Stop,
                "tool_calls" | "function_call" => FinishReason::ToolCalls,
                "length" => FinishReason::Length,
                _ => FinishReason::Other,
            }));
        }
        Ok(())
    }
}

/// A token count as the server wrote it; absent (or not a count) is `None`.
pub(super) fn count(value: &Value) -> Option<u32> {
    value.as_u64().map(|n| u32::try_from(n).unwrap_or(u32::MAX))
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
        if !self.done {
            return Err(
                AppError::new(ErrorCode::Upstream, "the stream ended before [DONE]")
                    .with_details(json!({ "reason": "stream_truncated" })),
            );
        }
        Ok(())
    }
}
