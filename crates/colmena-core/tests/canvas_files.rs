//! A file handed to the app by its path lands on a canvas like a dropped one
//! (issue 16): text as a custom item with its text, a picture as an image
//! item; anything else, a file too big or text that is not UTF-8 is refused
//! with a stable code and adds nothing. A folder, a missing path or a FIFO
//! cannot be handed over at all, and a file swapped for a link or a FIFO
//! after it was handed over is not read.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;

use colmena_core::canvas::files::{HandedFile, add_file};
use colmena_core::canvas::{self, Caller, items::SourceKind};
use colmena_core::{AppError, ErrorCode, images};
use support::workspace;

fn reason(err: &AppError) -> String {
    err.details
        .as_ref()
        .and_then(|d| d["reason"].as_str())
        .unwrap_or_default()
        .to_owned()
}

fn handed(path: &Path) -> HandedFile {
    HandedFile::at(path).unwrap_or_else(|| panic!("{} can be handed over", path.display()))
}

#[tokio::test]
async fn text_and_pictures_land_on_the_canvas_the_rest_is_refused() {
    let ws = workspace().await;
    let ctx = &ws.ctx;
    let me = Caller::ui(ctx);
    let board = canvas::create(ctx, &me, Some("Desk".into())).await.unwrap();
    let files = tempfile::tempdir().unwrap();
    let at = |name: &str| files.path().join(name);

    std::fs::write(at("notes.md"), "# Bees\nThey dance.").unwrap();
    let text = add_file(ctx, &me, &board.id, &handed(&at("notes.md")))
        .await
        .unwrap();
    assert_eq!(text.source_kind, SourceKind::Custom);
    assert_eq!(text.title, "notes.md");
    assert_eq!(text.snippet, "# Bees\nThey dance.");

    std::fs::write(at("hive.JPG"), images::sample_photo_jpeg(320, 240, 80)).unwrap();
    let picture = add_file(ctx, &me, &board.id, &handed(&at("hive.JPG")))
        .await
        .unwrap();
    assert_eq!(picture.title, "hive.JPG");
    assert!(
        picture.raw["modelArtifactId"].is_string(),
        "{:?}",
        picture.raw
    );

    // Refusals: each with its reason, none adds an item.
    std::fs::write(at("run.sh"), "rm -rf ~").unwrap();
    std::fs::write(at("big.txt"), "a".repeat(100_001)).unwrap();
    std::fs::write(at("latin1.txt"), [0x61, 0xE9, 0xFF]).unwrap();
    for (name, wanted) in [
        ("run.sh", "unsupported_file"),
        ("big.txt", "file_too_large"),
        ("latin1.txt", "not_text"),
    ] {
        let err = add_file(ctx, &me, &board.id, &handed(&at(name)))
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Validation, "{name}: {err:?}");
        assert_eq!(reason(&err), wanted, "{name}: {err:?}");
    }
    std::fs::create_dir(at("folder.md")).unwrap();
    assert_eq!(
        HandedFile::at(&at("folder.md")),
        None,
        "a folder is not handed over"
    );
    assert_eq!(HandedFile::at(&at("missing.md")), None);

    let shown = canvas::get(ctx, &me, &board.id).await.unwrap();
    assert_eq!(shown.items.len(), 2, "{:?}", shown.items);

    // A canvas that is not there (or someone else's) gets nothing.
    let err = add_file(ctx, &me, "no-such-canvas", &handed(&at("notes.md")))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}

#[cfg(unix)]
#[tokio::test]
async fn a_file_swapped_after_the_handover_is_not_read() {
    let ws = workspace().await;
    let ctx = &ws.ctx;
    let me = Caller::ui(ctx);
    let board = canvas::create(ctx, &me, None).await.unwrap();
    let files = tempfile::tempdir().unwrap();
    let at = |name: &str| files.path().join(name);
    std::fs::write(at("secret.txt"), "the key").unwrap();

    // Swapped for a link to another file: refused (the link is not followed).
    std::fs::write(at("notes.md"), "harmless").unwrap();
    let notes = handed(&at("notes.md"));
    std::fs::remove_file(at("notes.md")).unwrap();
    std::os::unix::fs::symlink(at("secret.txt"), at("notes.md")).unwrap();
    let err = add_file(ctx, &me, &board.id, &notes).await.unwrap_err();
    assert_eq!(reason(&err), "unreadable_file", "{err:?}");

    // Replaced by another file of the same name: not the file handed over.
    let other = handed(&at("secret.txt"));
    std::fs::remove_file(at("secret.txt")).unwrap();
    std::fs::write(at("secret.txt"), "a new key").unwrap();
    let err = add_file(ctx, &me, &board.id, &other).await.unwrap_err();
    assert_eq!(reason(&err), "file_changed", "{err:?}");

    // Replaced by a FIFO: refused at once, nothing waits for a writer.
    std::fs::write(at("pipe.txt"), "x").unwrap();
    let pipe = handed(&at("pipe.txt"));
    std::fs::remove_file(at("pipe.txt")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(at("pipe.txt"))
        .status()
        .unwrap();
    assert!(made.success());
    assert_eq!(
        HandedFile::at(&at("pipe.txt")),
        None,
        "a FIFO is not handed over"
    );
    let err = add_file(ctx, &me, &board.id, &pipe).await.unwrap_err();
    assert_eq!(reason(&err), "file_changed", "{err:?}");

    assert!(
        canvas::get(ctx, &me, &board.id)
            .await
            .unwrap()
            .items
            .is_empty()
    );
}
