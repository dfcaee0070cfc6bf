//! Message search and threads over the network doors (issue 15, item 4): a real HTTP
//! server on 127.0.0.1, REST and MCP with bearer tokens. Author A's token
//! never finds B↔C mail, even when every word matches, and cannot search as
//! B.

#![allow(clippy::unwrap_used)]

mod common;

use colmena_core::inbox::{self, Caller, NewAuthor, SendMessage};
use colmena_core::secrets::BackendChoice;
use colmena_core::{Ctx, OpenOptions};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::sync::oneshot;

struct Server {
    _dir: tempfile::TempDir,
    ctx: Ctx,
    base: String,
    http: reqwest::Client,
    _stop: oneshot::Sender<()>,
}

async fn server() -> Server {
    let dir = tempfile::tempdir().unwrap();
    let ctx = colmena_core::workspace::open(OpenOptions {
        data_dir: dir.path().to_owned(),
        secret_backend: BackendChoice::File,
    })
    .await
    .unwrap();
    let listener = colmena_server::http::bind("127.0.0.1:0".parse().unwrap(), false)
        .await
        .unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(colmena_server::http::serve(
        ctx.clone(),
        listener,
        async move {
            let _ = stopped.await;
        },
    ));
    Server {
        _dir: dir,
        ctx,
        base,
        http: reqwest::Client::new(),
        _stop: stop,
    }
}

