//! `colmena canvas …`: the 18 canvas operations of SPEC C9 (and sources,
//! presets and the activity log), each one line over `colmena_core::canvas`.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};
use colmena_core::canvas::exports::{ExportRequest, ExportTarget};
use colmena_core::canvas::generate::{self, CanvasEvent, CanvasSink};
use colmena_core::canvas::items::{NewItem, SourceKind};
use colmena_core::canvas::presets::PresetDraft;
use colmena_core::canvas::sources::{NewSource, SourceType};
use colmena_core::canvas::variants::{NewVariant, VariantUpdate};
use colmena_core::canvas::{self, Caller, activity, exports, items, presets, sources, variants};
use colmena_core::{AppError, Ctx, Result};

use super::output::{Output, table};

#[derive(Debug, Args)]
pub struct CanvasArgs {
    /// Act as this user (default: the workspace owner).
    #[arg(long, global = true)]
    user: Option<String>,
    #[command(subcommand)]
    command: CanvasCommand,
}

#[derive(Debug, Subcommand)]
enum CanvasCommand {
    /// A new, empty canvas.
    Create { name: Option<String> },
    /// Your canvases, most recently active first.
    List,
    /// A canvas with its items and variants.
    Show { id: String },
    /// Rename a canvas ("" clears the name).
    Rename { id: String, name: String },
    /// Delete a canvas with its items, variants, rounds and exports.
    Remove { id: String },
    /// Add an item: a snapshot from its fields, or of a source's item.
    AddItem {
        canvas: String,
        #[arg(long, conflicts_with = "title")]
        from_source_item: Option<String>,
        #[arg(long)]
        title: Option<String>,
        #[arg(long)]
        snippet: Option<String>,
        #[arg(long, value_parser = ["x", "webpage", "rss", "custom"])]
        kind: Option<String>,
        #[arg(long)]
        external_id: Option<String>,
        /// A JSON object.
        #[arg(long)]
        metrics: Option<String>,
    },
    /// Remove one item.
    RemoveItem { canvas: String, item: String },
    /// Remove every item.
    Clear { canvas: String },
    /// Attach a generation variant.
    AddVariant {
        canvas: String,
        #[arg(long, default_value = "custom")]
        preset: String,
        #[arg(long)]
        user_preset: Option<String>,
        #[command(flatten)]
        fields: VariantFields,
    },
    /// Change a variant (later rounds use it).
    UpdateVariant {
        variant: String,
        #[arg(long)]
        preset: Option<String>,
        #[command(flatten)]
        fields: VariantFields,
    },
    /// Remove a variant and its rounds.
    RemoveVariant { variant: String },
    /// Show an older (or newer) round; nothing is removed.
    SelectRound { variant: String, index: i32 },
    /// Write a variant's text yourself: a new round, marked as by hand.
    WriteRound {
        variant: String,
        /// The text (markdown).
        #[arg(long, conflicts_with = "file", required_unless_present = "file")]
        text: Option<String>,
        /// Read the text from this file (`-` for stdin).
        #[arg(long)]
        file: Option<PathBuf>,
    },
    /// Generate one variant; its text streams to stdout.
    Generate { variant: String },
    /// Generate every variant of a canvas at once.
    GenerateAll { canvas: String },
    /// A variant's rounds, oldest first.
    Rounds { variant: String },
    /// Export a variant's round as markdown (stdout, or --out FILE).
    Export {
        canvas: String,
        variant: String,
        #[arg(long)]
        round: Option<String>,
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Save a preset (the same name replaces it).
    SavePreset {
        name: String,
        #[arg(long)]
        prompt: String,
        #[arg(long, default_value = "")]
        description: String,
        #[arg(long, default_value = "")]
        style: String,
        #[arg(long, default_value = "")]
        type_tag: String,
    },
    /// Built-in and saved presets.
    Presets,
    /// Registered sources.
    Sources,
    /// Register a source (an RSS/Atom feed or a web page).
    AddSource {
        name: String,
        #[arg(long, value_parser = ["rss", "webpage", "custom"], default_value = "rss")]
        kind: String,
        #[arg(long)]
        url: Option<String>,
    },
    /// Fetch a source's items now.
    RefreshSource { id: String },
    /// The items a source's last refresh fetched.
    SourceItems { id: String },
    /// What your canvases have been doing, newest first.
    Activity {
        #[arg(long)]
        canvas: Option<String>,
        #[arg(long)]
        limit: Option<u32>,
    },
}

#[derive(Debug, Args)]
struct VariantFields {
    #[arg(long)]
    prompt: Option<String>,
    #[arg(long)]
    style: Option<String>,
    #[arg(long)]
    type_tag: Option<String>,
    #[arg(long)]
    model: Option<String>,
    /// The variant's own API key, read from this environment variable.
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
}

impl VariantFields {
    fn api_key(&self) -> Result<Option<String>> {
        self.api_key_env
            .as_deref()
            .map(|var| {
                std::env::var(var).map_err(|_| {
                    AppError::invalid_field(
                        "apiKey",
                        "required",
                        format!("the environment variable {var} is not set"),
                    )
                })
            })
            .transpose()
    }
}

/// A round's text from a file, or from stdin for `-`. At most one byte
/// more than [`variants::MAX_ROUND_TEXT`] characters can take is read
/// (4 bytes each), so a huge file or an endless pipe is never held whole:
/// what is over the limit is refused by `write_round` with its own error.
fn read_text(path: &std::path::Path) -> Result<String> {
    use std::io::Read;
    let limit = u64::try_from(variants::MAX_ROUND_TEXT * 4 + 1).unwrap_or(u64::MAX);
    let unreadable = |e: std::io::Error| {
        AppError::invalid_field(
            "file",
            "unreadable",
            format!("{} could not be read: {e}", path.display()),
        )
    };
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin().lock().take(limit).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|file| file.take(limit).read_to_end(&mut bytes))
    }
    .map_err(unreadable)?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) >= limit {
        return Err(AppError::invalid_field(
            "text",
            "too_long",
            format!(
                "a round must be at most {} characters",
                variants::MAX_ROUND_TEXT
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|_| {
        AppError::invalid_field(
            "file",
            "not_text",
            format!("{} is not UTF-8 text", path.display()),
        )
    })
}

/// Streams text deltas to stdout (human mode) or one event per line (--json).
fn printer(json: bool) -> CanvasSink {
    Arc::new(move |event| {
        if json {
            if let Ok(line) = serde_json::to_string(&event) {
                println!("{line}");
            }
        } else if let CanvasEvent::Delta { text, .. } = &event {
            print!("{text}");
            let _ = std::io::stdout().flush();
        } else if let CanvasEvent::Failed { variant_id, error } = &event {
            eprintln!("\nvariant {variant_id} failed: {}", error.message);
        }
    })
}

pub async fn run(ctx: &Ctx, out: &Output, args: CanvasArgs) -> Result<()> {
    let me = Caller::cli(ctx, args.user.as_deref());
    match args.command {
        CanvasCommand::Create { name } => {
            let c = canvas::create(ctx, &me, name).await?;
            out.emit(&c, |c| println!("created canvas {}", c.id));
        }
        CanvasCommand::List => {
            let list = canvas::list(ctx, &me).await?;
            out.emit(&list, |list| {
                table(
                    &["id", "name", "items", "variants", "last active"],
                    list.iter()
                        .map(|c| {
                            vec![
                                c.id.clone(),
                                c.name.clone().unwrap_or_default(),
                                c.item_count.to_string(),
                                c.variant_count.to_string(),
                                c.last_active_at.format("%Y-%m-%d %H:%M").to_string(),
                            ]
                        })
                        .collect(),
                )
            });
        }
        CanvasCommand::Show { id } => {
            let detail = canvas::get(ctx, &me, &id).await?;
            out.emit(&detail, |d| {
                println!(
                    "{} ({})",
                    d.canvas.name.as_deref().unwrap_or("untitled"),
                    d.canvas.id
                );
                for i in &d.items {
                    println!("  item {} [{}] {}", i.id, i.source_kind.as_str(), i.title);
                }
                for v in &d.variants {
                    println!(
                        "  variant {} {} {} round {}/{}",
                        v.id,
                        v.preset_id,
                        v.status.as_str(),
                        v.active_round + 1,
                        v.round_count
                    );
                }
            });
        }
        CanvasCommand::Rename { id, name } => {
            let c = canvas::update(ctx, &me, &id, Some(name)).await?;
            out.emit(&c, |c| {
                println!(
                    "canvas {} is now {}",
                    c.id,
                    c.name.as_deref().unwrap_or("untitled")
                )
            });
        }
        CanvasCommand::Remove { id } => {
            canvas::delete(ctx, &me, &id).await?;
            out.done(&format!("deleted canvas {id}"));
        }
        CanvasCommand::AddItem {
            canvas,
            from_source_item,
            title,
            snippet,
            kind: k,
            external_id,
            metrics,
        } => {
            let metrics = metrics
                .map(|m| {
                    serde_json::from_str(&m).map_err(|e| {
                        AppError::invalid_field(
                            "metrics",
                            "invalid_json",
                            format!("--metrics is not JSON: {e}"),
                        )
                    })
                })
                .transpose()?;
            let input = NewItem {
                upstream_item_id: from_source_item,
                source_kind: k.as_deref().map(SourceKind::parse),
                external_id,
                title,
                snippet,
                metrics,
                ..Default::default()
            };
            let item = items::add_item(ctx, &me, &canvas, input).await?;
            out.emit(&item, |i| println!("added item {} ({})", i.id, i.title));
        }
        CanvasCommand::RemoveItem { canvas, item } => {
            items::remove_item(ctx, &me, &canvas, &item).await?;
            out.done(&format!("removed item {item}"));
        }
        CanvasCommand::Clear { canvas } => {
            let n = items::clear_selection(ctx, &me, &canvas).await?;
            out.done(&format!("removed {n} items"));
        }
        CanvasCommand::AddVariant {
            canvas,
            preset,
            user_preset,
            fields,
        } => {
            let input = NewVariant {
                preset_id: preset,
                user_preset_id: user_preset,
                api_key: fields.api_key()?,
                prompt: fields.prompt,
                style: fields.style,
                type_tag: fields.type_tag,
                model_id: fields.model,
            };
            let v = variants::add_variant(ctx, &me, &canvas, input).await?;
            out.emit(&v, |v| println!("added variant {} ({})", v.id, v.preset_id));
        }
        CanvasCommand::UpdateVariant {
            variant,
            preset,
            fields,
        } => {
            let input = VariantUpdate {
                preset_id: preset,
                api_key: fields.api_key()?,
                prompt: fields.prompt,
                style: fields.style,
                type_tag: fields.type_tag,
                model_id: fields.model,
            };
            let v = variants::update_variant(ctx, &me, &variant, input).await?;
            out.emit(&v, |v| println!("updated variant {}", v.id));
        }
        CanvasCommand::RemoveVariant { variant } => {
            variants::remove_variant(ctx, &me, &variant).await?;
            out.done(&format!("removed variant {variant}"));
        }
        CanvasCommand::SelectRound { variant, index } => {
            let v = variants::select_round(ctx, &me, &variant, index).await?;
            out.emit(&v, |v| {
                println!("variant {} shows round {}", v.id, v.active_round + 1)
            });
        }
        CanvasCommand::WriteRound {
            variant,
            text,
            file,
        } => {
            let text = match (text, file) {
                (Some(text), _) => text,
                (None, Some(path)) => read_text(&path)?,
                (None, None) => String::new(),
            };
            let round = variants::write_round(ctx, &me, &variant, &text).await?;
            out.emit(&round, |r| {
                println!(
                    "variant {} shows round {}{}",
                    r.variant_id,
                    r.index + 1,
                    if r.by_hand { " (by hand)" } else { "" }
                )
            });
        }
        CanvasCommand::Generate { variant } => {
            let round = generate::generate_variant(ctx, &me, &variant, printer(out.json)).await?;
            if !out.json {
                println!(
                    "\n\nround {} · {} · {} ms",
                    round.index + 1,
                    round.model,
                    round.latency_ms
                );
            }
        }
        CanvasCommand::GenerateAll { canvas } => {
            let outcome = generate::generate_all(ctx, &me, &canvas, printer(out.json)).await?;
            if out.json {
                std::println!("{}", serde_json::to_string(&outcome)?);
            } else {
                println!(
                    "\n{} done, {} failed",
                    outcome.done.len(),
                    outcome.failed.len()
                );
                for f in &outcome.failed {
                    println!("  {}: {}", f.variant_id, f.error.message);
                }
            }
        }
        CanvasCommand::Rounds { variant } => {
            let rounds = variants::variant_rounds(ctx, &me, &variant).await?;
            out.emit(&rounds, |rounds| {
                table(
                    &["#", "model", "tokens", "ms", "client", "output"],
                    rounds
                        .iter()
                        .map(|r| {
                            vec![
                                (r.index + 1).to_string(),
                                if r.by_hand {
                                    "by hand".to_owned()
                                } else if r.provider.is_empty() {
                                    "written".to_owned()
                                } else {
                                    format!("{}/{}", r.provider, r.model)
                                },
                                super::stream::token_count(
                                    colmena_core::llm::Usage {
                                        prompt_tokens: r.prompt_tokens,
                                        completion_tokens: r.completion_tokens,
                                    }
                                    .total(),
                                ),
                                r.latency_ms.to_string(),
                                r.client.clone(),
                                r.output.replace('\n', " ").chars().take(50).collect(),
                            ]
                        })
                        .collect(),
                )
            });
        }
        CanvasCommand::Export {
            canvas,
            variant,
            round,
            out: path,
        } => {
            let request = ExportRequest {
                canvas_id: canvas,
                variant_id: variant,
                round_id: round,
                format: None,
                target: if path.is_some() {
                    ExportTarget::File
                } else {
                    ExportTarget::Caller
                },
                path,
            };
            let done = exports::export_variant(ctx, &me, request).await?;
            out.emit(&done, |d| match &d.path {
                Some(p) => println!("exported to {}", p.display()),
                None => print!("{}", d.markdown),
            });
        }
        CanvasCommand::SavePreset {
            name,
            prompt,
            description,
            style,
            type_tag,
        } => {
            let draft = PresetDraft {
                name,
                description,
                prompt,
                style,
                type_tag,
            };
            let p = presets::save_preset(ctx, &me, draft).await?;
            out.emit(&p, |p| println!("saved preset {} ({})", p.name, p.id));
        }
        CanvasCommand::Presets => {
            let saved = presets::list(ctx, &me).await?;
            let all = serde_json::json!({ "builtin": presets::BUILTIN, "saved": saved });
            out.emit(&all, |_| {
                for p in presets::BUILTIN {
                    println!("{:<20} built-in  {}", p.id, p.name);
                }
                for p in &saved {
                    println!("{:<20} saved     {} ({})", "user-saved", p.name, p.id);
                }
            });
        }
        CanvasCommand::Sources => {
            let list = sources::list_sources(ctx, &me).await?;
            out.emit(&list, |list| {
                table(
                    &["id", "name", "kind", "status", "items", "error"],
                    list.iter()
                        .map(|s| {
                            vec![
                                s.id.clone(),
                                s.name.clone(),
                                format!("{:?}", s.kind).to_lowercase(),
                                s.status.clone(),
                                s.item_count.to_string(),
                                s.error.clone().unwrap_or_default(),
                            ]
                        })
                        .collect(),
                )
            });
        }
        CanvasCommand::AddSource { name, kind: k, url } => {
            let s = sources::register_source(
                ctx,
                &me,
                NewSource {
                    kind: Some(SourceType::parse(&k)),
                    name,
                    url,
                },
            )
            .await?;
            out.emit(&s, |s| println!("registered source {} ({})", s.id, s.name));
        }
        CanvasCommand::RefreshSource { id } => {
            let s = sources::refresh_now(ctx, &me, &id).await?;
            out.emit(&s, |s| println!("{}: {} items", s.name, s.item_count));
        }
        CanvasCommand::SourceItems { id } => {
            let list = sources::source_items(ctx, &me, &id).await?;
            out.emit(&list, |list| {
                table(
                    &["id", "title", "url"],
                    list.iter()
                        .map(|i| {
                            vec![
                                i.id.clone(),
                                i.title.clone(),
                                i.url.clone().unwrap_or_default(),
                            ]
                        })
                        .collect(),
                )
            });
        }
        CanvasCommand::Activity { canvas, limit } => {
            let log = activity::recent(ctx, &me, canvas, limit).await?;
            out.emit(&log, |log| {
                table(
                    &["when", "client", "tool", "detail"],
                    log.iter()
                        .map(|a| {
                            vec![
                                a.created_at.format("%Y-%m-%d %H:%M:%S").to_string(),
                                a.client.as_str().to_owned(),
                                a.tool.clone(),
                                a.detail.clone(),
                            ]
                        })
                        .collect(),
                )
            });
        }
    }
    Ok(())
}
