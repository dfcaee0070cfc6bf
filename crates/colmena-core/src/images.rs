//! Stored images (SPEC C11, H36–H38): artifacts kept as files under the
//! data dir's `artifacts/` folder, one row each, per user.
//!
//! - `upload` keeps the bytes exactly as they came — a file that cannot be
//!   decoded is stored all the same, with what is known (never lost);
//! - `normalize_for_model` makes the copy a model gets: at most 1024 px on
//!   the long side, lossy WebP (a 3024×4032 JPEG becomes a few tens of KB).
//!   Best effort: if the original cannot be decoded, the original is used;
//! - `transform` (crop, resize, convert) and `metadata` take and return
//!   artifact ids — the `image_transform` and `image_metadata` tools are
//!   these functions;
//! - `delete` and `apply_retention` remove rows and files together.
//!
//! Decoding uses `image`, resizing `fast_image_resize` (SIMD), lossy WebP
//! `libwebp` through the `webp` crate — the fastest pipeline measured on
//! this machine (see BENCHMARKS.md).
//!
//! Images come from models, web pages and drop folders, so they are hostile
//! input: a few hundred bytes of PNG can declare 100000×100000 pixels. Every
//! decode therefore runs under explicit [`image::Limits`] ([`MAX_DECODE_SIDE`],
//! [`MAX_DECODE_ALLOC`]), every output is capped at [`MAX_OUTPUT_PIXELS`]
//! before a pixel is allocated, and encoding checks what its libraries would
//! assert on and catches what remains, so a bad image is an error, never a
//! panic or an out-of-memory kill.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::ctx::Ctx;
use crate::error::{AppError, ErrorCode, Result};

/// The long side of an image handed to a model.
pub const MODEL_MAX_SIDE: u32 = 1024;
/// Lossy WebP quality for model copies.
pub const WEBP_QUALITY: f32 = 80.0;
/// Largest upload accepted.
pub const MAX_UPLOAD_BYTES: usize = 50 * 1024 * 1024;
/// Widest or tallest image decoded.
pub const MAX_DECODE_SIDE: u32 = 16_384;
/// Most memory one decode may allocate (a 100-megapixel RGBA photo fits).
pub const MAX_DECODE_ALLOC: u64 = 512 * 1024 * 1024;
/// Most pixels an image made by `transform` or `normalize` may have.
pub const MAX_OUTPUT_PIXELS: u64 = 40_000_000;
/// Widest or tallest image made (WebP's own limit is 16383).
pub const MAX_OUTPUT_SIDE: u32 = 16_383;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    pub id: String,
    pub name: String,
    pub mime: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// `jpeg`, `png`, `webp`…; none when the bytes could not be decoded.
    pub format: Option<String>,
    pub size_bytes: u64,
    pub sha256: String,
    /// The artifact this one was made from.
    pub source_id: Option<String>,
    /// How it was made (`normalize`, `resize 512x384 webp`…).
    pub derivation: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// What `transform` does, in this order: crop, resize, convert.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Transform {
    #[serde(default)]
    pub crop: Option<Crop>,
    /// With only one of width and height, the other follows the aspect.
    #[serde(default)]
    pub width: Option<u32>,
    #[serde(default)]
    pub height: Option<u32>,
    /// `png`, `jpeg` or `webp` (default: the source's, else png).
    #[serde(default)]
    pub format: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, specta::Type)]
pub struct Crop {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// An encoded image and its size.
pub struct Encoded {
    pub bytes: Vec<u8>,
    pub width: u32,
    pub height: u32,
    pub format: &'static str,
}

fn mime_of(format: Option<&str>, name: &str) -> String {
    match format {
        Some("jpeg") => "image/jpeg".into(),
        Some("png") => "image/png".into(),
        Some("webp") => "image/webp".into(),
        Some("gif") => "image/gif".into(),
        _ => match name
            .rsplit('.')
            .next()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("jpg" | "jpeg") => "image/jpeg".into(),
            Some("png") => "image/png".into(),
            Some("webp") => "image/webp".into(),
            _ => "application/octet-stream".into(),
        },
    }
}

fn format_name(format: image::ImageFormat) -> &'static str {
    match format {
        image::ImageFormat::Jpeg => "jpeg",
        image::ImageFormat::Png => "png",
        image::ImageFormat::WebP => "webp",
        image::ImageFormat::Gif => "gif",
        _ => "other",
    }
}