impl Server {
    async fn author(&self, name: &str) -> (String, String) {
        let created = inbox::authors::create(
            &self.ctx,
            NewAuthor {
                name: name.into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        (created.author.id, created.token)
    }

    async fn send(&self, from: &str, to: &str, body: &str) -> String {
        inbox::messages::send(
            &self.ctx,
            &Caller::ui(&self.ctx),
            from,
            to,
            SendMessage {
                body: body.into(),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .id
    }

    async fn rest(&self, token: &str, author: &str, q: &str) -> (StatusCode, Value) {
        let answer = self
            .http
            .get(format!(
                "{}/author/{author}/search?q={}",
                self.base,
                url::form_urlencoded::byte_serialize(q.as_bytes()).collect::<String>()
            ))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        let status = answer.status();
        (status, answer.json().await.unwrap())
    }

    /// Opens an MCP session for `token`; returns its id.
    async fn mcp_session(&self, token: &str) -> String {
        common::mcp_session(&self.http, &self.base, token).await
    }

    /// Calls a tool; returns the JSON-RPC `result`.
    async fn call(&self, token: &str, session: &str, tool: &str, args: Value) -> Value {
        common::call(&self.http, &self.base, token, session, tool, args).await
    }
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The messages in a tool result (structured, or JSON in its text).
fn tool_messages(result: &Value) -> Value {
    assert_ne!(result["isError"], json!(true), "{result}");
    if let Some(structured) = result.get("structuredContent") {
        if let Some(list) = structured.as_array() {
            return Value::Array(list.clone());
        }
        for key in ["messages", "result", "items"] {
            if structured[key].is_array() {
                return structured[key].clone();
            }
        }
    }
    let text = result["content"][0]["text"].as_str().unwrap();
    let value: Value = serde_json::from_str(text).unwrap();
    if value.is_array() {
        value
    } else {
        value["messages"].clone()
    }
}

#[tokio::test]
async fn a_token_finds_only_its_own_mail_over_rest_and_mcp() {
    let s = server().await;
    let (ana, ana_token) = s.author("Ana").await;
    let (beto, _) = s.author("Beto").await;
    let (cora, _) = s.author("Cora").await;
    let mine = s.send(&beto, &ana, "the harvest plan for the hive").await;
    let others = s
        .send(&beto, &cora, "the harvest plan for the hive, secret")
        .await;
    s.send(&cora, &beto, "harvest plan hive again").await;

    // REST: only Ana's side, however the words match.
    for q in [
        "harvest plan hive",
        "harvest",
        "secret",
        "owner:cora harvest",
    ] {
        let (status, list) = s.rest(&ana_token, &ana, q).await;
        assert_eq!(status, StatusCode::OK, "{q}: {list}");
        let found = ids(&list);
        assert!(!found.contains(&others), "{q}: {found:?}");
        assert!(found.iter().all(|id| id == &mine), "{q}: {found:?}");
    }
    let (_, list) = s.rest(&ana_token, &ana, "harvest").await;
    assert_eq!(ids(&list), vec![mine.clone()]);

    // REST as Beto with Ana's token: refused, nothing found.
    let (status, error) = s.rest(&ana_token, &beto, "harvest").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{error}");
    assert_eq!(error["code"], "forbidden");
    // An empty query is a clear 400 naming the field.
    let (status, error) = s.rest(&ana_token, &ana, "  ").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    assert_eq!(error["details"]["field"], "query");

    // MCP: the tool searches the token's own author; naming another is not
    // an argument it takes.
    let session = s.mcp_session(&ana_token).await;
    for q in ["harvest plan hive", "secret"] {
        let result = s
            .call(
                &ana_token,
                &session,
                "search_messages",
                json!({ "query": q }),
            )
            .await;
        let found = ids(&tool_messages(&result));
        assert!(!found.contains(&others), "{q}: {found:?}");
        assert!(found.iter().all(|id| id == &mine), "{q}: {found:?}");
    }
    let result = s
        .call(
            &ana_token,
            &session,
            "search_messages",
            json!({ "query": "harvest" }),
        )
        .await;
    assert_eq!(ids(&tool_messages(&result)), vec![mine.clone()]);
    let refused = s
        .call(
            &ana_token,
            &session,
            "search_messages",
            json!({ "query": "harvest", "as": beto }),
        )
        .await;
    // An unknown argument is refused (a tool error, or a JSON-RPC error
    // with no result), and nothing of Beto's comes back.
    let text = refused.to_string();
    assert!(
        refused["isError"] == json!(true) || refused.is_null(),
        "{refused}"
    );
    assert!(
        !text.contains(&others) && !text.contains("secret"),
        "{refused}"
    );
}

/// Threads over the doors: both ends read a thread over REST and MCP, a
/// third author's token gets a 404 (its own mail) or a 403 (posing as one of
/// them) and never a body; `mark-unread` counts only the recipient's mail.
#[tokio::test]
async fn a_thread_is_read_only_by_its_two_authors() {
    let s = server().await;
    let (ana, ana_token) = s.author("Ana").await;
    let (beto, beto_token) = s.author("Beto").await;
    let (cora, cora_token) = s.author("Cora").await;
    let first = s.send(&ana, &beto, "the private plan").await;
    // Beto answers over REST, in the thread.
    let answer = s
        .http
        .post(format!("{}/author/{beto}/message-to/{ana}", s.base))
        .bearer_auth(&beto_token)
        .json(&json!({ "body": "agreed, privately", "reply_to": first }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::CREATED);
    let answer: Value = answer.json().await.unwrap();
    let answer = answer["id"].as_str().unwrap().to_owned();

    let thread = |token: &str, author: &str, id: &str| {
        s.http
            .get(format!("{}/author/{author}/thread/{id}", s.base))
            .bearer_auth(token)
            .send()
    };
    let read = thread(&ana_token, &ana, &answer).await.unwrap();
    assert_eq!(read.status(), StatusCode::OK);
    let read: Value = read.json().await.unwrap();
    assert_eq!(ids(&read), vec![first.clone(), answer.clone()]);
    assert_eq!(read[1]["reply_to"], json!(first));

    for (author, status) in [
        (&cora, StatusCode::NOT_FOUND),
        (&ana, StatusCode::FORBIDDEN),
    ] {
        let refused = thread(&cora_token, author, &first).await.unwrap();
        assert_eq!(refused.status(), status);
        let text = refused.text().await.unwrap();
        assert!(!text.contains("private"), "{text}");
    }
    // Cora cannot answer into it either: the same 404 as no message at all.
    let intruding = s
        .http
        .post(format!("{}/author/{cora}/message-to/{ana}", s.base))
        .bearer_auth(&cora_token)
        .json(&json!({ "body": "me too", "reply_to": first }))
        .send()
        .await
        .unwrap();
    assert_eq!(intruding.status(), StatusCode::NOT_FOUND);
    let intruding: Value = intruding.json().await.unwrap();
    assert_eq!(intruding["details"]["field"], "reply_to");

    // MCP: the same, with the tool reading as the token's author.
    let session = s.mcp_session(&beto_token).await;
    let result = s
        .call(
            &beto_token,
            &session,
            "read_thread",
            json!({ "message_id": first }),
        )
        .await;
    assert_eq!(
        ids(&tool_messages(&result)),
        vec![first.clone(), answer.clone()]
    );
    let session = s.mcp_session(&cora_token).await;
    let result = s
        .call(
            &cora_token,
            &session,
            "read_thread",
            json!({ "message_id": first }),
        )
        .await;
    assert_eq!(result["isError"], json!(true), "{result}");
    assert!(!result.to_string().contains("private"), "{result}");

    // mark-unread: Beto reads his mail, then marks it unread again; Ana (the
    // sender) marks nothing; Cora is refused.
    let inbox = s
        .http
        .get(format!("{}/author/{beto}/inbox", s.base))
        .bearer_auth(&beto_token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        ids(&inbox.json::<Value>().await.unwrap()),
        vec![first.clone()]
    );
    let mark = |token: &str, author: &str| {
        s.http
            .post(format!("{}/author/{author}/mark-unread", s.base))
            .bearer_auth(token)
            .json(&json!({ "ids": [first] }))
            .send()
    };
    let marked = mark(&ana_token, &ana).await.unwrap();
    assert_eq!(marked.json::<Value>().await.unwrap()["marked"], 0);
    assert_eq!(
        mark(&cora_token, &beto).await.unwrap().status(),
        StatusCode::FORBIDDEN
    );
    let marked = mark(&beto_token, &beto).await.unwrap();
    assert_eq!(marked.status(), StatusCode::OK);
    assert_eq!(marked.json::<Value>().await.unwrap()["marked"], 1);
    let unread = inbox::authors::get(&s.ctx, &beto).await.unwrap().unread;
    assert_eq!(unread, 1);
    // A body of the wrong shape is a clear 422 naming the body.
    let wrong = s
        .http
        .post(format!("{}/author/{beto}/mark-unread", s.base))
        .bearer_auth(&beto_token)
        .json(&json!({ "id": first }))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        wrong.json::<Value>().await.unwrap()["details"]["field"],
        "body"
    );
}
