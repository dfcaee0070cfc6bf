//! Images that reach the model, and token counts that are true (issue 14,
//! SPEC H37, C11): a chat message's attached image and a canvas image item
//! are sent — the copy made for models — in each wire format, as the
//! scripted provider records them; a model that does not accept images is
//! refused with an error naming it and is sent nothing; a server that
//! reports no usage is stored and read back as "not reported", not 0.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::canvas::items::{self, NewItem, SourceKind};
use colmena_core::canvas::variants::{self, NewVariant, VariantStatus};
use colmena_core::canvas::{self, Caller, generate};
use colmena_core::conversations::{self, MessageRole};
use colmena_core::ids::{AgentId, ModelId};
use colmena_core::llm::{self, ChatRequest, Endpoint, ImagePart, Message, Usage};
use colmena_core::models::{self, NewModel};
use colmena_core::providers::{self, NewProvider, ProviderKind};
use colmena_core::runs::{self, RunStatus};
use colmena_core::runtime::chat;
use colmena_core::{Ctx, ErrorCode, images};
use colmena_scripted_llm::{Matcher, Protocol, Rule, Script, ScriptedLlm};
use serde_json::json;
use support::hive::agent;
use support::{Workspace, no_events, workspace};

const KINDS: [(&str, Protocol); 3] = [
    ("openai", Protocol::OpenAi),
    ("anthropic", Protocol::Anthropic),
    ("ollama", Protocol::Ollama),
];

/// A workspace whose default model `model` is served by the scripted
/// server in `protocol`'s wire format.
async fn hive_of(
    kind: &str,
    protocol: Protocol,
    model: &str,
    rules: Vec<Rule>,
) -> (Workspace, ScriptedLlm, ModelId) {
    let ws = workspace().await;
    let server = ScriptedLlm::start(Script { rules }).await.unwrap();
    let provider = providers::create(
        &ws.ctx,
        NewProvider {
            name: format!("Scripted {kind}"),
            kind: kind.into(),
            base_url: Some(server.base_url(protocol)),
            api_key: Some("sk-images-test-0123456789".into()),
        },
    )
    .await
    .unwrap();
    let model = models::create(
        &ws.ctx,
        NewModel {
            provider_id: provider.id,
            name: model.into(),
            label: None,
        },
    )
    .await
    .unwrap();
    models::set_default_model(&ws.ctx, Some(model.id.clone()))
        .await
        .unwrap();
    (ws, server, model.id)
}

fn photo() -> Vec<u8> {
    images::sample_photo_jpeg(1600, 1200, 85)
}

/// The stored bytes of an artifact.
async fn stored(ctx: &Ctx, id: &str) -> Vec<u8> {
    images::bytes(ctx, ctx.owner(), id).await.unwrap()
}

fn when_images(n: usize) -> Matcher {
    Matcher {
        images: Some(n),
        ..Default::default()
    }
}

#[tokio::test]
async fn h37_a_chat_image_reaches_the_model_in_each_wire_format_and_is_sent_again() {
    for (kind, protocol) in KINDS {
        let (ws, server, _) = hive_of(
            kind,
            protocol,
            "llava:7b",
            vec![
                Rule::text("I see a warm photo.")
                    .when(when_images(1))
                    .repeat(),
                Rule::text("No image came.").repeat(),
            ],
        )
        .await;
        let ctx = &ws.ctx;
        let talker = agent(ctx, "Looker", "You look at pictures.", &[]).await;
        let conversation = conversations::create_web_conversation(ctx, None, Some(talker.as_str()))
            .await
            .unwrap();
        let original = images::upload(ctx, ctx.owner(), "bees.jpg", photo())
            .await
            .unwrap();

        let run = chat::send_with_images(
            ctx,
            &conversation.id,
            None,
            "What is in this picture?",
            std::slice::from_ref(&original.id),
            None,
            no_events(),
        )
        .await
        .unwrap();
        assert_eq!(run.status, RunStatus::Completed, "{kind}: {:?}", run.error);
        assert_eq!(run.output.as_deref(), Some("I see a warm photo."), "{kind}");

        // The message keeps the original and its copy for models.
        let history = conversations::history(ctx, &conversation.id).await.unwrap();
        let asked = &history[0];
        assert_eq!(asked.role, MessageRole::User);
        assert_eq!(asked.images.len(), 1, "{kind}");
        assert_eq!(
            asked.images[0].artifact_id.as_deref(),
            Some(original.id.as_str())
        );
        assert_eq!(asked.images[0].name, "bees.jpg");
        let copy_id = asked.images[0].model_artifact_id.clone().unwrap();
        let copy = images::get(ctx, ctx.owner(), &copy_id).await.unwrap();
        assert_eq!(copy.mime, "image/webp");
        assert_eq!((copy.width, copy.height), (Some(1024), Some(768)));

        // The provider received exactly that copy, in its own wire format.
        let requests = server.requests();
        assert_eq!(requests.len(), 1, "{kind}");
        let sent = requests[0].images();
        assert_eq!(sent.len(), 1, "{kind}: {:?}", requests[0].body);
        assert!(sent[0].well_formed, "{kind}: {:?}", sent[0]);
        assert_eq!(sent[0].role, "user");
        assert_eq!(sent[0].data, stored(ctx, &copy_id).await, "{kind}");
        let expected_type = (protocol != Protocol::Ollama).then(|| "image/webp".to_owned());
        assert_eq!(sent[0].media_type, expected_type, "{kind}");

        // A later turn sends the image again (providers keep no state).
        let again = chat::send(
            ctx,
            &conversation.id,
            None,
            "And the colours?",
            None,
            no_events(),
        )
        .await
        .unwrap();
        assert_eq!(again.status, RunStatus::Completed);
        let requests = server.requests();
        assert_eq!(requests.len(), 2);
        let resent = requests[1].images();
        assert_eq!(resent.len(), 1, "{kind}: the image was not sent again");
        assert_eq!(resent[0].data, sent[0].data);
        assert_eq!(
            resent[0].message, sent[0].message,
            "{kind}: the image stays on the turn it came with"
        );
        // A message sent twice is not normalised twice.
        let copies = images::list(ctx, ctx.owner())
            .await
            .unwrap()
            .into_iter()
            .filter(|a| a.source_id.as_deref() == Some(original.id.as_str()))
            .count();
        assert_eq!(copies, 1);
    }
}

