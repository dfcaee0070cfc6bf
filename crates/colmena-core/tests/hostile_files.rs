//! Hostile files (issue "Safe by default", item 7): images that declare
//! more pixels than exist or than fit in memory, transforms to absurd
//! sizes, and drop-folder notes that are links out of the folder or larger
//! than a message. Each is an error (or a note moved to `failed/`), never a
//! panic, an allocation of gigabytes, or a file read from elsewhere.

#![allow(clippy::unwrap_used)]

mod support;

use std::time::Duration;

use colmena_core::ErrorCode;
use colmena_core::images::{self, Transform};
use colmena_core::inbox::{self, Caller, InboxQuery, NewAuthor};

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&u32::try_from(data.len()).unwrap().to_be_bytes());
    let mut body = kind.to_vec();
    body.extend_from_slice(data);
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32(&body).to_be_bytes());
}

/// A PNG of a few dozen bytes whose header declares `width`×`height` RGBA
/// pixels: a decompression bomb as far as a decoder that trusts it knows.
fn bomb_png(width: u32, height: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &ihdr);
    // An empty zlib stream: the rows the header promises are not there.
    chunk(
        &mut png,
        b"IDAT",
        &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
    );
    chunk(&mut png, b"IEND", &[]);
    png
}

#[tokio::test]
async fn an_image_declaring_huge_dimensions_is_refused_before_decoding() {
    let ws = support::workspace().await;
    let me = ws.ctx.owner().to_owned();
    for (w, h) in [(100_000, 100_000), (16_000, 16_000)] {
        let bomb = bomb_png(w, h);
        assert_eq!(images::probe(&bomb), Some((w, h, "png")));
        // Kept as it came (uploads never lose a file)…
        let stored = images::upload(&ws.ctx, &me, "bomb.png", bomb)
            .await
            .unwrap();
        // …but transforming it is a validation error, not gigabytes.
        let err = images::transform(
            &ws.ctx,
            &me,
            &stored.id,
            Transform {
                width: Some(64),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::Validation, "{}", err.message);
        assert!(err.message.contains("too large"), "{}", err.message);
        // A model gets the original as it is (best effort), not a crash.
        let model = images::normalize_for_model(&ws.ctx, &me, &stored.id)
            .await
            .unwrap();
        assert_eq!(model.id, stored.id);
    }
}

#[tokio::test]
async fn a_transform_to_100000x100000_is_a_validation_error() {
    let ws = support::workspace().await;
    let me = ws.ctx.owner().to_owned();
    let photo = images::upload(
        &ws.ctx,
        &me,
        "small.jpg",
        images::sample_photo_jpeg(64, 48, 80),
    )
    .await
    .unwrap();
    let to = |width, height| Transform {
        width: Some(width),
        height: Some(height),
        ..Default::default()
    };
    for (spec, reason) in [
        (to(100_000, 100_000), "out_of_range"),
        // Both sides allowed, 50 megapixels in all: over the output cap.
        (to(10_000, 5_000), "too_large"),
        (
            Transform {
                width: Some(u32::MAX),
                ..Default::default()
            },
            "out_of_range",
        ),
    ] {
        let err = images::transform(&ws.ctx, &me, &photo.id, spec)
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Validation, "{}", err.message);
        assert_eq!(err.details.unwrap()["reason"], reason);
    }
    // A crop whose end overflows is out of range, not an arithmetic panic.
    let err = images::transform(
        &ws.ctx,
        &me,
        &photo.id,
        Transform {
            crop: Some(images::Crop {
                x: u32::MAX,
                y: 0,
                width: 2,
                height: 2,
            }),
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    // Within the caps it still works.
    let done = images::transform(&ws.ctx, &me, &photo.id, to(640, 480))
        .await
        .unwrap();
    assert_eq!((done.width, done.height), (Some(640), Some(480)));
}

async fn role_folder(ws: &support::Workspace, name: &str) -> (String, std::path::PathBuf) {
    let role = inbox::authors::create(
        &ws.ctx,
        NewAuthor {
            name: name.into(),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .author;
    let folder = inbox::drop_folder::folder(&ws.ctx, &role.id);
    (role.id, folder)
}

fn age(path: &std::path::Path) {
    let old = std::time::SystemTime::now() - Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(old)
        .unwrap();
}

async fn messages_of(ws: &support::Workspace, role: &str) -> Vec<String> {
    let query = InboxQuery {
        unread_only: Some(false),
        peek: Some(true),
        ..Default::default()
    };
    inbox::messages::inbox(&ws.ctx, &Caller::ui(&ws.ctx), role, query)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.body)
        .collect()
}

#[cfg(unix)]
#[tokio::test]
async fn a_symlink_in_the_drop_folder_is_refused_and_its_target_never_read() {
    let ws = support::workspace().await;
    let (role, folder) = role_folder(&ws, "Ambrosio").await;
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.md");
    std::fs::write(&secret, "the contents of master.key").unwrap();
    age(&secret);
    std::os::unix::fs::symlink(&secret, folder.join("leak.md")).unwrap();
    // A link to a folder named like a note, and a dangling one, too.
    std::os::unix::fs::symlink(outside.path(), folder.join("dir.md")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("gone"), folder.join("gone.md")).unwrap();
    std::fs::write(folder.join("fine.md"), "A real note.").unwrap();
    age(&folder.join("fine.md"));

    let sent = inbox::drop_folder::ingest(&ws.ctx, &role).await.unwrap();
    assert_eq!(sent.len(), 1);
    assert_eq!(
        messages_of(&ws, &role).await,
        vec!["A real note.".to_owned()]
    );
    let why = std::fs::read_to_string(folder.join("failed/leak.md.error.txt")).unwrap();
    assert!(why.contains("symbolic link"), "{why}");
    assert!(
        std::fs::symlink_metadata(folder.join("failed/leak.md"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link itself was moved, not its target"
    );
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        "the contents of master.key",
        "the target is untouched"
    );
}

/// Where refused notes go is no way out either: a `failed` planted as a
/// link to a folder outside, or an `.error.txt` planted as a link to a
/// file outside (say `~/.bashrc`), is never written through.
#[cfg(unix)]
#[tokio::test]
async fn links_planted_where_refused_notes_go_are_not_written_through() {
    let ws = support::workspace().await;
    let (role, folder) = role_folder(&ws, "Ambrosio").await;
    let outside = tempfile::tempdir().unwrap();
    let bashrc = outside.path().join("bashrc");
    std::fs::write(&bashrc, "original\n").unwrap();
    let refused_note = |name: &str| {
        let note = folder.join(name);
        std::os::unix::fs::symlink(outside.path().join("nothing"), &note).unwrap();
    };

    // 1. failed/ exists, and the error file of the next refusal is a planted link.
    std::fs::create_dir_all(folder.join("failed")).unwrap();
    std::os::unix::fs::symlink(&bashrc, folder.join("failed/x.md.error.txt")).unwrap();
    refused_note("x.md");
    inbox::drop_folder::ingest(&ws.ctx, &role).await.unwrap();
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "original\n");
    let why = std::fs::read_to_string(folder.join("failed/x.md.error.txt")).unwrap();
    assert!(why.contains("symbolic link"), "{why}");

    // 2. failed/ itself is a link to a folder outside.
    std::fs::remove_dir_all(folder.join("failed")).unwrap();
    std::os::unix::fs::symlink(outside.path(), folder.join("failed")).unwrap();
    refused_note("y.md");
    let err = inbox::drop_folder::ingest(&ws.ctx, &role)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Precondition, "{}", err.message);
    let planted: Vec<_> = std::fs::read_dir(outside.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        planted,
        vec![std::ffi::OsString::from("bashrc")],
        "nothing was moved or written outside"
    );
    assert!(messages_of(&ws, &role).await.is_empty());
}

#[cfg(unix)]
#[tokio::test]
async fn a_drop_folder_that_is_a_symlink_is_not_read() {
    let ws = support::workspace().await;
    let (role, folder) = role_folder(&ws, "Ambrosio").await;
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("elsewhere.md"), "from elsewhere").unwrap();
    age(&outside.path().join("elsewhere.md"));
    std::fs::remove_dir_all(&folder).unwrap();
    std::os::unix::fs::symlink(outside.path(), &folder).unwrap();
    let err = inbox::drop_folder::ingest(&ws.ctx, &role)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Precondition);
    assert!(messages_of(&ws, &role).await.is_empty());
    assert!(outside.path().join("elsewhere.md").exists());
}

#[tokio::test]
async fn an_oversized_note_is_refused_without_being_read() {
    let ws = support::workspace().await;
    let (role, folder) = role_folder(&ws, "Ambrosio").await;
    let huge = folder.join("huge.md");
    // 4 GB declared, nothing written: reading it would take seconds and memory.
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(4 << 30)
        .unwrap();
    age(&huge);
    let just_over = folder.join("over.md");
    std::fs::write(
        &just_over,
        vec![b'a'; usize::try_from(inbox::drop_folder::MAX_NOTE_BYTES).unwrap() + 1],
    )
    .unwrap();
    age(&just_over);

    let sent = inbox::drop_folder::ingest(&ws.ctx, &role).await.unwrap();
    assert!(sent.is_empty());
    for name in ["huge.md", "over.md"] {
        let why = std::fs::read_to_string(folder.join(format!("failed/{name}.error.txt"))).unwrap();
        assert!(why.contains("at most"), "{why}");
    }
    assert!(messages_of(&ws, &role).await.is_empty());
}
