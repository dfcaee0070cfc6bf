//! The canvas through the `colmena` binary (SPEC C9, X3): a canvas scripted
//! from the shell end to end — items, two variants, generation streamed to
//! stdout, rounds, an older round selected, an export written to a file,
//! rounds written by hand — and another user's canvas out of reach.

#![allow(clippy::unwrap_used)]

mod common;

use colmena_scripted_llm::{Matcher, Protocol, Rule, Script, ScriptedLlm};
use common::{colmena, ok_json, run};

#[test]
fn c9_a_canvas_is_scripted_end_to_end_from_the_cli() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let when = |text: &str| Matcher {
        last_user_contains: Some(text.into()),
        ..Default::default()
    };
    let llm = runtime
        .block_on(ScriptedLlm::start(Script {
            rules: vec![
                Rule::text("1/ Las abejas polinizan.").when(when("serio")),
                Rule::text("1/ ¡Las abejas molan!").when(when("alegre")),
                Rule::text("Breve: abejas.")
                    .when(when("Selected sources"))
                    .repeat(),
            ],
        }))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = llm.base_url(Protocol::OpenAi);
    ok_json(colmena(d).args([
        "provider",
        "add",
        "Scripted",
        "--kind",
        "openai",
        "--base-url",
        &base,
        "--api-key",
        common::KEY,
    ]));
    ok_json(colmena(d).args(["model", "add", "scripted", "gpt-test"]));
    ok_json(colmena(d).args(["model", "default", "scripted/gpt-test"]));

    let canvas = ok_json(colmena(d).args(["canvas", "create", "Abejas"]));
    let id = canvas["id"].as_str().unwrap().to_owned();
    ok_json(colmena(d).args([
        "canvas",
        "add-item",
        &id,
        "--title",
        "Informe FAO",
        "--snippet",
        "Las abejas polinizan el 75 %",
        "--metrics",
        r#"{"shares": 12}"#,
    ]));
    let thread = ok_json(colmena(d).args([
        "canvas",
        "add-variant",
        &id,
        "--preset",
        "x-thread",
        "--prompt",
        "Tono serio",
    ]));
    let thread = thread["id"].as_str().unwrap().to_owned();
    ok_json(colmena(d).args(["canvas", "add-variant", &id, "--preset", "tldr-brief"]));

    // One variant: its text streams to stdout.
    let out = run(colmena(d).args(["canvas", "generate", &thread]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("1/ Las abejas polinizan."), "{stdout}");
    assert!(stdout.contains("round 1"), "{stdout}");
    // All at once, as JSON: the last line is the outcome.
    let out = run(colmena(d).args(["--json", "canvas", "generate-all", &id]));
    let last: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().last().unwrap()).unwrap();
    assert_eq!(last["done"].as_array().unwrap().len(), 2, "{last}");

    ok_json(colmena(d).args([
        "canvas",
        "update-variant",
        &thread,
        "--prompt",
        "Tono alegre",
    ]));
    assert!(
        run(colmena(d).args(["canvas", "generate", &thread]))
            .status
            .success()
    );
    let rounds = ok_json(colmena(d).args(["canvas", "rounds", &thread]));
    let outputs: Vec<&str> = rounds
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["output"].as_str().unwrap())
        .collect();
    assert_eq!(outputs[0], "1/ Las abejas polinizan.");
    assert_eq!(outputs.last().copied(), Some("1/ ¡Las abejas molan!"));
    assert_eq!(rounds[0]["client"], "cli");
    ok_json(colmena(d).args(["canvas", "select-round", &thread, "0"]));

    let file = d.join("hilo.md");
    ok_json(colmena(d).args([
        "canvas",
        "export",
        &id,
        &thread,
        "--out",
        file.to_str().unwrap(),
    ]));
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(
        written.starts_with("# Abejas\n\n1/ Las abejas polinizan."),
        "{written}"
    );
    assert!(written.contains("- Informe FAO"), "{written}");

    let log = ok_json(colmena(d).args(["canvas", "activity", "--canvas", &id, "--limit", "100"]));
    let tools: Vec<&str> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["tool"].as_str().unwrap())
        .collect();
    for tool in [
        "session.create",
        "session.add_item",
        "session.generate_all",
        "session.select_round",
        "session.export_variant",
    ] {
        assert!(tools.contains(&tool), "{tool} missing from {tools:?}");
    }

    // A round written by hand, from an argument and from a file: appended,
    // marked, shown; an empty one is refused.
    let mine = ok_json(colmena(d).args([
        "canvas",
        "write-round",
        &thread,
        "--text",
        "1/ Lo escribo yo.",
    ]));
    assert_eq!(
        (mine["byHand"].as_bool(), mine["index"].as_u64()),
        (Some(true), Some(3)),
        "{mine}"
    );
    let draft = d.join("borrador.md");
    std::fs::write(&draft, "1/ Y lo corrijo.\n").unwrap();
    let file_round = ok_json(colmena(d).args([
        "canvas",
        "write-round",
        &thread,
        "--file",
        draft.to_str().unwrap(),
    ]));
    assert_eq!(file_round["output"], "1/ Y lo corrijo.\n");
    let rounds = ok_json(colmena(d).args(["canvas", "rounds", &thread]));
    let by_hand: Vec<bool> = rounds
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["byHand"].as_bool().unwrap())
        .collect();
    assert_eq!(by_hand, [false, false, false, true, true]);
    let table = run(colmena(d).args(["canvas", "rounds", &thread]));
    assert!(String::from_utf8_lossy(&table.stdout).contains("by hand"));
    let out = run(colmena(d).args(["canvas", "write-round", &thread, "--text", " "]));
    assert_eq!(out.status.code(), Some(4), "validation");
    let out = run(colmena(d).args(["canvas", "write-round", &thread]));
    assert!(!out.status.success(), "the text or a file is required");

    // Another user does not see it; bad input is refused with its code.
    ok_json(colmena(d).args(["memory", "--user", "beto", "list"]));
    let out = run(colmena(d).args(["canvas", "--user", "beto", "show", &id]));
    assert_eq!(out.status.code(), Some(3), "not_found");
    let out = run(colmena(d).args(["canvas", "add-variant", &id, "--preset", "tiktok"]));
    assert_eq!(out.status.code(), Some(4), "validation");
    let out = run(colmena(d).args(["canvas", "select-round", &thread, "9"]));
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn h38_images_are_scripted_from_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let photo = d.join("foto.jpg");
    std::fs::write(
        &photo,
        colmena_core::images::sample_photo_jpeg(1600, 1200, 85),
    )
    .unwrap();
    let up = ok_json(colmena(d).args(["image", "upload", photo.to_str().unwrap()]));
    assert_eq!(
        (up["width"].as_u64(), up["format"].as_str()),
        (Some(1600), Some("jpeg"))
    );
    let id = up["id"].as_str().unwrap().to_owned();
    let model = ok_json(colmena(d).args(["image", "normalize", &id]));
    assert_eq!(
        (
            model["width"].as_u64(),
            model["height"].as_u64(),
            model["format"].as_str()
        ),
        (Some(1024), Some(768), Some("webp"))
    );
    let small = ok_json(colmena(d).args([
        "image",
        "transform",
        &id,
        "--width",
        "200",
        "--format",
        "png",
        "--crop",
        "0,0,800,600",
    ]));
    assert_eq!(
        (small["width"].as_u64(), small["height"].as_u64()),
        (Some(200), Some(150))
    );
    let out = d.join("small.png");
    ok_json(colmena(d).args([
        "image",
        "save",
        small["id"].as_str().unwrap(),
        out.to_str().unwrap(),
    ]));
    assert_eq!(&std::fs::read(&out).unwrap()[1..4], b"PNG");
    assert_eq!(
        ok_json(colmena(d).args(["image", "list"]))
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let bad = run(colmena(d).args(["image", "transform", &id, "--crop", "1,2"]));
    assert_eq!(bad.status.code(), Some(4));
    ok_json(colmena(d).args(["image", "remove", &id]));
    let gone = run(colmena(d).args(["image", "show", &id]));
    assert_eq!(gone.status.code(), Some(3));
}

#[test]
fn write_round_reads_a_bounded_amount_of_an_endless_stdin() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let mut child = colmena(dir.path())
        .args(["canvas", "write-round", "any-variant", "--file", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Writes until the CLI stops reading and closes the pipe.
    let writer = std::thread::spawn(move || {
        let block = vec![b'x'; 64 * 1024];
        while stdin.write_all(&block).is_ok() {}
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(4), "validation");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("at most"), "{said}");
}
