//! Importing servers from the `mcpServers` JSON of other clients (SPEC H24):
//! Claude Desktop's `claude_desktop_config.json`, Cursor's `mcp.json`,
//! Claude Code's `.mcp.json` — and VS Code's `servers` — pasted or picked.
//!
//! A person has usually configured their servers once, in another client;
//! retyping each command, argument and key invites mistakes. The import is a
//! preview first — what will be added, what already exists, what cannot be
//! imported and why, which values will be sealed and which `${VAR}`
//! references are set in Colmena's environment now — and then the same
//! `create` every door uses, so the checks and the local-only rule are the
//! ones a hand-made server meets. Nothing is written by a preview.
//!
//! References stay as written by default: they are resolved at each start,
//! so a rotated key needs no re-import and its value never lands in the
//! store. Resolving now is a choice (`resolveReferences`): the values are
//! then copied in, and the secret ones sealed.
//!
//! A configuration is usually someone else's text (a cloned project's
//! `.mcp.json`), so the preview shows what it would do with this computer's
//! environment: a reference to Colmena's own `COLMENA_*` variables makes the
//! entry invalid, every other reference of a URL server says the origin its
//! value would be sent to, and a program's plain variables and working
//! folder are shown as they would be stored.

mod entry;
mod parse;
mod secrets;

use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use secrets::looks_secret;

use super::config::{self, McpServer};
use super::{local_only, refs, store};
use crate::caller::Caller;
use crate::ctx::Ctx;
use crate::error::{AppError, ErrorCode, Result};

/// What to import, and how.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportOptions {
    /// Resolve `${VAR}` references now, from Colmena's environment (an unset
    /// one makes its server invalid). Default: keep them, resolved at each start.
    #[serde(default)]
    pub resolve_references: bool,
    /// Import only the servers of these names (as written in the file).
    #[serde(default)]
    pub only: Option<Vec<String>>,
}

/// Which object of the text held the servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ImportSource {
    /// `mcpServers`: Claude Desktop, Cursor, Claude Code, Cline, Windsurf.
    McpServers,
    /// `servers`: VS Code's `.vscode/mcp.json`.
    Servers,
    /// `mcp.servers`: VS Code's settings.json.
    VsCodeSettings,
    /// The servers object alone, without its key.
    Bare,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ImportStatus {
    /// Will be added.
    New,
    /// A server with this id or name exists: skipped.
    Exists,
    /// Cannot be imported; `problem` says why.
    Invalid,
    /// Left out by `only`.
    NotSelected,
}

/// How an entry matched an existing server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ImportMatch {
    /// The id the entry's name makes is taken.
    Id,
    /// The name is taken (ignoring case).
    Name,
}

/// The existing server an entry collides with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportExisting {
    pub id: String,
    pub name: String,
    pub matched_by: ImportMatch,
}

/// Why an entry cannot be imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportProblem {
    /// A stable word: `no_transport`, `sse_unsupported`, `unknown_transport`,
    /// `ambiguous_transport`, `bad_shape`, `needs_input`, `unset_reference`,
    /// `colmena_reference` (it refers to a `COLMENA_*` variable),
    /// `duplicate_in_file`, `invalid_config` (the configuration checks).
    pub reason: String,
    pub message: String,
}

/// A `${VAR}` reference an entry holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportReference {
    pub name: String,
    /// Set in Colmena's environment now.
    pub set: bool,
    /// Every use of it has a `:-default`.
    pub has_default: bool,
    /// The origin (`https://x.example`) its value would be sent to: set for
    /// every reference of a URL server (in its URL or its headers), `None`
    /// for a program's, whose values stay on this computer. The URL as
    /// written when its own references are not set yet.
    pub sent_to: Option<String>,
}

/// A variable (a program) or a header (a URL server) stored in plain text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportVar {
    pub name: String,
    /// The value as it would be stored (references kept unless resolved).
    pub value: String,
}

/// One server of the text, as it would be imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportEntry {
    /// The name as written (the key of its object).
    pub name: String,
    /// The id it would get; `None` when the name makes none.
    pub id: Option<String>,
    pub status: ImportStatus,
    /// `stdio` or `http`, when it could be told.
    pub transport: Option<String>,
    /// The command line, or the URL.
    pub target: String,
    pub enabled: bool,
    pub timeout_seconds: Option<u32>,
    /// Environment variables or headers sealed as secrets.
    pub secrets: Vec<String>,
    /// The other variables or headers, in plain text, with their values.
    pub plain_vars: Vec<ImportVar>,
    /// A program's working folder, when the configuration sets one.
    pub cwd: Option<String>,
    pub references: Vec<ImportReference>,
    /// Fields of the other client's format that Colmena does not use.
    pub ignored: Vec<String>,
    /// What the import changed or could not carry over.
    pub notes: Vec<String>,
    pub existing: Option<ImportExisting>,
    pub problem: Option<ImportProblem>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportCounts {
    pub new: u32,
    pub exists: u32,
    pub invalid: u32,
    pub not_selected: u32,
}

