//! `colmena image …`: stored images (SPEC H36–H38), one line each over
//! `colmena_core::images`.

use std::path::PathBuf;

use clap::Subcommand;
use colmena_core::images::{self, Artifact, Crop, Transform};
use colmena_core::{AppError, Ctx, Result};

use super::output::{Output, table};

#[derive(Debug, Subcommand)]
pub enum ImageCommand {
    /// Store an image file as it is (a file that is not an image is kept too).
    Upload { path: PathBuf },
    /// Your stored images, newest first.
    List,
    /// Width, height and format of one.
    Show { id: String },
    /// The copy a model gets: ≤ 1024 px, lossy WebP.
    Normalize { id: String },
    /// Crop, resize or convert: a new image.
    Transform {
        id: String,
        #[arg(long)]
        width: Option<u32>,
        #[arg(long)]
        height: Option<u32>,
        #[arg(long, value_parser = ["png", "jpeg", "webp"])]
        format: Option<String>,
        /// X,Y,WIDTH,HEIGHT
        #[arg(long, value_name = "X,Y,W,H")]
        crop: Option<String>,
    },
    /// Write an image's bytes to a file.
    Save { id: String, path: PathBuf },
    /// Delete one.
    Remove { id: String },
    /// Delete those older than DAYS.
    Retention {
        #[arg(long)]
        days: u32,
    },
}

fn print(list: &[Artifact]) {
    table(
        &["id", "name", "size", "format", "KB", "from"],
        list.iter()
            .map(|a| {
                vec![
                    a.id.clone(),
                    a.name.clone(),
                    match (a.width, a.height) {
                        (Some(w), Some(h)) => format!("{w}x{h}"),
                        _ => "-".into(),
                    },
                    a.format.clone().unwrap_or_else(|| "?".into()),
                    a.size_bytes.div_ceil(1024).to_string(),
                    a.derivation.clone().unwrap_or_default(),
                ]
            })
            .collect(),
    );
}

fn crop(text: &str) -> Result<Crop> {
    let parts: Vec<u32> = text
        .split(',')
        .filter_map(|p| p.trim().parse().ok())
        .collect();
    match parts[..] {
        [x, y, width, height] => Ok(Crop {
            x,
            y,
            width,
            height,
        }),
        _ => Err(AppError::invalid_field(
            "crop",
            "invalid_crop",
            "--crop is X,Y,WIDTH,HEIGHT",
        )),
    }
}

pub async fn run(ctx: &Ctx, out: &Output, command: ImageCommand) -> Result<()> {
    let me = ctx.owner().to_owned();
    match command {
        ImageCommand::Upload { path } => {
            let a = images::upload_file(ctx, &me, &path).await?;
            out.emit(&a, |a| print(std::slice::from_ref(a)));
        }
        ImageCommand::List => {
            let list = images::list(ctx, &me).await?;
            out.emit(&list, |l| print(l));
        }
        ImageCommand::Show { id } => {
            let a = images::metadata(ctx, &me, &id).await?;
            out.emit(&a, |a| print(std::slice::from_ref(a)));
        }
        ImageCommand::Normalize { id } => {
            let a = images::normalize_for_model(ctx, &me, &id).await?;
            out.emit(&a, |a| print(std::slice::from_ref(a)));
        }
        ImageCommand::Transform {
            id,
            width,
            height,
            format,
            crop: c,
        } => {
            let spec = Transform {
                crop: c.as_deref().map(crop).transpose()?,
                width,
                height,
                format,
            };
            let a = images::transform(ctx, &me, &id, spec).await?;
            out.emit(&a, |a| print(std::slice::from_ref(a)));
        }
        ImageCommand::Save { id, path } => {
            let bytes = images::bytes(ctx, &me, &id).await?;
            std::fs::write(&path, bytes).map_err(|e| {
                AppError::invalid_field(
                    "path",
                    "not_writable",
                    format!("cannot write {}: {e}", path.display()),
                )
            })?;
            out.done(&format!("wrote {}", path.display()));
        }
        ImageCommand::Remove { id } => {
            images::delete(ctx, &me, &id).await?;
            out.done(&format!("deleted image {id}"));
        }
        ImageCommand::Retention { days } => {
            let n = images::apply_retention(ctx, &me, days).await?;
            out.done(&format!("deleted {n} images older than {days} days"));
        }
    }
    Ok(())
}
