//! Provider clients against the scripted server, over real HTTP on
//! 127.0.0.1, in the exact wire formats (SPEC H22).

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use colmena_core::ErrorCode;
use colmena_core::llm::{
    self, CallOptions, ChatRequest, Endpoint, FinishReason, Message, RetryPolicy, StreamEvent,
    ToolCall, ToolSpec,
};
use colmena_core::providers::ProviderKind;
use colmena_scripted_llm::{Protocol, Reply, Rule, Script, ScriptedLlm};
use serde_json::json;
use zeroize::Zeroizing;

const KINDS: [(ProviderKind, Protocol); 3] = [
    (ProviderKind::OpenaiCompatible, Protocol::OpenAi),
    (ProviderKind::Anthropic, Protocol::Anthropic),
    (ProviderKind::Ollama, Protocol::Ollama),
];

async fn server(rules: Vec<Rule>) -> ScriptedLlm {
    ScriptedLlm::start(Script { rules }).await.unwrap()
}

fn endpoint(server: &ScriptedLlm, kind: ProviderKind, protocol: Protocol) -> Endpoint {
    Endpoint {
        kind,
        base_url: server.base_url(protocol),
        api_key: Some(Zeroizing::new("sk-wire-test-0123456789".to_owned())),
        local: None,
    }
}

fn request(text: &str) -> ChatRequest {
    ChatRequest {
        model: "scripted-1".into(),
        system: Some("You are a test.".into()),
        messages: vec![Message::user(text)],
        tools: vec![ToolSpec {
            name: "web_fetch".into(),
            description: "Fetch a page".into(),
            parameters: json!({ "type": "object", "properties": { "url": { "type": "string" } }, "required": ["url"] }),
        }],
        max_tokens: 256,
        temperature: None,
    }
}

fn fast_options() -> CallOptions {
    CallOptions {
        retry: RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(20),
            max_delay: Duration::from_millis(500),
        },
        ..CallOptions::default()
    }
}

async fn call(
    endpoint: &Endpoint,
    request: &ChatRequest,
    options: &CallOptions,
) -> (colmena_core::Result<llm::ChatResponse>, Vec<StreamEvent>) {
    let mut events = Vec::new();
    let result = llm::chat(endpoint, request, options, &mut |e| events.push(e)).await;
    (result, events)
}

#[tokio::test]
async fn h22_text_streams_whatever_the_chunk_boundaries() {
    let text = "Hola, ñandú — la colmena 🐝 zumba en mayo.";
    for (kind, protocol) in KINDS {
        for chunk in [1, 2, 3, 7, 64] {
            let s = server(vec![Rule::text(text).chunked(chunk).text_in_pieces(3)]).await;
            let (result, events) = call(
                &endpoint(&s, kind, protocol),
                &request("hi"),
                &fast_options(),
            )
            .await;
            let response = result.unwrap_or_else(|e| panic!("{kind:?} chunk {chunk}: {e:?}"));
            assert_eq!(response.text, text, "{kind:?} chunk {chunk}");
            assert_eq!(response.finish, FinishReason::Stop);
            assert_eq!(response.usage.prompt_tokens, Some(42), "{kind:?}");
            assert!(response.usage.completion_tokens.is_some_and(|n| n > 0));
            let streamed: String = events
                .iter()
                .filter_map(|e| {
                    if let StreamEvent::Text(t) = e {
                        Some(t.as_str())
                    } else {
                        None
                    }
                })
                .collect();
            assert_eq!(streamed, text);
            assert!(events.len() > 5, "{kind:?}: text arrives in pieces");
        }
    }
}

