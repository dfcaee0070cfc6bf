use clap::Subcommand;
use colmena_core::ids::{ModelId, ProviderId};
use colmena_core::models::download::DownloadProgress;
use colmena_core::models::library::{self, LibraryModel};
use colmena_core::models::local::{self, LocalModel};
use colmena_core::models::{self, Model, ModelFilter, NewModel};
use colmena_core::{AppError, Ctx, Result};

use super::output::{Output, SwitchArgs, table, yes_no};

#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Add a model to a provider; its id is PROVIDER/NAME.
    Add {
        provider: String,
        /// The name the provider knows it by (gpt-4o, llama3.1:8b).
        name: String,
        #[arg(long)]
        label: Option<String>,
    },
    /// List models.
    List {
        #[arg(long)]
        provider: Option<String>,
        /// Only models agents may use now.
        #[arg(long)]
        enabled: bool,
        /// The models on this computer: files, sizes, downloads under way.
        #[arg(long, conflicts_with_all = ["provider", "enabled"])]
        local: bool,
    },
    /// Bring a model onto this computer to run in Colmena's own engine: a
    /// model of the library (`colmena model library`), an https:// URL of a
    /// GGUF file (Hugging Face), or a .gguf file on disk. Downloads resume
    /// where they stopped and are checked (SHA-256) before use.
    Pull {
        /// A library name, a URL or a path.
        source: String,
        /// The model's name (default: from the file name).
        #[arg(long)]
        name: Option<String>,
    },
    /// The models Colmena can download, with size, memory and licence;
    /// those that would not fit this computer's memory are marked.
    Library,
    /// Remove a model from this computer: its entry and its file.
    Rm { name: String },
    /// Rename a model; every agent using it follows.
    Rename { id: String, new_name: String },
    /// Switch a model on or off (flips it without --on/--off).
    Toggle {
        id: String,
        #[command(flatten)]
        switch: SwitchArgs,
    },
    /// Whether images are sent to a model: on, off, or auto (the default
    /// for its name: known vision models are on).
    Images {
        id: String,
        #[arg(value_parser = ["on", "off", "auto"])]
        setting: String,
    },
    /// A model's context window in tokens, or `auto` (the known figure for
    /// its name): a woken role's thread is summarised to stay under it.
    Window { id: String, tokens: String },
    /// The agents that use a model.
    Users { id: String },
    /// Delete a model (refused while agents use it).
    Remove { id: String },
    /// Show the model agents without one use, or set it (--clear: none).
    Default {
        #[arg(conflicts_with = "clear")]
        id: Option<String>,
        #[arg(long)]
        clear: bool,
    },
}

