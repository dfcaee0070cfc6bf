//! Ollama chat: `POST {base}/api/chat` with `stream: true`; newline-delimited
//! JSON objects of `message` pieces, tool calls arriving whole (arguments as
//! an object), and a last object with `done: true` and the token counts.
//!
//! A user turn's images go in the message's `images`: a list of plain
//! base64 strings (no `data:` prefix, no media type — Ollama sniffs it).
//! `prompt_eval_count` is left out when the prompt came from Ollama's cache:
//! then the prompt tokens are "not reported", not zero.

use serde_json::{Value, json};

use super::openai::count;
use super::{
    ChatRequest, Decoded, Endpoint, FinishReason, Role, StreamDecoder, Usage, WireProtocol,
    WireRequest, join_url,
};
use crate::error::{AppError, ErrorCode, Result};

pub struct Ollama;

fn message(m: &super::Message) -> Value {
    match m.role {
        Role::User if m.images.is_empty() => json!({ "role": "user", "content": m.content }),
        Role::User => {
            let images: Vec<String> = m.images.iter().map(super::ImagePart::base64).collect();
            json!({ "role": "user", "content": m.content, "images": images })
        }
        Role::Assistant => {
            let mut out = json!({ "role": "assistant", "content": m.content });
            if !m.tool_calls.is_empty() {
                out["tool_calls"] = m
                    .tool_calls
                    .iter()
                    .map(|c| {
                        let arguments: Value =
                            serde_json::from_str(&c.arguments).unwrap_or_else(|_| json!({}));
                        json!({ "function": { "name": c.name, "arguments": arguments } })
                    })
                    .collect();
            }
            out
        }
        Role::Tool => json!({ "role": "tool", "content": m.content, "tool_name": m.tool_name }),
    }
}

impl WireProtocol for Ollama {
    fn request(&self, endpoint: &Endpoint, request: &ChatRequest) -> Result<WireRequest> {
        let mut messages = Vec::new();
        if let Some(system) = &request.system {
            messages.push(json!({ "role": "system", "content": system }));
        }
        messages.extend(request.messages.iter().map(message));
        let mut options = json!({ "num_predict": request.max_tokens });
        if let Some(t) = request.temperature {
            options["temperature"] = json!(t);
        }
        let mut body = json!({ "model": request.model, "messages": messages, "stream": true, "options": options });
        if !request.tools.is_empty() {
            body["tools"] = request
                .tools
                .iter()
                .map(|t| json!({ "type": "function", "function": { "name": t.name, "description": t.description, "parameters": t.parameters } }))
                .collect();
        }
        let mut headers = Vec::new();
        if let Some(key) = &endpoint.api_key {
            headers.push((
                "authorization".to_owned(),
                format!("Bearer {}", key.as_str()),
            ));
        }
        Ok(WireRequest {
            url: join_url(&endpoint.base_url, "api/chat"),
            headers,
            body,
        })
    }

    fn decoder(&self) -> Box<dyn StreamDecoder> {
        Box::new(Decoder {
            pending: Vec::new(),
            calls: 0,
            done: false,
        })
    }
}

struct Decoder {
    pending: Vec<u8>,
    calls: usize,
    done: bool,
}

impl Decoder {
    fn line(&mut self, line: &[u8], out: &mut Vec<Decoded>) -> Result<()> {
        let text = String::from_utf8_lossy(line);
        if text.trim().is_empty() {
            return Ok(());
        }
        let json: Value = serde_json::from_str(text.trim()).map_err(|e| {
            AppError::new(
                ErrorCode::Upstream,
                format!("the provider streamed something that is not JSON: {e}"),
            )
        })?;
        if let Some(error) = json["error"].as_str() {
            return Err(AppError::new(
                ErrorCode::Upstream,
                format!("the provider reported an error mid-stream: {error}"),
            )
            .with_details(json!({ "reason": "stream_error" })));
        }
        if let Some(text) = json["message"]["content"].as_str() {
            out.push(Decoded::Text(text.to_owned()));
        }
        for call in json["message"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let index = self.calls;
            self.calls += 1;
            out.push(Decoded::ToolCallStart {
                index,
                id: format!("call_{index}"),
                name: call["function"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            });
            out.push(Decoded::ToolCallArguments {
                index,
                fragment: call["function"]["arguments"].to_string(),
            });
        }
        if json["done"].as_bool() == Some(true) {
            self.done = true;
            out.push(Decoded::Usage(Usage {
                prompt_tokens: count(&json["prompt_eval_count"]),
                completion_tokens: count(&json["eval_count"]),
            }));
            out.push(Decoded::Finish(match json["done_reason"].as_str() {
                Some("length") => FinishReason::Length,
                _ if self.calls > 0 => FinishReason::ToolCalls,
                _ => FinishReason::Stop,
            }));
        }
        Ok(())
    }
}

impl StreamDecoder for Decoder {
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<Decoded>) -> Result<()> {
        self.pending.extend_from_slice(bytes);
        while let Some(newline) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=newline).collect();
            self.line(&line, out)?;
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<Decoded>) -> Result<()> {
        let rest = std::mem::take(&mut self.pending);
        self.line(&rest, out)?;
        if !self.done {
            return Err(
                AppError::new(ErrorCode::Upstream, "the stream ended before done")
                    .with_details(json!({ "reason": "stream_truncated" })),
            );
        }
        Ok(())
    }
}
