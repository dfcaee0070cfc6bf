//! Stored images (SPEC C11, H36–H38) against a real data dir: a large
//! photo normalised for models, the image tools' functions taking and
//! returning artifact ids, a corrupt file kept as it came, retention, and
//! an image dropped on a canvas.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::ErrorCode;
use colmena_core::canvas::{self, Caller};
use colmena_core::images::{self, Crop, Transform};

#[tokio::test]
async fn h37_a_3024x4032_jpeg_becomes_a_768x1024_webp_of_tens_of_kb() {
    let ws = support::workspace().await;
    let me = ws.ctx.owner().to_owned();
    let photo = images::sample_photo_jpeg(3024, 4032, 85);
    assert!(
        photo.len() > 500_000,
        "the sample is a big photo: {} bytes",
        photo.len()
    );
    let original = images::upload(&ws.ctx, &me, "IMG_0001.jpg", photo.clone())
        .await
        .unwrap();
    assert_eq!(
        (original.width, original.height, original.format.as_deref()),
        (Some(3024), Some(4032), Some("jpeg"))
    );
    let model = images::normalize_for_model(&ws.ctx, &me, &original.id)
        .await
        .unwrap();
    assert_eq!(
        (model.width, model.height, model.format.as_deref()),
        (Some(768), Some(1024), Some("webp"))
    );
    assert_eq!(model.source_id.as_deref(), Some(original.id.as_str()));
    assert!(model.size_bytes < 120_000, "{} bytes", model.size_bytes);
    let bytes = images::bytes(&ws.ctx, &me, &model.id).await.unwrap();
    assert_eq!(&bytes[..4], b"RIFF");
    assert_eq!(&bytes[8..12], b"WEBP");
    // The original is kept byte for byte.
    assert_eq!(
        images::bytes(&ws.ctx, &me, &original.id).await.unwrap(),
        photo
    );
}