pub async fn run(ctx: &Ctx, out: &Output, command: ModelCommand) -> Result<()> {
    match command {
        ModelCommand::Add {
            provider,
            name,
            label,
        } => {
            let input = NewModel {
                provider_id: ProviderId(provider),
                name,
                label,
            };
            let model = models::create(ctx, input).await?;
            out.emit(&model, |m| println!("added model {}", m.id));
        }
        ModelCommand::List { local: true, .. } => {
            let list = local::list(ctx).await?;
            out.emit(&list, |list| print_local(list));
        }
        ModelCommand::Pull { source, name } => {
            let bar = ProgressBar::default();
            let model = local::pull(ctx, &source, name.as_deref(), &|p| bar.show(p)).await;
            bar.finish();
            let model = model?;
            out.emit(&model, |m| println!("added local model {}", m.id));
        }
        ModelCommand::Library => {
            let list = library::for_this_computer();
            out.emit(&list, |list| print_library(list));
        }
        ModelCommand::Rm { name } => {
            local::remove(ctx, &name).await?;
            out.done(&format!("removed local model {name} and its file"));
        }
        ModelCommand::List {
            provider, enabled, ..
        } => {
            let filter = ModelFilter {
                provider_id: provider.map(ProviderId),
                enabled_only: enabled,
            };
            let list = models::list(ctx, filter).await?;
            out.emit(&list, |list| print_table(list));
        }
        ModelCommand::Rename { id, new_name } => {
            let old = ModelId(id);
            let model = models::rename(ctx, &old, &new_name).await?;
            out.emit(&model, |m| println!("renamed {old} to {}", m.id));
        }
        ModelCommand::Toggle { id, switch } => {
            let model = models::switch(ctx, &ModelId(id), switch.target()).await?;
            out.emit(&model, |m| {
                let state = if m.enabled { "enabled" } else { "disabled" };
                println!("model {} is {state}", m.id);
            });
        }
        ModelCommand::Images { id, setting } => {
            let setting = match setting.as_str() {
                "on" => Some(true),
                "off" => Some(false),
                _ => None,
            };
            let model = models::set_images(ctx, &ModelId(id), setting).await?;
            out.emit(&model, |m| {
                let how = if m.images_setting.is_some() {
                    "set by you"
                } else {
                    "default for its name"
                };
                let state = if m.accepts_images {
                    "accepts"
                } else {
                    "does not accept"
                };
                println!("model {} {state} images ({how})", m.id);
            });
        }
        ModelCommand::Window { id, tokens } => {
            let tokens = match tokens.as_str() {
                "auto" => None,
                n => Some(n.parse::<u32>().map_err(|_| {
                    AppError::invalid_field(
                        "contextWindow",
                        "not_a_number",
                        format!("'{n}' is not a number of tokens (or auto)"),
                    )
                })?),
            };
            let window = models::set_context_window(ctx, &ModelId(id.clone()), tokens).await?;
            out.emit(
                &serde_json::json!({ "id": id, "contextWindow": window }),
                |_| {
                    println!("model {id} has a context window of {window} tokens");
                },
            );
        }
        ModelCommand::Users { id } => {
            let users = models::agents_using_model(ctx, &ModelId(id)).await?;
            out.emit(&users, |users| {
                table(
                    &["agent", "name"],
                    users
                        .iter()
                        .map(|a| vec![a.id.to_string(), a.name.clone()])
                        .collect(),
                )
            });
        }
        ModelCommand::Remove { id } => {
            models::delete(ctx, &ModelId(id.clone())).await?;
            out.done(&format!("removed model {id}"));
        }
        ModelCommand::Default { id, clear } => {
            let current = match (id, clear) {
                (Some(id), _) => models::set_default_model(ctx, Some(ModelId(id))).await?,
                (None, true) => models::set_default_model(ctx, None).await?,
                (None, false) => models::default_model(ctx).await?,
            };
            out.emit(
                &serde_json::json!({ "defaultModel": current }),
                |_| match &current {
                    Some(id) => println!("default model: {id}"),
                    None => println!("no default model: agents without a model cannot run"),
                },
            );
        }
    }
    Ok(())
}

fn print_table(list: &[Model]) {
    table(
        &["id", "provider", "name", "label", "enabled", "images"],
        list.iter()
            .map(|m| {
                vec![
                    m.id.to_string(),
                    m.provider_id.to_string(),
                    m.name.clone(),
                    m.label.clone().unwrap_or_default(),
                    yes_no(m.enabled),
                    match m.images_setting {
                        Some(_) => yes_no(m.accepts_images),
                        None => format!("{} (auto)", yes_no(m.accepts_images)),
                    },
                ]
            })
            .collect(),
    );
}

fn print_local(list: &[LocalModel]) {
    table(
        &["id", "size", "state"],
        list.iter()
            .map(|m| {
                let state = if m.downloading {
                    "downloading"
                } else if m.loaded {
                    "loaded"
                } else {
                    "on disk"
                };
                vec![
                    m.id.to_string(),
                    format!("{:.1} MB", m.bytes as f64 / 1_000_000.0),
                    state.to_owned(),
                ]
            })
            .collect(),
    );
}

fn print_library(list: &[LibraryModel]) {
    table(
        &["name", "download", "memory", "licence", "good for"],
        list.iter()
            .map(|m| {
                let memory = format!("{:.1} GB", m.memory_bytes as f64 / 1e9);
                vec![
                    m.id.clone(),
                    format!("{:.0} MB", m.bytes as f64 / 1e6),
                    if m.fits {
                        memory
                    } else {
                        format!("{memory} (too much for this computer)")
                    },
                    m.licence.clone(),
                    m.good_for.clone(),
                ]
            })
            .collect(),
    );
}

/// A download's progress on stderr, one line redrawn in place.
#[derive(Default)]
struct ProgressBar {
    drawn: std::sync::atomic::AtomicBool,
}

impl ProgressBar {
    fn show(&self, p: &DownloadProgress) {
        use std::io::Write;
        let line = match p.total {
            Some(total) if total > 0 => {
                let done = (p.downloaded.min(total) * 30 / total) as usize;
                format!(
                    "{} [{}{}] {}",
                    p.name,
                    "#".repeat(done),
                    " ".repeat(30 - done),
                    p.summary()
                )
            }
            _ => format!("{} {}", p.name, p.summary()),
        };
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{line}\x1b[K");
        let _ = err.flush();
        self.drawn.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    fn finish(&self) {
        if self.drawn.load(std::sync::atomic::Ordering::Relaxed) {
            eprintln!();
        }
    }
}