#[tokio::test]
async fn h22_tool_call_arguments_split_across_deltas_are_reassembled() {
    let arguments = r#"{"url":"https://example.com/a?b=1&c=ñ","note":"line\nbreak"}"#;
    for (kind, protocol) in KINDS {
        let s = server(vec![
            Rule::new(Reply::ToolCalls {
                text: "Let me look.".into(),
                calls: vec![
                    colmena_scripted_llm::ScriptedCall {
                        name: "web_fetch".into(),
                        arguments: arguments.into(),
                    },
                    colmena_scripted_llm::ScriptedCall {
                        name: "memory_read".into(),
                        arguments: r#"{"title":"x"}"#.into(),
                    },
                ],
            })
            .arguments_in_pieces(3)
            .chunked(5),
        ])
        .await;
        let (result, events) = call(
            &endpoint(&s, kind, protocol),
            &request("fetch it"),
            &fast_options(),
        )
        .await;
        let response = result.unwrap_or_else(|e| panic!("{kind:?}: {e:?}"));
        assert_eq!(response.finish, FinishReason::ToolCalls, "{kind:?}");
        assert_eq!(response.tool_calls.len(), 2, "{kind:?}");
        assert_eq!(response.tool_calls[0].name, "web_fetch");
        let parsed: serde_json::Value =
            serde_json::from_str(&response.tool_calls[0].arguments).unwrap();
        assert_eq!(
            parsed,
            serde_json::from_str::<serde_json::Value>(arguments).unwrap(),
            "{kind:?}"
        );
        assert_eq!(response.tool_calls[1].name, "memory_read");
        assert!(!response.tool_calls[0].id.is_empty());
        assert!(events.iter().any(
            |e| matches!(e, StreamEvent::ToolCallStarted { name, .. } if name == "web_fetch")
        ));
    }
}

#[tokio::test]
async fn h22_an_error_in_the_middle_of_the_stream_is_an_upstream_error_after_the_text_so_far() {
    for (kind, protocol) in KINDS {
        let s = server(vec![Rule::new(Reply::MidStreamError {
            text: "Partial answer".into(),
            message: "overloaded, try later".into(),
        })])
        .await;
        let (result, events) = call(
            &endpoint(&s, kind, protocol),
            &request("hi"),
            &fast_options(),
        )
        .await;
        let err = result.unwrap_err();
        assert_eq!(err.code, ErrorCode::Upstream, "{kind:?}");
        assert!(
            err.message.contains("overloaded, try later"),
            "{kind:?}: {}",
            err.message
        );
        assert!(
            events
                .iter()
                .any(|e| matches!(e, StreamEvent::Text(t) if t.contains("Partial"))),
            "{kind:?}"
        );
    }
}

#[tokio::test]
async fn h22_a_429_with_retry_after_is_retried_then_succeeds() {
    for (kind, protocol) in KINDS {
        let s = server(vec![
            Rule::new(Reply::Error {
                status: 429,
                message: "slow down".into(),
                retry_after: Some("0.2".into()),
            }),
            Rule::new(Reply::Error {
                status: 503,
                message: "busy".into(),
                retry_after: None,
            }),
            Rule::text("finally"),
        ])
        .await;
        let started = Instant::now();
        let (result, _) = call(
            &endpoint(&s, kind, protocol),
            &request("hi"),
            &fast_options(),
        )
        .await;
        assert_eq!(result.unwrap().text, "finally", "{kind:?}");
        assert_eq!(s.requests().len(), 3);
        assert!(
            started.elapsed() >= Duration::from_millis(200),
            "Retry-After was honoured"
        );
    }
}

#[tokio::test]
async fn h22_rate_limiting_that_does_not_stop_ends_in_a_clear_error() {
    let s = server(vec![
        Rule::new(Reply::Error {
            status: 429,
            message: "quota".into(),
            retry_after: Some("0".into()),
        })
        .repeat(),
    ])
    .await;
    let (result, _) = call(
        &endpoint(&s, ProviderKind::OpenaiCompatible, Protocol::OpenAi),
        &request("hi"),
        &fast_options(),
    )
    .await;
    let err = result.unwrap_err();
    assert_eq!(err.code, ErrorCode::Upstream);
    assert_eq!(err.details.unwrap()["reason"], "rate_limited");
    assert_eq!(s.requests().len(), 4, "one call and three retries");
}

#[tokio::test]
async fn h22_a_refused_key_is_named_as_such_and_not_retried() {
    for (kind, protocol) in KINDS {
        let s = server(vec![Rule::error(401, "invalid x-api-key").repeat()]).await;
        let (result, _) = call(
            &endpoint(&s, kind, protocol),
            &request("hi"),
            &fast_options(),
        )
        .await;
        let err = result.unwrap_err();
        assert_eq!(err.code, ErrorCode::Upstream);
        assert!(
            err.message.contains("refused the API key"),
            "{}",
            err.message
        );
        assert!(err.message.contains("invalid x-api-key"));
        assert_eq!(err.details.unwrap()["reason"], "auth_refused");
        assert_eq!(s.requests().len(), 1);
    }
}