/// What an import would do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportPreview {
    pub source: ImportSource,
    pub entries: Vec<ImportEntry>,
    pub counts: ImportCounts,
    /// About the text as a whole (comments that were dropped).
    pub notes: Vec<String>,
}

/// A server `create` refused although the preview found it new.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportFailure {
    pub name: String,
    pub error: AppError,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportOutcome {
    /// The servers added, as `get` shows them (secrets masked).
    pub added: Vec<McpServer>,
    /// Left alone: a server with that id or name exists.
    pub skipped: Vec<ImportEntry>,
    pub invalid: Vec<ImportEntry>,
    pub failed: Vec<ImportFailure>,
    pub not_selected: Vec<String>,
}

/// The environment references are looked up in.
pub type EnvLookup<'a> = &'a (dyn Fn(&str) -> Option<String> + Sync);

struct Planned {
    entry: ImportEntry,
    input: Option<config::McpServerInput>,
}

/// What importing `text` would do; nothing is written.
pub async fn preview(ctx: &Ctx, text: &str, options: ImportOptions) -> Result<ImportPreview> {
    preview_with(ctx, text, options, &refs::from_env).await
}

/// [`preview`] against the environment `env` stands for.
pub async fn preview_with(
    ctx: &Ctx,
    text: &str,
    options: ImportOptions,
    env: EnvLookup<'_>,
) -> Result<ImportPreview> {
    let (preview, _) = plan(ctx, text, &options, env).await?;
    Ok(preview)
}

/// Adds the new servers of `text` through [`super::create`]; the others are
/// reported. One server that cannot be added does not stop the rest.
pub async fn import(
    ctx: &Ctx,
    caller: &Caller,
    text: &str,
    options: ImportOptions,
) -> Result<ImportOutcome> {
    import_with(ctx, caller, text, options, &refs::from_env).await
}

/// [`import`] against the environment `env` stands for.
pub async fn import_with(
    ctx: &Ctx,
    caller: &Caller,
    text: &str,
    options: ImportOptions,
    env: EnvLookup<'_>,
) -> Result<ImportOutcome> {
    local_only(caller)?;
    let (_, planned) = plan(ctx, text, &options, env).await?;
    let mut outcome = ImportOutcome {
        added: Vec::new(),
        skipped: Vec::new(),
        invalid: Vec::new(),
        failed: Vec::new(),
        not_selected: Vec::new(),
    };
    for Planned { entry, input } in planned {
        match (entry.status, input) {
            (ImportStatus::New, Some(input)) => match super::create(ctx, caller, input).await {
                Ok(server) => outcome.added.push(server),
                Err(e) if e.code == ErrorCode::Forbidden => return Err(e),
                Err(error) => outcome.failed.push(ImportFailure {
                    name: entry.name,
                    error,
                }),
            },
            (ImportStatus::Exists, _) => outcome.skipped.push(entry),
            (ImportStatus::NotSelected, _) => outcome.not_selected.push(entry.name),
            _ => outcome.invalid.push(entry),
        }
    }
    Ok(outcome)
}