fn undecodable(e: impl std::fmt::Display) -> AppError {
    AppError::invalid_field(
        "artifactId",
        "not_an_image",
        format!("the image cannot be decoded: {e}"),
    )
}

/// The limits every decode runs under.
fn decode_limits() -> image::Limits {
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_DECODE_SIDE);
    limits.max_image_height = Some(MAX_DECODE_SIDE);
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    limits
}

/// Decodes under [`decode_limits`]; an image over them is a validation error.
fn decode(bytes: &[u8]) -> Result<image::DynamicImage> {
    let mut reader = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(undecodable)?;
    reader.limits(decode_limits());
    reader.decode().map_err(|e| match e {
        image::ImageError::Limits(limit) => AppError::invalid_field(
            "artifactId",
            "too_large",
            format!(
                "the image is too large to open (at most {MAX_DECODE_SIDE} px a side \
                 and {} MB of pixels): {limit}",
                MAX_DECODE_ALLOC >> 20
            ),
        ),
        other => undecodable(other),
    })
}

/// Refuses an output size before any pixel is allocated.
fn check_output(width: u32, height: u32) -> Result<()> {
    if width == 0 || height == 0 || width > MAX_OUTPUT_SIDE || height > MAX_OUTPUT_SIDE {
        return Err(AppError::invalid_field(
            "width",
            "out_of_range",
            format!("width and height must be 1 to {MAX_OUTPUT_SIDE}"),
        ));
    }
    if u64::from(width) * u64::from(height) > MAX_OUTPUT_PIXELS {
        return Err(AppError::invalid_field(
            "width",
            "too_large",
            format!(
                "{width}×{height} is more than {} megapixels",
                MAX_OUTPUT_PIXELS / 1_000_000
            ),
        ));
    }
    Ok(())
}

/// Width, height and format, from the header only (cheap).
pub fn probe(bytes: &[u8]) -> Option<(u32, u32, &'static str)> {
    let reader = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .ok()?;
    let format = reader.format()?;
    let (w, h) = reader.into_dimensions().ok()?;
    Some((w, h, format_name(format)))
}

/// Resizes RGB pixels with SIMD convolution (bilinear, sharp enough for
/// downscaling photos for a model).
fn resize_rgb(rgb: Vec<u8>, width: u32, height: u32, to_w: u32, to_h: u32) -> Result<Vec<u8>> {
    use fast_image_resize::images::Image;
    use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
    if (width, height) == (to_w, to_h) {
        return Ok(rgb);
    }
    let src = Image::from_vec_u8(width, height, rgb, PixelType::U8x3)
        .map_err(|e| AppError::internal(format!("resize source: {e}")))?;
    let mut dst = Image::new(to_w, to_h, PixelType::U8x3);
    let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Bilinear));
    Resizer::new()
        .resize(&src, &mut dst, &options)
        .map_err(|e| AppError::internal(format!("resize: {e}")))?;
    Ok(dst.into_vec())
}

fn fit(width: u32, height: u32, max_side: u32) -> (u32, u32) {
    let long = width.max(height);
    if long <= max_side {
        return (width, height);
    }
    let scale = f64::from(max_side) / f64::from(long);
    (
        ((f64::from(width) * scale).round() as u32).max(1),
        ((f64::from(height) * scale).round() as u32).max(1),
    )
}

/// Encodes RGB pixels. The sizes are checked first (the encoders assert on
/// them), and a panic left in a library becomes an `internal` error.
fn encode(rgb: &[u8], width: u32, height: u32, format: &str) -> Result<Encoded> {
    check_output(width, height)?;
    let expected = u64::from(width) * u64::from(height) * 3;
    if u64::try_from(rgb.len()).ok() != Some(expected) {
        return Err(AppError::internal("the pixels do not fill the image"));
    }
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        encode_checked(rgb, width, height, format)
    }))
    .unwrap_or_else(|_| Err(AppError::internal(format!("the {format} encoder failed"))))
}