#[tokio::test]
async fn h22_cancelling_stops_the_http_stream() {
    for (kind, protocol) in KINDS {
        // A stream of at least 25 s (100 words, 250 ms apart): ending the
        // call with the stream still unfinished on the server is what shows
        // it did not wait for the end, however slow the machine.
        let words: Vec<String> = (1..=100).map(|n| format!("w{n}")).collect();
        let s = server(vec![Rule::text(&words.join(" ")).slow(250)]).await;
        let options = fast_options();
        let cancel = options.cancel.clone();
        let endpoint = endpoint(&s, kind, protocol);
        let req = request("hi");
        let result = llm::chat(&endpoint, &req, &options, &mut |e| {
            if matches!(e, StreamEvent::Text(_)) {
                cancel.cancel();
            }
        })
        .await;
        assert_eq!(result.unwrap_err().code, ErrorCode::Cancelled, "{kind:?}");
        // A hang guard, not a timing claim.
        let deadline = Instant::now() + Duration::from_secs(60);
        while s.disconnects() == 0 && s.completed() == 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(
            s.disconnects(),
            1,
            "{kind:?}: the server saw the connection close"
        );
        assert_eq!(s.completed(), 0, "{kind:?}: the stream was read to its end");
    }
}

#[tokio::test]
async fn h22_requests_carry_the_key_the_system_prompt_the_tools_and_the_tool_results() {
    for (kind, protocol) in KINDS {
        let s = server(vec![Rule::text("ok")]).await;
        let mut req = request("use the tool");
        let call_ = ToolCall {
            id: "call_7".into(),
            name: "web_fetch".into(),
            arguments: r#"{"url":"https://a"}"#.into(),
        };
        req.messages
            .push(Message::assistant("", vec![call_.clone()]));
        req.messages.push(Message::tool_result(&call_, "page text"));
        call(&endpoint(&s, kind, protocol), &req, &fast_options())
            .await
            .0
            .unwrap();
        let seen = &s.requests()[0];
        let body = &seen.body;
        assert_eq!(body["stream"], true);
        match protocol {
            Protocol::OpenAi => {
                assert_eq!(
                    seen.headers["authorization"],
                    "Bearer sk-wire-test-0123456789"
                );
                assert_eq!(body["messages"][0]["role"], "system");
                assert_eq!(body["tools"][0]["function"]["name"], "web_fetch");
                assert_eq!(body["messages"][2]["tool_calls"][0]["id"], "call_7");
                assert_eq!(body["messages"][3]["role"], "tool");
                assert_eq!(body["messages"][3]["tool_call_id"], "call_7");
            }
            Protocol::Anthropic => {
                assert_eq!(seen.headers["x-api-key"], "sk-wire-test-0123456789");
                assert_eq!(seen.headers["anthropic-version"], "2023-06-01");
                assert_eq!(body["system"], "You are a test.");
                assert_eq!(body["tools"][0]["input_schema"]["required"][0], "url");
                assert_eq!(body["messages"][1]["content"][0]["type"], "tool_use");
                assert_eq!(
                    body["messages"][1]["content"][0]["input"]["url"],
                    "https://a"
                );
                assert_eq!(body["messages"][2]["role"], "user");
                assert_eq!(body["messages"][2]["content"][0]["type"], "tool_result");
                assert_eq!(body["messages"][2]["content"][0]["tool_use_id"], "call_7");
            }
            Protocol::Ollama => {
                assert_eq!(body["messages"][0]["role"], "system");
                assert_eq!(
                    body["messages"][2]["tool_calls"][0]["function"]["arguments"]["url"],
                    "https://a"
                );
                assert_eq!(body["messages"][3]["role"], "tool");
            }
        }
    }
}

#[tokio::test]
async fn an_unreachable_provider_is_an_upstream_error_naming_it() {
    let endpoint = Endpoint {
        kind: ProviderKind::OpenaiCompatible,
        base_url: "http://127.0.0.1:9/v1".into(),
        api_key: None,
        local: None,
    };
    let (result, _) = call(&endpoint, &request("hi"), &fast_options()).await;
    let err = result.unwrap_err();
    assert_eq!(err.code, ErrorCode::Upstream);
    assert!(err.message.contains("127.0.0.1:9"), "{}", err.message);
}