#[tokio::test]
async fn h36_transform_and_metadata_take_and_return_artifact_ids() {
    let ws = support::workspace().await;
    let me = ws.ctx.owner().to_owned();
    let photo = images::upload(
        &ws.ctx,
        &me,
        "a.jpg",
        images::sample_photo_jpeg(800, 600, 90),
    )
    .await
    .unwrap();
    let png = images::transform(
        &ws.ctx,
        &me,
        &photo.id,
        Transform {
            crop: Some(Crop {
                x: 100,
                y: 100,
                width: 400,
                height: 300,
            }),
            width: Some(200),
            format: Some("png".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_ne!(png.id, photo.id);
    assert_eq!(
        (png.width, png.height, png.format.as_deref()),
        (Some(200), Some(150), Some("png"))
    );
    let meta = images::metadata(&ws.ctx, &me, &png.id).await.unwrap();
    assert_eq!(meta.mime, "image/png");
    let err = images::transform(
        &ws.ctx,
        &me,
        &photo.id,
        Transform {
            crop: Some(Crop {
                x: 700,
                y: 0,
                width: 200,
                height: 10,
            }),
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.field(), Some("crop"));
    // Another user's artifact does not exist for this one.
    let err = images::metadata(&ws.ctx, "beto", &photo.id)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn h38_a_corrupt_image_is_kept_as_it_came_and_retention_deletes_files() {
    let ws = support::workspace().await;
    let me = ws.ctx.owner().to_owned();
    let broken = b"\xff\xd8\xff\xe0 this is not really a jpeg".to_vec();
    let kept = images::upload(&ws.ctx, &me, "roto.jpg", broken.clone())
        .await
        .unwrap();
    assert_eq!(
        (kept.width, kept.format.as_deref(), kept.mime.as_str()),
        (None, None, "image/jpeg")
    );
    // Best effort: a model gets the original when it cannot be normalised.
    let model = images::normalize_for_model(&ws.ctx, &me, &kept.id)
        .await
        .unwrap();
    assert_eq!(model.id, kept.id);
    assert_eq!(images::bytes(&ws.ctx, &me, &kept.id).await.unwrap(), broken);
    let err = images::transform(&ws.ctx, &me, &kept.id, Transform::default())
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);

    assert_eq!(images::list(&ws.ctx, &me).await.unwrap().len(), 1);
    assert_eq!(
        images::apply_retention(&ws.ctx, &me, 30).await.unwrap(),
        0,
        "nothing is that old"
    );
    images::delete(&ws.ctx, &me, &kept.id).await.unwrap();
    assert!(images::list(&ws.ctx, &me).await.unwrap().is_empty());
    let files = std::fs::read_dir(ws.dir.path().join("artifacts"))
        .unwrap()
        .count();
    assert_eq!(files, 0, "the file went with its row");
}

#[tokio::test]
async fn c11_an_image_dropped_on_a_canvas_becomes_an_item_pointing_at_its_artifacts() {
    let ws = support::workspace().await;
    let me = Caller::ui(&ws.ctx);
    let c = canvas::create(&ws.ctx, &me, None).await.unwrap();
    let item = canvas::items::add_image(
        &ws.ctx,
        &me,
        &c.id,
        "colmena.jpg",
        images::sample_photo_jpeg(2000, 1500, 85),
    )
    .await
    .unwrap();
    assert_eq!(item.title, "colmena.jpg");
    assert!(
        item.snippet.contains("2000×1500") && item.snippet.contains("1024×768 WebP"),
        "{}",
        item.snippet
    );
    let model = item.raw["modelArtifactId"].as_str().unwrap();
    let artifact = images::get(&ws.ctx, ws.ctx.owner(), model).await.unwrap();
    assert_eq!(artifact.format.as_deref(), Some("webp"));
    // A file that is not an image is kept and says so.
    let odd = canvas::items::add_image(&ws.ctx, &me, &c.id, "notas.png", b"plain text".to_vec())
        .await
        .unwrap();
    assert!(
        odd.snippet.contains("could not be read as an image"),
        "{}",
        odd.snippet
    );
}

#[tokio::test]
async fn c11_an_image_item_has_a_preview_of_its_model_copy_and_other_items_have_none() {
    use base64::Engine;
    let ws = support::workspace().await;
    let me = Caller::ui(&ws.ctx);
    let c = canvas::create(&ws.ctx, &me, None).await.unwrap();
    let photo = canvas::items::add_image(
        &ws.ctx,
        &me,
        &c.id,
        "panal.jpg",
        images::sample_photo_jpeg(2000, 1500, 85),
    )
    .await
    .unwrap();
    let preview = canvas::items::image_preview(&ws.ctx, &me, &c.id, &photo.id)
        .await
        .unwrap();
    assert_eq!(preview.mime, "image/webp");
    assert_eq!((preview.width, preview.height), (Some(1024), Some(768)));
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&preview.data_base64)
        .unwrap();
    assert_eq!(
        images::probe(&bytes),
        Some((1024, 768, "webp")),
        "the preview is the model copy itself"
    );

    let odd = canvas::items::add_image(&ws.ctx, &me, &c.id, "notas.png", b"plain text".to_vec())
        .await
        .unwrap();
    let text = canvas::items::add_item(
        &ws.ctx,
        &me,
        &c.id,
        canvas::items::NewItem {
            title: Some("Una nota".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    for item in [&odd.id, &text.id] {
        let err = canvas::items::image_preview(&ws.ctx, &me, &c.id, item)
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Precondition);
        assert_eq!(err.details.as_ref().unwrap()["reason"], "not_an_image");
    }
    // Another user's canvas shows nothing.
    colmena_core::users::create(&ws.ctx, "Beto").await.unwrap();
    let beto = Caller {
        actor: colmena_core::caller::Actor::Person {
            user: "beto".into(),
            author: None,
        },
        ..me.clone()
    };
    let err = canvas::items::image_preview(&ws.ctx, &beto, &c.id, &photo.id)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}