#[tokio::test]
async fn c11_a_canvas_image_item_reaches_the_model_in_each_wire_format() {
    for (kind, protocol) in KINDS {
        let (ws, server, model) = hive_of(
            kind,
            protocol,
            "gpt-4o",
            vec![Rule::text("A draft about the hive.").repeat()],
        )
        .await;
        let ctx = &ws.ctx;
        let me = Caller::ui(ctx);
        let board = canvas::create(ctx, &me, Some("Fotos".into()))
            .await
            .unwrap();
        items::add_item(
            ctx,
            &me,
            &board.id,
            NewItem {
                source_kind: Some(SourceKind::Webpage),
                title: Some("Spring notes".into()),
                snippet: Some("The bees wake up.".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        let image = items::add_image(ctx, &me, &board.id, "bees.jpg", photo())
            .await
            .unwrap();
        let copy_id = image.raw["modelArtifactId"].as_str().unwrap().to_owned();
        let v = variants::add_variant(
            ctx,
            &me,
            &board.id,
            NewVariant {
                preset_id: "tldr-brief".into(),
                prompt: Some("Describe the photo".into()),
                model_id: Some(model.to_string()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        let round = generate::generate_variant(ctx, &me, &v.id, generate::no_events())
            .await
            .unwrap();
        assert_eq!(round.output, "A draft about the hive.");

        let requests = server.requests();
        assert_eq!(requests.len(), 1, "{kind}");
        let sent = requests[0].images();
        assert_eq!(sent.len(), 1, "{kind}: {:?}", requests[0].body);
        assert!(sent[0].well_formed, "{kind}");
        assert_eq!(sent[0].data, stored(ctx, &copy_id).await, "{kind}");
        let body = requests[0].body.to_string();
        assert!(
            body.contains("Describe the photo"),
            "{kind}: the prompt went along"
        );
        assert!(
            body.contains("[2] bees.jpg"),
            "{kind}: the text names the image"
        );
    }
}

#[tokio::test]
async fn h37_a_model_flagged_off_is_refused_with_its_name_and_sent_nothing() {
    let (ws, server, model) = hive_of(
        "openai",
        Protocol::OpenAi,
        "gpt-4o",
        vec![Rule::text("should never answer").repeat()],
    )
    .await;
    let ctx = &ws.ctx;
    let flagged = models::set_images(ctx, &model, Some(false)).await.unwrap();
    assert!(!flagged.accepts_images);
    assert_eq!(flagged.images_setting, Some(false));

    // Chat: refused before the message is kept.
    let talker = agent(ctx, "Looker", "You look at pictures.", &[]).await;
    let conversation = conversations::create_web_conversation(ctx, None, Some(talker.as_str()))
        .await
        .unwrap();
    let original = images::upload(ctx, ctx.owner(), "bees.jpg", photo())
        .await
        .unwrap();
    let err = chat::send_with_images(
        ctx,
        &conversation.id,
        None,
        "What is this?",
        std::slice::from_ref(&original.id),
        None,
        no_events(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Precondition);
    let details = err.details.clone().unwrap();
    assert_eq!(details["reason"], "model_without_images");
    assert_eq!(details["modelId"], model.as_str());
    assert!(err.message.contains(model.as_str()), "{}", err.message);
    assert!(
        conversations::history(ctx, &conversation.id)
            .await
            .unwrap()
            .is_empty()
    );

    // Canvas: the generation fails with the same error, the variant says so.
    let me = Caller::ui(ctx);
    let board = canvas::create(ctx, &me, None).await.unwrap();
    items::add_image(ctx, &me, &board.id, "bees.jpg", photo())
        .await
        .unwrap();
    let v = variants::add_variant(
        ctx,
        &me,
        &board.id,
        NewVariant {
            preset_id: "tldr-brief".into(),
            model_id: Some(model.to_string()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let err = generate::generate_variant(ctx, &me, &v.id, generate::no_events())
        .await
        .unwrap_err();
    assert_eq!(err.details.unwrap()["reason"], "model_without_images");
    let shown = canvas::get(ctx, &me, &board.id).await.unwrap();
    let failed = shown.variants.iter().find(|x| x.id == v.id).unwrap();
    assert_eq!(failed.status, VariantStatus::Error);
    assert!(
        failed
            .error_message
            .as_deref()
            .unwrap()
            .contains(model.as_str())
    );

    assert!(server.requests().is_empty(), "nothing reached the provider");

    // Text alone still goes through the same model.
    let run = chat::send(ctx, &conversation.id, None, "Hello", None, no_events())
        .await
        .unwrap();
    assert_eq!(run.status, RunStatus::Completed);
    assert!(server.requests()[0].images().is_empty());
}

#[tokio::test]
async fn h37_a_model_by_default_from_its_name_and_the_users_setting_wins() {
    let (ws, _server, vision) = hive_of("ollama", Protocol::Ollama, "llava:13b", vec![]).await;
    let ctx = &ws.ctx;
    let text = models::create(
        ctx,
        NewModel {
            provider_id: vision.as_str().split('/').next().unwrap().into(),
            name: "llama3.1:8b".into(),
            label: None,
        },
    )
    .await
    .unwrap();
    let seen = models::get(ctx, &vision).await.unwrap();
    assert!(seen.accepts_images);
    assert_eq!(seen.images_setting, None);
    assert!(!text.accepts_images);

    let on = models::set_images(ctx, &text.id, Some(true)).await.unwrap();
    assert!(on.accepts_images);
    let off = models::set_images(ctx, &vision, Some(false)).await.unwrap();
    assert!(!off.accepts_images);
    // A rename keeps the user's choice.
    let renamed = models::rename(ctx, &vision, "llava:34b").await.unwrap();
    assert_eq!(renamed.images_setting, Some(false));
    assert!(!renamed.accepts_images);
    // Auto: back to the name's default.
    let auto = models::set_images(ctx, &renamed.id, None).await.unwrap();
    assert_eq!(auto.images_setting, None);
    assert!(auto.accepts_images);

    let err = models::set_images(ctx, &ModelId("nope/nothing".into()), Some(true))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn h37_an_attachment_that_is_not_an_image_or_not_yours_is_refused() {
    let (ws, server, _) = hive_of(
        "openai",
        Protocol::OpenAi,
        "gpt-4o",
        vec![Rule::text("hi").repeat()],
    )
    .await;
    let ctx = &ws.ctx;
    let talker = agent(ctx, "Looker", "You look.", &[]).await;
    let conversation = conversations::create_web_conversation(ctx, None, Some(talker.as_str()))
        .await
        .unwrap();
    let junk = images::upload(
        ctx,
        ctx.owner(),
        "notes.bin",
        b"not a picture at all".to_vec(),
    )
    .await
    .unwrap();
    let err = chat::send_with_images(
        ctx,
        &conversation.id,
        None,
        "look",
        &[junk.id],
        None,
        no_events(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert_eq!(err.details.unwrap()["reason"], "not_an_image");

    colmena_core::users::create(ctx, "Beto").await.unwrap();
    let theirs = images::upload(ctx, "beto", "theirs.jpg", photo())
        .await
        .unwrap();
    let err = chat::send_with_images(
        ctx,
        &conversation.id,
        None,
        "look",
        &[theirs.id],
        None,
        no_events(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert!(server.requests().is_empty());
    assert!(
        conversations::history(ctx, &conversation.id)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn h37_usage_not_reported_is_stored_and_read_back_as_not_reported() {
    for (kind, protocol) in KINDS {
        let (ws, _server, model) = hive_of(
            kind,
            protocol,
            "scripted-1",
            vec![
                Rule::text("counted").when(Matcher {
                    last_user_contains: Some("counted".into()),
                    ..Default::default()
                }),
                Rule::text("A quiet answer.").without_usage().repeat(),
            ],
        )
        .await;
        let ctx = &ws.ctx;
        let talker: AgentId = agent(ctx, "Quiet", "Answer.", &[]).await;

        let quiet = colmena_core::runtime::agent::run_agent(
            ctx,
            &talker,
            "say something",
            Default::default(),
            no_events(),
        )
        .await
        .unwrap();
        assert_eq!(
            quiet.status,
            RunStatus::Completed,
            "{kind}: {:?}",
            quiet.error
        );
        assert_eq!(
            quiet.usage,
            Usage::default(),
            "{kind}: not reported is not 0"
        );
        let read = runs::get(ctx, &quiet.id).await.unwrap();
        assert_eq!(read.run.usage.prompt_tokens, None, "{kind}");
        assert_eq!(read.run.usage.completion_tokens, None, "{kind}");
        let step = read.steps.iter().find(|s| s.kind == "message").unwrap();
        assert_eq!(
            step.content["usage"],
            json!({ "promptTokens": null, "completionTokens": null })
        );

        // A server that does report: the counts, stored as they came.
        let counted = colmena_core::runtime::agent::run_agent(
            ctx,
            &talker,
            "counted",
            Default::default(),
            no_events(),
        )
        .await
        .unwrap();
        let read = runs::get(ctx, &counted.id).await.unwrap();
        assert_eq!(read.run.usage.prompt_tokens, Some(42), "{kind}");
        assert!(read.run.usage.completion_tokens.is_some_and(|n| n > 0));

        // A canvas round too.
        let me = Caller::ui(ctx);
        let board = canvas::create(ctx, &me, None).await.unwrap();
        let v = variants::add_variant(
            ctx,
            &me,
            &board.id,
            NewVariant {
                preset_id: "tldr-brief".into(),
                model_id: Some(model.to_string()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        generate::generate_variant(ctx, &me, &v.id, generate::no_events())
            .await
            .unwrap();
        let rounds = variants::variant_rounds(ctx, &me, &v.id).await.unwrap();
        assert_eq!(rounds[0].prompt_tokens, None, "{kind}");
        assert_eq!(rounds[0].completion_tokens, None, "{kind}");
    }
}

/// Text-only requests are written as before (a plain string content), and
/// an image is exactly the shape each provider documents.
#[test]
fn h37_wire_shapes_of_text_and_image_turns() {
    let image = ImagePart::new("image/webp", vec![1, 2, 3, 250]);
    let request = |messages| ChatRequest {
        model: "m".into(),
        system: None,
        messages,
        tools: Vec::new(),
        max_tokens: 16,
        temperature: None,
    };
    let endpoint = |kind| Endpoint {
        kind,
        base_url: "http://127.0.0.1:9".into(),
        api_key: None,
        local: None,
    };
    let text_only = request(vec![Message::user("hola")]);
    let with_image = request(vec![Message::user_with_images("hola", vec![image.clone()])]);
    let body = |kind, r: &ChatRequest| {
        llm::protocol(kind)
            .unwrap()
            .request(&endpoint(kind), r)
            .unwrap()
            .body
    };

    let openai = ProviderKind::OpenaiCompatible;
    assert_eq!(
        body(openai, &text_only)["messages"][0],
        json!({ "role": "user", "content": "hola" })
    );
    assert_eq!(
        body(openai, &with_image)["messages"][0],
        json!({ "role": "user", "content": [
            { "type": "text", "text": "hola" },
            { "type": "image_url", "image_url": { "url": "data:image/webp;base64,AQID+g==" } }
        ] })
    );

    let anthropic = ProviderKind::Anthropic;
    assert_eq!(
        body(anthropic, &text_only)["messages"][0],
        json!({ "role": "user", "content": [{ "type": "text", "text": "hola" }] })
    );
    assert_eq!(
        body(anthropic, &with_image)["messages"][0],
        json!({ "role": "user", "content": [
            { "type": "image", "source": { "type": "base64", "media_type": "image/webp", "data": "AQID+g==" } },
            { "type": "text", "text": "hola" }
        ] })
    );

    let ollama = ProviderKind::Ollama;
    assert_eq!(
        body(ollama, &text_only)["messages"][0],
        json!({ "role": "user", "content": "hola" })
    );
    assert_eq!(
        body(ollama, &with_image)["messages"][0],
        json!({ "role": "user", "content": "hola", "images": ["AQID+g=="] })
    );

    // A checkpoint of a text-only turn is written as before, too.
    assert_eq!(
        serde_json::to_value(Message::user("hola")).unwrap(),
        json!({ "role": "user", "content": "hola" })
    );
    let saved = serde_json::to_value(Message::user_with_images("x", vec![image.clone()])).unwrap();
    let back: Message = serde_json::from_value(saved).unwrap();
    assert_eq!(back.images, vec![image]);
}