fn encode_checked(rgb: &[u8], width: u32, height: u32, format: &str) -> Result<Encoded> {
    let bytes = match format {
        "webp" => webp::Encoder::from_rgb(rgb, width, height)
            .encode_simple(false, WEBP_QUALITY)
            .map_err(|e| AppError::internal(format!("cannot encode webp: {e:?}")))?
            .to_vec(),
        "jpeg" | "png" => {
            let buffer = image::RgbImage::from_raw(width, height, rgb.to_vec())
                .ok_or_else(|| AppError::internal("the pixels do not fill the image"))?;
            let mut out = Cursor::new(Vec::new());
            let target = if format == "jpeg" {
                image::ImageFormat::Jpeg
            } else {
                image::ImageFormat::Png
            };
            buffer
                .write_to(&mut out, target)
                .map_err(|e| AppError::internal(format!("cannot encode {format}: {e}")))?;
            out.into_inner()
        }
        other => {
            return Err(AppError::invalid_field(
                "format",
                "unknown_format",
                format!("format must be png, jpeg or webp, not '{other}'"),
            ));
        }
    };
    let format = match format {
        "webp" => "webp",
        "jpeg" => "jpeg",
        _ => "png",
    };
    Ok(Encoded {
        bytes,
        width,
        height,
        format,
    })
}

/// The copy a model gets: ≤ 1024 px on the long side, lossy WebP.
pub fn normalize_bytes(bytes: &[u8]) -> Result<Encoded> {
    let decoded = decode(bytes)?;
    let (w, h) = (decoded.width(), decoded.height());
    let (to_w, to_h) = fit(w, h, MODEL_MAX_SIDE);
    let rgb = resize_rgb(decoded.into_rgb8().into_raw(), w, h, to_w, to_h)?;
    encode(&rgb, to_w, to_h, "webp")
}

fn transform_bytes(bytes: &[u8], spec: &Transform) -> Result<Encoded> {
    let mut decoded = decode(bytes)?;
    if let Some(c) = spec.crop {
        let inside = |start: u32, length: u32, limit: u32| {
            length > 0 && start.checked_add(length).is_some_and(|end| end <= limit)
        };
        if !inside(c.x, c.width, decoded.width()) || !inside(c.y, c.height, decoded.height()) {
            return Err(AppError::invalid_field(
                "crop",
                "out_of_range",
                format!(
                    "the crop must lie inside the {}×{} image",
                    decoded.width(),
                    decoded.height()
                ),
            ));
        }
        decoded = decoded.crop_imm(c.x, c.y, c.width, c.height);
    }
    let (w, h) = (decoded.width(), decoded.height());
    let (to_w, to_h) = match (spec.width, spec.height) {
        (Some(tw), Some(th)) => (tw, th),
        (Some(tw), None) => (
            tw,
            ((f64::from(h) * f64::from(tw) / f64::from(w)).round() as u32).max(1),
        ),
        (None, Some(th)) => (
            ((f64::from(w) * f64::from(th) / f64::from(h)).round() as u32).max(1),
            th,
        ),
        (None, None) => (w, h),
    };
    check_output(to_w, to_h)?;
    let rgb = resize_rgb(decoded.into_rgb8().into_raw(), w, h, to_w, to_h)?;
    let format = spec
        .format
        .clone()
        .unwrap_or_else(|| probe(bytes).map_or("png", |p| p.2).to_owned());
    let format = if matches!(format.as_str(), "jpeg" | "png" | "webp") {
        format
    } else {
        "png".into()
    };
    encode(&rgb, to_w, to_h, &format)
}

fn folder(ctx: &Ctx) -> PathBuf {
    ctx.data_dir().join("artifacts")
}

const COLUMNS: &str =
    "id, name, mime, width, height, format, size_bytes, sha256, source_id, derivation, created_at";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Artifact> {
    Ok(Artifact {
        id: r.get(0)?,
        name: r.get(1)?,
        mime: r.get(2)?,
        width: r.get(3)?,
        height: r.get(4)?,
        format: r.get(5)?,
        size_bytes: r.get::<_, i64>(6)?.max(0) as u64,
        sha256: r.get(7)?,
        source_id: r.get(8)?,
        derivation: r.get(9)?,
        created_at: r.get(10)?,
    })
}

fn require(conn: &Connection, user: &str, id: &str) -> Result<(Artifact, String)> {
    conn.query_row(
        &format!("SELECT {COLUMNS}, file FROM artifacts WHERE id = ?1 AND user_id = ?2"),
        params![id, user],
        |r| Ok((from_row(r)?, r.get::<_, String>(11)?)),
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("artifact", id))
}