fn same_name(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

async fn plan(
    ctx: &Ctx,
    text: &str,
    options: &ImportOptions,
    env: EnvLookup<'_>,
) -> Result<(ImportPreview, Vec<Planned>)> {
    let doc = parse::document(text)?;
    if let Some(only) = &options.only {
        let unknown: Vec<&String> = only
            .iter()
            .filter(|want| !doc.servers.iter().any(|(name, _)| same_name(name, want)))
            .collect();
        if !unknown.is_empty() {
            let names: Vec<&str> = doc.servers.iter().map(|(n, _)| n.as_str()).collect();
            return Err(AppError::invalid_field(
                "only",
                "unknown_name",
                format!(
                    "no server named {} in this configuration (it has: {})",
                    unknown
                        .iter()
                        .map(|n| format!("'{n}'"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    names.join(", ")
                ),
            ));
        }
    }
    let existing: Vec<(String, String)> = ctx
        .store()
        .read(|conn| {
            Ok(store::all(conn)?
                .into_iter()
                .map(|r| (r.id, r.name))
                .collect())
        })
        .await?;
    let mut planned: Vec<Planned> = Vec::with_capacity(doc.servers.len());
    for (name, value) in &doc.servers {
        let converted = entry::convert(value, options.resolve_references, env);
        let id = super::server_id(name).ok();
        let mut problem = converted.problem;
        let mut input = converted.input.map(|mut input| {
            input.name = name.clone();
            input
        });
        if problem.is_none()
            && let Some(first) = planned
                .iter()
                .find(|p| p.entry.id.is_some() && p.entry.id == id)
        {
            problem = Some(ImportProblem {
                reason: "duplicate_in_file".into(),
                message: format!(
                    "'{}' earlier in this configuration gets the same id '{}'",
                    first.entry.name,
                    first.entry.id.as_deref().unwrap_or_default()
                ),
            });
        }
        if problem.is_none()
            && let Some(candidate) = &input
            && let Err(e) = config::check(candidate.clone()).and_then(|_| super::server_id(name))
        {
            problem = Some(ImportProblem {
                reason: "invalid_config".into(),
                message: e.message,
            });
        }
        if problem.is_some() {
            input = None;
        }
        let existing = existing.iter().find_map(|(eid, ename)| {
            let matched_by = if id.as_deref() == Some(eid.as_str()) {
                ImportMatch::Id
            } else if same_name(name, ename) {
                ImportMatch::Name
            } else {
                return None;
            };
            Some(ImportExisting {
                id: eid.clone(),
                name: ename.clone(),
                matched_by,
            })
        });
        let selected = options
            .only
            .as_ref()
            .is_none_or(|only| only.iter().any(|o| same_name(o, name)));
        let status = if !selected {
            ImportStatus::NotSelected
        } else if problem.is_some() {
            ImportStatus::Invalid
        } else if existing.is_some() {
            ImportStatus::Exists
        } else {
            ImportStatus::New
        };
        planned.push(Planned {
            entry: ImportEntry {
                name: name.clone(),
                id,
                status,
                transport: converted.transport.map(str::to_owned),
                target: converted.target,
                enabled: converted.enabled,
                timeout_seconds: converted.timeout_seconds,
                secrets: converted.secrets,
                plain_vars: converted.plain_vars,
                cwd: converted.cwd,
                references: converted.references,
                ignored: converted.ignored,
                notes: converted.notes,
                existing,
                problem,
            },
            input,
        });
    }
    let mut counts = ImportCounts::default();
    for p in &planned {
        match p.entry.status {
            ImportStatus::New => counts.new += 1,
            ImportStatus::Exists => counts.exists += 1,
            ImportStatus::Invalid => counts.invalid += 1,
            ImportStatus::NotSelected => counts.not_selected += 1,
        }
    }
    let notes = if doc.lenient {
        vec!["comments or trailing commas were ignored to read it".to_owned()]
    } else {
        Vec::new()
    };
    let preview = ImportPreview {
        source: doc.source,
        entries: planned.iter().map(|p| p.entry.clone()).collect(),
        counts,
        notes,
    };
    Ok((preview, planned))
}

/// The most a picked configuration file may hold. Such files are a few KiB;
/// anything larger is not one, and is not read into memory whole.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The text of the configuration file at `path` (one a person picked in a
/// file dialog), for [`preview`] and [`import`]: at most [`MAX_FILE_BYTES`],
/// UTF-8, a file rather than a folder.
pub fn read_config_file(path: &Path) -> Result<String> {
    let shown = path.display().to_string();
    let unreadable = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => AppError::not_found("file", &shown),
        _ => AppError::invalid_field("file", "unreadable", format!("cannot read {shown}: {e}")),
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    if !file.metadata().map_err(unreadable)?.is_file() {
        return Err(AppError::invalid_field(
            "file",
            "not_a_file",
            format!("{shown} is not a file"),
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(AppError::invalid_field(
            "file",
            "too_large",
            format!(
                "{shown} is larger than {} KiB: it is not an MCP configuration",
                MAX_FILE_BYTES / 1024
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|_| {
        AppError::invalid_field("file", "not_text", format!("{shown} is not UTF-8 text"))
    })
}

#[cfg(test)]
mod file_tests {
    use super::*;

    fn reason(e: &AppError) -> Option<String> {
        e.details.as_ref()?["reason"].as_str().map(str::to_owned)
    }

    #[test]
    fn a_small_text_file_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("claude_desktop_config.json");
        std::fs::write(&path, r#"{"mcpServers":{}}"#).unwrap();
        assert_eq!(read_config_file(&path).unwrap(), r#"{"mcpServers":{}}"#);
    }

    #[test]
    fn a_file_over_the_limit_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.json");
        std::fs::write(&path, vec![b' '; MAX_FILE_BYTES as usize + 1]).unwrap();
        let e = read_config_file(&path).unwrap_err();
        assert_eq!(e.field(), Some("file"));
        assert_eq!(reason(&e).as_deref(), Some("too_large"));
        // Exactly the limit is still read.
        std::fs::write(&path, vec![b' '; MAX_FILE_BYTES as usize]).unwrap();
        assert_eq!(
            read_config_file(&path).unwrap().len() as u64,
            MAX_FILE_BYTES
        );
    }

    #[test]
    fn binary_folders_and_missing_files_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let binary = dir.path().join("x.json");
        std::fs::write(&binary, [0xff, 0xfe, 0x00]).unwrap();
        assert_eq!(
            reason(&read_config_file(&binary).unwrap_err()).as_deref(),
            Some("not_text")
        );
        assert_eq!(
            reason(&read_config_file(dir.path()).unwrap_err()).as_deref(),
            Some("not_a_file")
        );
        let missing = read_config_file(&dir.path().join("none.json")).unwrap_err();
        assert_eq!(missing.code, ErrorCode::NotFound);
    }
}
