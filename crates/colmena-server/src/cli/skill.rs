use std::path::PathBuf;

use clap::Subcommand;
use colmena_core::skills::{self, Skill, SkillDraft, SkillFilter, folders};
use colmena_core::{AppError, Ctx, Result};

use super::output::{Output, SwitchArgs, table, yes_no};

#[derive(Debug, Subcommand)]
pub enum SkillCommand {
    /// List skills.
    List {
        #[arg(long)]
        active: bool,
    },
    /// Show one skill with its body.
    Show { name: String },
    /// Create a skill; the body comes from --body or --body-file.
    Create {
        name: String,
        #[arg(long)]
        description: String,
        #[arg(long, conflicts_with = "body_file")]
        body: Option<String>,
        #[arg(long)]
        body_file: Option<PathBuf>,
    },
    /// Replace a skill's description and body.
    Update {
        name: String,
        #[arg(long)]
        description: Option<String>,
        #[arg(long, conflicts_with = "body_file")]
        body: Option<String>,
        #[arg(long)]
        body_file: Option<PathBuf>,
    },
    /// Switch a skill on or off (flips it without --on/--off).
    Toggle {
        name: String,
        #[command(flatten)]
        switch: SwitchArgs,
    },
    /// Delete a skill (refused while agents use it).
    Remove { name: String },
    /// Import a SKILL.md folder as an editable skill (re-importing updates it).
    Import { path: PathBuf },
    /// Skill folders on disk, with what is wrong with each.
    Disk,
    /// The folders skills are looked for in.
    Folders,
    /// Look for skills in another folder too.
    AddFolder { path: PathBuf },
    /// Stop looking in a folder added with add-folder.
    RemoveFolder { path: String },
}

fn read_body(body: Option<String>, file: Option<PathBuf>) -> Result<Option<String>> {
    match (body, file) {
        (Some(body), _) => Ok(Some(body)),
        (None, Some(path)) => std::fs::read_to_string(&path).map(Some).map_err(|e| {
            AppError::invalid_field(
                "bodyFile",
                "unreadable",
                format!("cannot read {}: {e}", path.display()),
            )
        }),
        (None, None) => Ok(None),
    }
}

pub async fn run(ctx: &Ctx, out: &Output, command: SkillCommand) -> Result<()> {
    match command {
        SkillCommand::List { active } => {
            let list = skills::list(
                ctx,
                SkillFilter {
                    active_only: active,
                },
            )
            .await?;
            out.emit(&list, |list| print_table(list));
        }
        SkillCommand::Show { name } => {
            let skill = skills::get(ctx, &name).await?;
            out.emit(&skill, |s| {
                println!("{} — {}\n", s.id, s.description);
                println!("{}", s.body);
            });
        }
        SkillCommand::Create {
            name,
            description,
            body,
            body_file,
        } => {
            let draft = SkillDraft {
                name,
                description,
                body: read_body(body, body_file)?.unwrap_or_default(),
                ..Default::default()
            };
            let skill = skills::create(ctx, draft).await?;
            out.emit(&skill, |s| println!("created skill {}", s.id));
        }
        SkillCommand::Update {
            name,
            description,
            body,
            body_file,
        } => {
            let current = skills::get(ctx, &name).await?;
            let draft = SkillDraft {
                name: current.id.clone(),
                description: description.unwrap_or(current.description),
                body: read_body(body, body_file)?.unwrap_or(current.body),
                license: current.license,
                compatibility: current.compatibility,
                metadata: current.metadata,
                allowed_tools: current.allowed_tools,
            };
            let skill = skills::update(ctx, &name, draft).await?;
            out.emit(&skill, |s| println!("updated skill {}", s.id));
        }
        SkillCommand::Toggle { name, switch } => {
            let skill = skills::switch(ctx, &name, switch.target()).await?;
            out.emit(&skill, |s| {
                println!(
                    "skill {} is {}",
                    s.id,
                    if s.active { "active" } else { "inactive" }
                )
            });
        }
        SkillCommand::Remove { name } => {
            skills::delete(ctx, &name).await?;
            out.done(&format!("removed skill {name}"));
        }
        SkillCommand::Import { path } => {
            let skill = skills::import_from_disk(ctx, &path).await?;
            out.emit(&skill, |s| {
                println!("imported skill {} from {}", s.id, path.display())
            });
        }
        SkillCommand::Disk => {
            let found = folders::list_disk_skills(ctx).await?;
            out.emit(&found, |found| {
                table(
                    &["skill", "folder", "imported", "problem"],
                    found
                        .iter()
                        .map(|d| {
                            vec![
                                d.folder_name.clone(),
                                d.path.clone(),
                                yes_no(d.imported),
                                d.error.clone().unwrap_or_default(),
                            ]
                        })
                        .collect(),
                )
            });
        }
        SkillCommand::Folders => {
            let list = folders::list_folders(ctx).await?;
            out.emit(&list, |l| print_folders(l));
        }
        SkillCommand::AddFolder { path } => {
            let list = folders::add_folder(ctx, &path).await?;
            out.emit(&list, |l| print_folders(l));
        }
        SkillCommand::RemoveFolder { path } => {
            let list = folders::remove_folder(ctx, &path).await?;
            out.emit(&list, |l| print_folders(l));
        }
    }
    Ok(())
}

fn print_folders(list: &[folders::SkillFolder]) {
    table(
        &["kind", "path", "exists"],
        list.iter()
            .map(|f| {
                vec![
                    format!("{:?}", f.kind).to_lowercase(),
                    f.path.clone(),
                    yes_no(f.exists),
                ]
            })
            .collect(),
    );
}

fn print_table(list: &[Skill]) {
    table(
        &["name", "origin", "active", "used by", "description"],
        list.iter()
            .map(|s| {
                let mut description: String = s.description.chars().take(60).collect();
                if s.description.chars().count() > 60 {
                    description.push('…');
                }
                vec![
                    s.id.clone(),
                    format!("{:?}", s.origin).to_lowercase(),
                    yes_no(s.active),
                    s.used_by.join(","),
                    description,
                ]
            })
            .collect(),
    );
}