/// Stores `bytes` as a new artifact of `user` (file first, then the row).
async fn store(
    ctx: &Ctx,
    user: &str,
    name: &str,
    bytes: Vec<u8>,
    known: Option<(u32, u32, &'static str)>,
    source: Option<(&str, String)>,
) -> Result<Artifact> {
    let id = uuid::Uuid::now_v7().to_string();
    let ext = known.map_or("bin", |k| if k.2 == "jpeg" { "jpg" } else { k.2 });
    let file = format!("{id}.{ext}");
    let dir = folder(ctx);
    std::fs::create_dir_all(&dir)
        .map_err(|e| AppError::internal(format!("cannot create {}: {e}", dir.display())))?;
    let path = dir.join(&file);
    let partial = dir.join(format!("{file}.partial"));
    std::fs::write(&partial, &bytes)
        .and_then(|()| std::fs::rename(&partial, &path))
        .map_err(|e| AppError::internal(format!("cannot write {}: {e}", path.display())))?;
    let sha = crate::secrets::encode_hex(&Sha256::digest(&bytes));
    let (user, name) = (user.to_owned(), name.to_owned());
    let mime = mime_of(known.map(|k| k.2), &name);
    let (source_id, derivation) =
        source.map_or((None, None), |(s, d)| (Some(s.to_owned()), Some(d)));
    let size = bytes.len() as i64;
    let stored = ctx
        .store()
        .write(move |tx| {
            crate::users::check_user(&user)?;
            tx.execute(
                "INSERT INTO artifacts (id, user_id, name, mime, width, height, format, size_bytes, sha256, file,
                                        source_id, derivation, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![
                    id,
                    user,
                    name,
                    mime,
                    known.map(|k| k.0),
                    known.map(|k| k.1),
                    known.map(|k| k.2),
                    size,
                    sha,
                    file,
                    source_id,
                    derivation,
                    Utc::now()
                ],
            )?;
            Ok(require(tx, &user, &id)?.0)
        })
        .await;
    if stored.is_err() {
        let _ = std::fs::remove_file(&path);
    }
    stored
}

/// Stores an uploaded file as it is. Bytes that do not decode as an image
/// are kept too (their format is unknown), so nothing dropped is lost.
pub async fn upload(ctx: &Ctx, user: &str, name: &str, bytes: Vec<u8>) -> Result<Artifact> {
    if bytes.is_empty() {
        return Err(AppError::invalid_field(
            "file",
            "required",
            "the file is empty",
        ));
    }
    if bytes.len() > MAX_UPLOAD_BYTES {
        return Err(AppError::invalid_field(
            "file",
            "too_long",
            format!(
                "the file is {} MB; the most is {} MB",
                bytes.len() >> 20,
                MAX_UPLOAD_BYTES >> 20
            ),
        ));
    }
    let name = crate::validate::name("name", name, 200)?;
    let known = probe(&bytes);
    store(ctx, user, &name, bytes, known, None).await
}

/// Stores the file at `path` as an image of `user`, named after the file
/// (the window's picker, `colmena image upload`, `colmena chat --image`).
pub async fn upload_file(ctx: &Ctx, user: &str, path: &Path) -> Result<Artifact> {
    let bytes = std::fs::read(path).map_err(|e| {
        AppError::invalid_field(
            "path",
            "unreadable",
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    let name = path
        .file_name()
        .map_or_else(|| "image".into(), |n| n.to_string_lossy().into_owned());
    upload(ctx, user, &name, bytes).await
}

pub async fn get(ctx: &Ctx, user: &str, id: &str) -> Result<Artifact> {
    let (user, id) = (user.to_owned(), id.to_owned());
    Ok(ctx
        .store()
        .read(move |conn| require(conn, &user, &id))
        .await?
        .0)
}

/// The stored bytes.
pub async fn bytes(ctx: &Ctx, user: &str, id: &str) -> Result<Vec<u8>> {
    let (u, i) = (user.to_owned(), id.to_owned());
    let (_, file) = ctx.store().read(move |conn| require(conn, &u, &i)).await?;
    let path = folder(ctx).join(file);
    std::fs::read(&path)
        .map_err(|e| AppError::internal(format!("the file of artifact {id} cannot be read: {e}")))
}

/// The user's artifacts, newest first.
pub async fn list(ctx: &Ctx, user: &str) -> Result<Vec<Artifact>> {
    let user = user.to_owned();
    ctx.store()
        .read(move |conn| {
            let mut stmt = conn.prepare(&format!(
                "SELECT {COLUMNS} FROM artifacts WHERE user_id = ?1 ORDER BY created_at DESC"
            ))?;
            let rows = stmt.query_map([user], from_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .await
}

/// Width, height and format (`image_metadata`).
pub async fn metadata(ctx: &Ctx, user: &str, id: &str) -> Result<Artifact> {
    get(ctx, user, id).await
}

/// A model's copy of the artifact, stored as a new artifact; the original
/// itself when it cannot be decoded (best effort, H37).
pub async fn normalize_for_model(ctx: &Ctx, user: &str, id: &str) -> Result<Artifact> {
    let original = get(ctx, user, id).await?;
    let data = bytes(ctx, user, id).await?;
    let normalized = tokio::task::spawn_blocking(move || normalize_bytes(&data))
        .await
        .map_err(|e| AppError::internal(format!("normalising failed: {e}")))?;
    match normalized {
        Ok(n) => {
            let name = format!(
                "{}.model.webp",
                original
                    .name
                    .rsplit_once('.')
                    .map_or(original.name.as_str(), |p| p.0)
            );
            let known = Some((n.width, n.height, n.format));
            store(
                ctx,
                user,
                &name,
                n.bytes,
                known,
                Some((id, "normalize".into())),
            )
            .await
        }
        Err(e) => {
            tracing::info!("artifact {id} is sent as it is: {}", e.message);
            Ok(original)
        }
    }
}

/// The copy of `id` a model gets, made once: an artifact that is itself a
/// model copy is its own; one normalised before gives that copy back;
/// otherwise it is normalised now ([`normalize_for_model`], best effort).
pub async fn model_copy(ctx: &Ctx, user: &str, id: &str) -> Result<Artifact> {
    let original = get(ctx, user, id).await?;
    if original.derivation.as_deref() == Some("normalize") {
        return Ok(original);
    }
    let (u, i) = (user.to_owned(), id.to_owned());
    let made: Option<String> = ctx
        .store()
        .read(move |conn| {
            Ok(conn
                .query_row(
                    "SELECT id FROM artifacts WHERE source_id = ?1 AND user_id = ?2
                         AND derivation = 'normalize'
                     ORDER BY created_at DESC LIMIT 1",
                    params![i, u],
                    |r| r.get(0),
                )
                .optional()?)
        })
        .await?;
    match made {
        Some(copy) => get(ctx, user, &copy).await,
        None => normalize_for_model(ctx, user, id).await,
    }
}

/// Whether an artifact can be sent to a model as an image: its bytes were
/// recognised as a picture format providers take.
pub fn is_model_image(artifact: &Artifact) -> bool {
    artifact.format.is_some() && artifact.mime.starts_with("image/")
}

/// The image part a model is sent for artifact `id` (its stored bytes, as
/// they are — pass a model copy); `None` when it is not an image.
pub async fn model_part(ctx: &Ctx, user: &str, id: &str) -> Result<Option<crate::llm::ImagePart>> {
    let artifact = get(ctx, user, id).await?;
    if !is_model_image(&artifact) {
        return Ok(None);
    }
    let data = bytes(ctx, user, id).await?;
    Ok(Some(crate::llm::ImagePart::new(artifact.mime, data)))
}

/// An image item's picture, small enough to show beside it: the copy made
/// for models (≤ 1024 px WebP), inline as base64 — the webview has no other
/// way into the data dir.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImagePreview {
    pub mime: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub data_base64: String,
}

/// A picture of artifact `id` small enough to show: its model copy (made
/// if need be), inline as base64. Not an image: `validation`, reason
/// `not_an_image`.
pub async fn preview(ctx: &Ctx, user: &str, id: &str) -> Result<ImagePreview> {
    use base64::Engine;
    let copy = model_copy(ctx, user, id).await?;
    if !is_model_image(&copy) {
        return Err(AppError::invalid_field(
            "artifactId",
            "not_an_image",
            format!("'{}' is not an image that can be shown", copy.name),
        ));
    }
    let data = bytes(ctx, user, &copy.id).await?;
    Ok(ImagePreview {
        mime: copy.mime,
        width: copy.width,
        height: copy.height,
        data_base64: base64::engine::general_purpose::STANDARD.encode(data),
    })
}

/// Crops, resizes or converts (`image_transform`): a new artifact.
pub async fn transform(ctx: &Ctx, user: &str, id: &str, spec: Transform) -> Result<Artifact> {
    let original = get(ctx, user, id).await?;
    let data = bytes(ctx, user, id).await?;
    let spec2 = spec.clone();
    let done = tokio::task::spawn_blocking(move || transform_bytes(&data, &spec2))
        .await
        .map_err(|e| AppError::internal(format!("transforming failed: {e}")))??;
    let derivation = format!("transform {}x{} {}", done.width, done.height, done.format);
    let stem = original
        .name
        .rsplit_once('.')
        .map_or(original.name.as_str(), |p| p.0);
    let name = format!("{stem}.{}x{}.{}", done.width, done.height, done.format);
    let known = Some((done.width, done.height, done.format));
    store(ctx, user, &name, done.bytes, known, Some((id, derivation))).await
}

/// Deletes an artifact and its file.
pub async fn delete(ctx: &Ctx, user: &str, id: &str) -> Result<()> {
    let (u, i) = (user.to_owned(), id.to_owned());
    let file = ctx
        .store()
        .write(move |tx| {
            let (_, file) = require(tx, &u, &i)?;
            tx.execute("DELETE FROM artifacts WHERE id = ?1", [&i])?;
            Ok(file)
        })
        .await?;
    let _ = std::fs::remove_file(folder(ctx).join(file));
    Ok(())
}

/// Deletes the user's artifacts older than `days`; returns how many.
pub async fn apply_retention(ctx: &Ctx, user: &str, days: u32) -> Result<u32> {
    if days == 0 {
        return Err(AppError::new(
            ErrorCode::Validation,
            "retention must keep at least one day",
        ));
    }
    let user = user.to_owned();
    let cutoff = Utc::now() - Duration::days(i64::from(days));
    let files: Vec<String> = ctx
        .store()
        .write(move |tx| {
            let mut stmt =
                tx.prepare("SELECT file FROM artifacts WHERE user_id = ?1 AND created_at < ?2")?;
            let files = stmt
                .query_map(params![user, cutoff], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            tx.execute(
                "DELETE FROM artifacts WHERE user_id = ?1 AND created_at < ?2",
                params![user, cutoff],
            )?;
            Ok(files)
        })
        .await?;
    for file in &files {
        let _ = std::fs::remove_file(folder(ctx).join(file));
    }
    Ok(files.len() as u32)
}

/// A photo-like JPEG for tests and benchmarks: smooth light, textured
/// detail and a little noise, so encoders see something like a photograph
/// rather than a flat gradient (which would flatter them).
pub fn sample_photo_jpeg(width: u32, height: u32, quality: u8) -> Vec<u8> {
    let mut seed: u32 = 0x9E37_79B9;
    let photo = image::RgbImage::from_fn(width, height, |x, y| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        let noise = (seed % 17) as f32 - 8.0;
        let (fx, fy) = (x as f32 / width as f32, y as f32 / height as f32);
        let light = 150.0 + 70.0 * (fx * 3.1).sin() * (fy * 2.3).cos();
        let detail = 25.0 * ((x as f32 * 0.05).sin() + (y as f32 * 0.031).cos());
        let channel = |tint: f32| (light * tint + detail + noise).clamp(0.0, 255.0) as u8;
        image::Rgb([channel(1.0), channel(0.85), channel(0.6)])
    });
    let mut out = Cursor::new(Vec::new());
    let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality);
    photo
        .write_with_encoder(encoder)
        .map_or_else(|_| Vec::new(), |()| out.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h37_fit_keeps_the_aspect_and_never_enlarges() {
        assert_eq!(fit(3024, 4032, 1024), (768, 1024));
        assert_eq!(fit(4032, 3024, 1024), (1024, 768));
        assert_eq!(fit(640, 480, 1024), (640, 480));
    }
}
