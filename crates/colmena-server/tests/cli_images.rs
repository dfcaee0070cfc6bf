//! Images and token counts through the `colmena` binary (issue 14, H37):
//! `model images ID on|off|auto`, `chat AGENT --image FILE` sending the
//! image to the scripted provider, a model switched off refusing it by
//! name, and a run whose provider reports no usage printed as "not
//! reported", never "0 tokens in".

#![allow(clippy::unwrap_used)]

mod common;

use colmena_scripted_llm::{Matcher, Protocol, Rule, Script, ScriptedLlm};
use common::{KEY, colmena, ok_json, run};

/// The scripted provider on its own runtime, so tests can block.
struct Provider {
    llm: ScriptedLlm,
    _runtime: tokio::runtime::Runtime,
}

fn provider(script: Script) -> Provider {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let llm = runtime.block_on(ScriptedLlm::start(script)).unwrap();
    Provider {
        llm,
        _runtime: runtime,
    }
}

#[test]
fn h37_chat_with_an_image_file_sends_it_and_a_model_switched_off_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = provider(Script {
        rules: vec![
            Rule::text("I see the photo.")
                .when(Matcher {
                    images: Some(1),
                    ..Default::default()
                })
                .without_usage()
                .repeat(),
            Rule::text("No image.").repeat(),
        ],
    });
    let base = p.llm.base_url(Protocol::OpenAi);
    ok_json(colmena(dir.path()).args([
        "provider",
        "add",
        "Local",
        "--kind",
        "openai",
        "--base-url",
        &base,
        "--api-key",
        KEY,
    ]));
    let model = ok_json(colmena(dir.path()).args(["model", "add", "local", "llava:7b"]));
    assert_eq!(model["acceptsImages"], true, "llava sees images by default");
    assert_eq!(model["imagesSetting"], serde_json::Value::Null);
    ok_json(colmena(dir.path()).args(["model", "default", "local/llava:7b"]));
    ok_json(colmena(dir.path()).args(["agent", "add", "Mirona", "--system-prompt", "You look."]));
    let photo = dir.path().join("bees.jpg");
    std::fs::write(
        &photo,
        colmena_core::images::sample_photo_jpeg(1600, 1200, 85),
    )
    .unwrap();

    let out = run(colmena(dir.path())
        .args(["chat", "mirona", "-m", "What is this?", "--image"])
        .arg(&photo));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("I see the photo."), "{stdout}");
    assert!(stdout.contains("tokens not reported"), "{stdout}");
    assert!(!stdout.contains("0 tokens in"), "{stdout}");
    let requests = p.llm.requests();
    assert_eq!(requests.len(), 1);
    let images = requests[0].images();
    assert_eq!(images.len(), 1);
    assert_eq!(images[0].media_type.as_deref(), Some("image/webp"));

    // Off: the same message is refused, naming the model, and not sent.
    let off = ok_json(colmena(dir.path()).args(["model", "images", "local/llava:7b", "off"]));
    assert_eq!(off["acceptsImages"], false);
    assert_eq!(off["imagesSetting"], false);
    let out = run(colmena(dir.path())
        .args(["chat", "mirona", "-m", "And now?", "--image"])
        .arg(&photo));
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("local/llava:7b"), "{stderr}");
    assert!(stderr.contains("does not accept images"), "{stderr}");
    assert_eq!(
        p.llm.requests().len(),
        1,
        "nothing more reached the provider"
    );

    let auto = ok_json(colmena(dir.path()).args(["model", "images", "local/llava:7b", "auto"]));
    assert_eq!(auto["acceptsImages"], true);
    assert_eq!(auto["imagesSetting"], serde_json::Value::Null);
    let bad = run(colmena(dir.path()).args(["model", "images", "local/llava:7b", "maybe"]));
    assert!(!bad.status.success());
}
