//! Contract tests of the REST bus (SPEC B1–B3) over loopback with a real
//! HTTP client: every status the API promises, `peek`, `since`,
//! `unread_only`, and the sender always taken from the token.

#![allow(clippy::unwrap_used)]

use colmena_core::inbox::{self, NewAuthor};
use colmena_core::secrets::BackendChoice;
use colmena_core::{Ctx, OpenOptions};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

struct Bus {
    _dir: tempfile::TempDir,
    ctx: Ctx,
    base: String,
    http: reqwest::Client,
}

struct Who {
    id: String,
    token: String,
}

async fn bus() -> Bus {
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
    tokio::spawn(colmena_server::http::serve(
        ctx.clone(),
        listener,
        std::future::pending(),
    ));
    Bus {
        _dir: dir,
        ctx,
        base,
        http: reqwest::Client::new(),
    }
}

impl Bus {
    async fn author(&self, name: &str) -> Who {
        let created = inbox::authors::create(
            &self.ctx,
            NewAuthor {
                name: name.into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        Who {
            id: created.author.id,
            token: created.token,
        }
    }

    async fn send(&self, from: &Who, as_id: &str, to: &str, body: Value) -> (StatusCode, Value) {
        let response = self
            .http
            .post(format!("{}/author/{as_id}/message-to/{to}", self.base))
            .bearer_auth(&from.token)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    async fn get(&self, token: Option<&str>, path: &str) -> (StatusCode, Value) {
        let mut request = self.http.get(format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        (status, response.json().await.unwrap_or(Value::Null))
    }
}

fn bodies(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|m| m["body"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn b3_send_then_read_with_the_seeds_fields_oldest_first_marking_read() {
    let bus = bus().await;
    let (clon, amb) = (bus.author("Clonador").await, bus.author("Ambrosio").await);

    let (status, receipt) = bus
        .send(
            &clon,
            &clon.id,
            &amb.id,
            json!({"body": "He añadido el secret."}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert!(
        receipt["id"].is_string() && receipt["created_at"].is_string(),
        "{receipt}"
    );
    let (status, _) = bus
        .send(
            &clon,
            &clon.id,
            &amb.id,
            json!({"body": "Segundo", "priority": "urgent"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);

    // peek: nothing is marked.
    let path = format!("/author/{}/inbox?peek=true", amb.id);
    let (status, peeked) = bus.get(Some(&amb.token), &path).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(bodies(&peeked), ["He añadido el secret.", "Segundo"]);
    let first = &peeked[0];
    for field in [
        "id",
        "from",
        "to",
        "body",
        "priority",
        "created_at",
        "read_at",
    ] {
        assert!(first.get(field).is_some(), "missing {field}: {first}");
    }
    assert_eq!(first["from"], "clonador");
    assert_eq!(first["to"], "ambrosio");
    assert_eq!(first["priority"], "normal");
    assert_eq!(peeked[1]["priority"], "urgent");
    assert!(first["read_at"].is_null());

    // A real read returns them and marks them read; the next read is empty.
    let path = format!("/author/{}/inbox", amb.id);
    let (_, read) = bus.get(Some(&amb.token), &path).await;
    assert_eq!(read.as_array().unwrap().len(), 2);
    assert!(read[0]["read_at"].is_string());
    let (_, again) = bus.get(Some(&amb.token), &path).await;
    assert_eq!(again, json!([]));
    // unread_only=false still shows them, read.
    let path = format!("/author/{}/inbox?unread_only=false&peek=true", amb.id);
    let (_, all) = bus.get(Some(&amb.token), &path).await;
    assert_eq!(bodies(&all), ["He añadido el secret.", "Segundo"]);
    assert!(all[1]["read_at"].is_string());

    // The sender sees what it sent.
    let (status, sent) = bus
        .get(Some(&clon.token), &format!("/author/{}/sent", clon.id))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(bodies(&sent), ["He añadido el secret.", "Segundo"]);
}

/// The directory (issue 37): a token holder lists the bus's authors by
/// name, to address mail; no token, no list; nothing but id, name and kind.
#[tokio::test]
async fn the_directory_lists_every_author_by_name_to_token_holders_only() {
    let bus = bus().await;
    let zoe = bus.author("Zoe").await;
    let _ana = bus.author("ana").await;
    let (status, list) = bus.get(Some(&zoe.token), "/authors").await;
    assert_eq!(status, StatusCode::OK);
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    let ana = names.iter().position(|n| *n == "ana").unwrap();
    let zoe_at = names.iter().position(|n| *n == "Zoe").unwrap();
    assert!(ana < zoe_at, "by name, case aside: {names:?}");
    for entry in list.as_array().unwrap() {
        let mut keys: Vec<&str> = entry
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(keys, ["id", "kind", "name"], "no token or settings leak");
    }
    let (status, _) = bus.get(None, "/authors").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = bus.get(Some("colmena_not-a-token"), "/authors").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn b3_since_filters_both_inbox_and_sent() {
    let bus = bus().await;
    let (a, b) = (bus.author("Ana").await, bus.author("Beto").await);
    bus.send(&a, &a.id, &b.id, json!({"body": "uno"})).await;
    let (_, second) = bus.send(&a, &a.id, &b.id, json!({"body": "dos"})).await;
    bus.send(&a, &a.id, &b.id, json!({"body": "tres"})).await;
    // The messages after the first one's time (a client's "last seen").
    let (_, peeked) = bus
        .get(Some(&b.token), &format!("/author/{}/inbox?peek=true", b.id))
        .await;
    let first_at = peeked[0]["created_at"].as_str().unwrap().to_owned();
    let since = url_encode(&first_at);
    let (status, after) = bus
        .get(
            Some(&b.token),
            &format!("/author/{}/inbox?since={since}&peek=true", b.id),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(bodies(&after), ["dos", "tres"]);
    let (_, sent) = bus
        .get(
            Some(&a.token),
            &format!("/author/{}/sent?since={since}", a.id),
        )
        .await;
    assert_eq!(bodies(&sent), ["dos", "tres"]);
    assert_eq!(sent[0]["id"], second["id"]);
    // A time in the future: nothing.
    let (_, none) = bus
        .get(
            Some(&b.token),
            &format!("/author/{}/inbox?since=2999-01-01&peek=true", b.id),
        )
        .await;
    assert_eq!(none, json!([]));
}

fn url_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[tokio::test]
async fn b3_the_sender_is_always_the_tokens_author() {
    let bus = bus().await;
    let (mallory, ana, beto) = (
        bus.author("Mallory").await,
        bus.author("Ana").await,
        bus.author("Beto").await,
    );
    // Mallory tries to send as Ana: 403, and nothing reaches Beto.
    let (status, error) = bus
        .send(
            &mallory,
            &ana.id,
            &beto.id,
            json!({"body": "soy Ana, de verdad"}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(error["code"], "forbidden");
    let (_, inbox) = bus
        .get(
            Some(&beto.token),
            &format!("/author/{}/inbox?peek=true", beto.id),
        )
        .await;
    assert_eq!(inbox, json!([]));
    // Mallory cannot read Ana's inbox or sent mail either.
    let (status, _) = bus
        .get(Some(&mallory.token), &format!("/author/{}/inbox", ana.id))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = bus
        .get(Some(&mallory.token), &format!("/author/{}/sent", ana.id))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // Sending as itself works and says so.
    bus.send(&mallory, &mallory.id, &beto.id, json!({"body": "hola"}))
        .await;
    let (_, inbox) = bus
        .get(
            Some(&beto.token),
            &format!("/author/{}/inbox?peek=true", beto.id),
        )
        .await;
    assert_eq!(inbox[0]["from"], "mallory");
}

#[tokio::test]
async fn b3_every_status_the_api_promises() {
    let bus = bus().await;
    let (ana, beto) = (bus.author("Ana").await, bus.author("Beto").await);
    let inbox = format!("/author/{}/inbox", ana.id);

    // 401: no token, a malformed one, a well-formed wrong one.
    let (status, error) = bus.get(None, &inbox).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(error["code"], "unauthorized");
    assert_eq!(
        bus.get(Some("nope"), &inbox).await.0,
        StatusCode::UNAUTHORIZED
    );
    let forged = format!("colmena_{}", "0".repeat(64));
    assert_eq!(
        bus.get(Some(&forged), &inbox).await.0,
        StatusCode::UNAUTHORIZED
    );
    let response = bus
        .http
        .get(format!("{}{inbox}", bus.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["www-authenticate"], "Bearer");

    // A rotated token stops working at once.
    let rotated = inbox::authors::rotate_token(&bus.ctx, &ana.id)
        .await
        .unwrap();
    assert_eq!(
        bus.get(Some(&ana.token), &inbox).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        bus.get(Some(&rotated.token), &inbox).await.0,
        StatusCode::OK
    );
    let ana = Who {
        id: ana.id,
        token: rotated.token,
    };

    // 403: an author in the path other than the token's, existing or not
    // (b3_unknown_and_foreign_authors_answer_the_same).
    let (status, error) = bus.get(Some(&ana.token), "/author/nadie/inbox").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(error["code"], "forbidden");
    assert_eq!(error["details"]["reason"], "not_your_author");

    // 404: unknown recipient, unknown message.
    let (status, _) = bus
        .send(&ana, &ana.id, "nadie", json!({"body": "hola"}))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let response = bus
        .http
        .delete(format!("{}/message/0193-no-such", bus.base))
        .bearer_auth(&ana.token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);

    // 400: malformed JSON, a query that does not parse.
    let response = bus
        .http
        .post(format!(
            "{}/author/{}/message-to/{}",
            bus.base, ana.id, beto.id
        ))
        .bearer_auth(&ana.token)
        .header("content-type", "application/json")
        .body("{\"body\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["code"], "validation");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("not valid JSON"),
        "{error}"
    );
    for query in [
        "since=yesterday",
        "peek=maybe",
        "unread_only=2",
        "limit=lots",
        "limit=0",
    ] {
        let (status, error) = bus.get(Some(&ana.token), &format!("{inbox}?{query}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {error}");
        assert!(error["message"].as_str().unwrap().len() > 10, "{error}");
    }

    // 422: empty body, oversized body, unknown priority, wrong shape.
    for (body, field) in [
        (json!({"body": ""}), "body"),
        (json!({"body": "   "}), "body"),
        (json!({"body": "x".repeat(64 * 1024 + 1)}), "body"),
        (json!({"body": "hola", "priority": "high"}), "priority"),
        (json!({"text": "hola"}), "body"),
        (json!({"body": 42}), "body"),
    ] {
        let (status, error) = bus.send(&ana, &ana.id, &beto.id, body.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {error}");
        assert_eq!(error["details"]["field"], field, "{error}");
    }
    // Exactly 64 KiB is fine.
    let (status, _) = bus
        .send(
            &ana,
            &ana.id,
            &beto.id,
            json!({"body": "x".repeat(64 * 1024)}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    // Far beyond any limit: refused before it is read whole.
    let response = bus
        .http
        .post(format!(
            "{}/author/{}/message-to/{}",
            bus.base, ana.id, beto.id
        ))
        .bearer_auth(&ana.token)
        .body(vec![b'x'; 2 * 1024 * 1024])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);

    // An unknown route is a JSON 404 too.
    let (status, error) = bus.get(Some(&ana.token), "/nothing/here").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(error["code"], "not_found");
}

/// To a token, every `/author/{id}/…` route answers an id that is not its
/// author's the same whether that author exists or not: no token holder can
/// find out who is on the bus by trying ids.
#[tokio::test]
async fn b3_unknown_and_foreign_authors_answer_the_same() {
    let bus = bus().await;
    let (ana, beto) = (bus.author("Ana").await, bus.author("Beto").await);
    let routes = |id: &str| {
        [
            (Method::GET, format!("/author/{id}/inbox"), None),
            (Method::GET, format!("/author/{id}/sent"), None),
            (Method::GET, format!("/author/{id}/search?q=hola"), None),
            (
                Method::GET,
                format!("/author/{id}/thread/0193-no-such"),
                None,
            ),
            (
                Method::POST,
                format!("/author/{id}/mark-unread"),
                Some(json!({ "ids": ["0193-no-such"] })),
            ),
            (
                Method::POST,
                format!("/author/{id}/message-to/{}", ana.id),
                Some(json!({ "body": "hola" })),
            ),
        ]
    };
    let ask = |method: Method, path: String, body: Option<Value>| {
        let mut request = bus
            .http
            .request(method, format!("{}{path}", bus.base))
            .bearer_auth(&ana.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        async move {
            let response = request.send().await.unwrap();
            let status = response.status();
            (
                status,
                response.json::<Value>().await.unwrap_or(Value::Null),
            )
        }
    };
    for (unknown, foreign) in routes("nadie").into_iter().zip(routes(beto.id.as_str())) {
        let what = format!("{} {} / {}", unknown.0, unknown.1, foreign.1);
        let (status, error) = ask(unknown.0, unknown.1, unknown.2).await;
        let (foreign_status, foreign_error) = ask(foreign.0, foreign.1, foreign.2).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{what}: {error}");
        assert_eq!(
            error["details"]["reason"], "not_your_author",
            "{what}: {error}"
        );
        assert_eq!(
            (status, &error["code"], &error["details"]["reason"]),
            (
                foreign_status,
                &foreign_error["code"],
                &foreign_error["details"]["reason"]
            ),
            "{what}"
        );
    }
}

#[tokio::test]
async fn b3_only_the_sender_deletes_a_message() {
    let bus = bus().await;
    let (ana, beto) = (bus.author("Ana").await, bus.author("Beto").await);
    let (_, receipt) = bus
        .send(&ana, &ana.id, &beto.id, json!({"body": "borrame"}))
        .await;
    let url = format!("{}/message/{}", bus.base, receipt["id"].as_str().unwrap());

    let response = bus
        .http
        .delete(&url)
        .bearer_auth(&beto.token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        StatusCode::FORBIDDEN,
        "the recipient may not delete it"
    );
    let response = bus.http.delete(&url).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let response = bus
        .http
        .delete(&url)
        .bearer_auth(&ana.token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let response = bus
        .http
        .delete(&url)
        .bearer_auth(&ana.token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let (_, inbox) = bus
        .get(
            Some(&beto.token),
            &format!("/author/{}/inbox?peek=true", beto.id),
        )
        .await;
    assert_eq!(inbox, json!([]));
}

#[tokio::test]
async fn the_openapi_document_describes_every_route() {
    let bus = bus().await;
    let (status, doc) = bus.get(None, "/openapi.json").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(doc["openapi"], "3.1.0");
    let paths: Vec<&str> = doc["paths"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut expected = colmena_server::http::API_PATHS.to_vec();
    expected.sort_unstable();
    let mut paths = paths;
    paths.sort_unstable();
    assert_eq!(paths, expected);
    assert!(doc["paths"]["/author/{id}/inbox"]["get"]["responses"]["403"].is_object());
    let (status, health) = bus.get(None, "/health").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(health["status"], "ok");
}

#[tokio::test]
async fn x1_a_non_loopback_bind_is_refused_unless_asked_for() {
    let err = colmena_server::http::bind("0.0.0.0:0".parse().unwrap(), false)
        .await
        .unwrap_err();
    assert_eq!(err.code, colmena_core::ErrorCode::Validation);
    assert!(err.message.contains("--allow-remote"), "{}", err.message);
    assert!(
        colmena_server::http::bind("0.0.0.0:0".parse().unwrap(), true)
            .await
            .is_ok()
    );
}

// -- at most once: the sender's own message id (issue 17) ---------------------

impl Bus {
    async fn peek(&self, who: &Who) -> Value {
        let (status, inbox) = self
            .get(
                Some(&who.token),
                &format!("/author/{}/inbox?peek=true&unread_only=false", who.id),
            )
            .await;
        assert_eq!(status, StatusCode::OK);
        inbox
    }
}

#[tokio::test]
async fn a_message_sent_again_with_its_id_is_delivered_once_with_one_receipt() {
    let bus = bus().await;
    let (ana, beto) = (bus.author("Ana").await, bus.author("Beto").await);
    let message = json!({"body": "una vez", "message_id": "outbox-1"});
    let (status, first) = bus.send(&ana, &ana.id, &beto.id, message.clone()).await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, again) = bus.send(&ana, &ana.id, &beto.id, message.clone()).await;
    assert_eq!(status, StatusCode::CREATED, "{again}");
    assert_eq!(again, first, "the same receipt: id and time");
    // The camelCase spelling names the same field.
    let (_, camel) = bus
        .send(
            &ana,
            &ana.id,
            &beto.id,
            json!({"body": "una vez", "messageId": "outbox-1"}),
        )
        .await;
    assert_eq!(camel, first);
    assert_eq!(bodies(&bus.peek(&beto).await), ["una vez"]);

    // Without an id every send is a new message, as before.
    for _ in 0..2 {
        bus.send(&ana, &ana.id, &beto.id, json!({"body": "sin id"}))
            .await;
    }
    assert_eq!(
        bodies(&bus.peek(&beto).await),
        ["una vez", "sin id", "sin id"]
    );

    // The recipient read it and the sender deleted it: a late retry still
    // answers the first receipt and delivers nothing.
    let url = format!("{}/message/{}", bus.base, first["id"].as_str().unwrap());
    let deleted = bus
        .http
        .delete(&url)
        .bearer_auth(&ana.token)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    let (status, late) = bus.send(&ana, &ana.id, &beto.id, message).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(late, first);
    assert_eq!(bodies(&bus.peek(&beto).await), ["sin id", "sin id"]);
}

#[tokio::test]
async fn concurrent_retries_of_one_message_id_store_it_once() {
    let bus = bus().await;
    let (ana, beto) = (bus.author("Ana").await, bus.author("Beto").await);
    let sends = (0..8).map(|_| {
        bus.send(
            &ana,
            &ana.id,
            &beto.id,
            json!({"body": "carrera", "priority": "urgent", "message_id": "0190a5c3-race"}),
        )
    });
    let receipts = futures_util::future::join_all(sends).await;
    assert!(receipts.iter().all(|(s, _)| *s == StatusCode::CREATED));
    assert!(receipts.iter().all(|(_, r)| *r == receipts[0].1));
    assert_eq!(bodies(&bus.peek(&beto).await), ["carrera"]);
}

#[tokio::test]
async fn the_same_message_id_for_other_mail_is_a_conflict_and_ids_are_each_senders_own() {
    let bus = bus().await;
    let (ana, beto, cata) = (
        bus.author("Ana").await,
        bus.author("Beto").await,
        bus.author("Cata").await,
    );
    let (_, first) = bus
        .send(
            &ana,
            &ana.id,
            &beto.id,
            json!({"body": "hola", "message_id": "m-1"}),
        )
        .await;
    for (to, other) in [
        (&beto.id, json!({"body": "otra cosa", "message_id": "m-1"})),
        (
            &beto.id,
            json!({"body": "hola", "priority": "urgent", "message_id": "m-1"}),
        ),
        (&cata.id, json!({"body": "hola", "message_id": "m-1"})),
    ] {
        let (status, error) = bus.send(&ana, &ana.id, to, other).await;
        assert_eq!(status, StatusCode::CONFLICT, "{error}");
        assert_eq!(error["code"], "conflict");
        assert_eq!(error["details"]["reason"], "message_id_reused");
        assert_eq!(error["details"]["field"], "message_id");
    }

    // Attack: another author using Ana's id gets a message of its own —
    // not Ana's receipt, not a conflict that would say Ana used it.
    let (status, theirs) = bus
        .send(
            &cata,
            &cata.id,
            &beto.id,
            json!({"body": "hola", "message_id": "m-1"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_ne!(theirs["id"], first["id"]);
    assert_eq!(bodies(&bus.peek(&beto).await), ["hola", "hola"]);

    // Ids that are not ids are refused before anything is stored.
    for bad in [
        json!(""),
        json!("con espacio"),
        json!("ñ"),
        json!("x".repeat(101)),
    ] {
        let (status, error) = bus
            .send(
                &ana,
                &ana.id,
                &beto.id,
                json!({"body": "hola", "message_id": bad}),
            )
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{error}");
        assert_eq!(error["details"]["field"], "message_id");
    }
    assert_eq!(bodies(&bus.peek(&beto).await), ["hola", "hola"]);
}

#[tokio::test]
async fn attack_a_removed_authors_message_ids_do_not_pass_to_a_new_one_of_the_same_name() {
    let bus = bus().await;
    let (old, beto) = (bus.author("Clonador").await, bus.author("Beto").await);
    let (status, first) = bus
        .send(
            &old,
            &old.id,
            &beto.id,
            json!({"body": "informe", "message_id": "a-1"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    inbox::authors::remove(&bus.ctx, &old.id).await.unwrap();
    // A new role that happens to get the same id counts from 1 again: its
    // first message is delivered, neither answered with the old receipt
    // nor refused with a conflict that would name the old message.
    let new = bus.author("Clonador").await;
    assert_eq!(new.id, old.id);
    let (status, sent) = bus
        .send(
            &new,
            &new.id,
            &beto.id,
            json!({"body": "informe", "message_id": "a-1"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{sent}");
    assert_ne!(sent["id"], first["id"]);
    assert_eq!(bodies(&bus.peek(&beto).await), ["informe", "informe"]);
}
