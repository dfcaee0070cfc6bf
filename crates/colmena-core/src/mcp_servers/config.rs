//! What a person configures for an MCP server, as adapters see it, and the
//! checks every door shares. Two transports, as the MCP specification has
//! them: a program Colmena starts and speaks to over stdin/stdout, or a
//! streamable HTTP endpoint. Environment values and headers may be secret:
//! those are sealed by the vault and come back masked on every read.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{AppError, Result};
use crate::validate::{self, FieldErrors as Problems};

pub(crate) const MAX_NAME: usize = 64;
const MAX_ARGS: usize = 100;
const MAX_ARG: usize = 4096;
const MAX_VARS: usize = 100;
const MAX_VALUE: usize = 16 * 1024;
/// How long one tool call may take unless the server says otherwise.
pub const DEFAULT_CALL_TIMEOUT_SECS: u32 = 120;
const MAX_CALL_TIMEOUT_SECS: u32 = 3600;

/// An environment variable (stdio) or a header (HTTP).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct McpVar {
    pub name: String,
    /// The value; a secret one is masked (`sk-…1234`).
    pub value: String,
    pub secret: bool,
}

/// A variable as written by a person. A secret with no value keeps the one
/// already sealed (an edit that does not retype the key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct McpVarInput {
    pub name: String,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub secret: bool,
}

/// How Colmena reaches a server. Named `McpServerTransport` in the
/// generated bindings: `connect::McpTransport` (how a client reaches
/// Colmena) has the plain name there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename = "McpServerTransport", rename_all = "snake_case")]
pub enum McpTransport {
    /// A program started by Colmena; MCP over its stdin and stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<McpVar>,
        /// The working folder; the data dir's `mcp/<id>` when absent.
        cwd: Option<String>,
    },
    /// Streamable HTTP.
    Http { url: String, headers: Vec<McpVar> },
}

/// The transport as written by a person (`McpServerTransportInput` in the
/// generated bindings, like [`McpTransport`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(
    tag = "kind",
    rename = "McpServerTransportInput",
    rename_all = "snake_case"
)]
pub enum McpTransportInput {
    Stdio {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        #[serde(default)]
        env: Vec<McpVarInput>,
        #[serde(default)]
        cwd: Option<String>,
    },
    Http {
        url: String,
        #[serde(default)]
        headers: Vec<McpVarInput>,
    },
}

/// Create or replace a server's configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct McpServerInput {
    pub name: String,
    pub transport: McpTransportInput,
    #[serde(default)]
    pub enabled: Option<bool>,
    /// Longest a tool call may take, in seconds (default 120).
    #[serde(default)]
    pub timeout_seconds: Option<u32>,
    /// The preset it came from (`playwright`), if any.
    #[serde(default)]
    pub preset: Option<String>,
}

/// Where a server is, in this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum McpState {
    /// Switched off by a person: its tools are nowhere.
    Disabled,
    /// Not running now; it starts when a run first needs it.
    Stopped,
    Starting,
    Running,
    /// The last start or the running server failed; `error` says why.
    Failed,
}

/// A server's state with what explains it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct McpStatus {
    pub state: McpState,
    pub error: Option<String>,
    /// The end of what the program wrote on standard error.
    pub stderr_tail: Option<String>,
    pub exit_code: Option<i32>,
    /// When the state was reached (a failure read from the store: when it failed).
    pub since: Option<DateTime<Utc>>,
}

/// One tool a server offers, as the catalog names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct McpToolInfo {
    /// The catalog name (`mcp__github__create_issue`).
    pub id: String,
    /// The name the server uses.
    pub name: String,
    pub description: String,
    pub active: bool,
}

/// A configured server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct McpServer {
    /// The slug its tools are named by (`mcp__<id>__<tool>`); never changes.
    pub id: String,
    pub name: String,
    pub transport: McpTransport,
    pub enabled: bool,
    pub timeout_seconds: u32,
    pub preset: Option<String>,
    pub status: McpStatus,
    /// The tools it listed last, as the catalog holds them.
    pub tools: Vec<McpToolInfo>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// What `test` found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct McpTestResult {
    pub ok: bool,
    pub error: Option<String>,
    pub stderr_tail: Option<String>,
    pub exit_code: Option<i32>,
    pub tools: Vec<McpToolInfo>,
}

/// The plain (non-secret) part of a configuration, as stored in
/// `mcp_servers.config`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StoredConfig {
    #[serde(default)]
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub url: String,
    /// Plain variables or headers, in the order written; secrets are
    /// listed by name only (their values live in `mcp_server_secrets`).
    #[serde(default)]
    pub vars: Vec<StoredVar>,
    #[serde(default)]
    pub timeout_seconds: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoredVar {
    pub name: String,
    /// `None` for a secret.
    pub value: Option<String>,
}

/// A checked input, ready to store.
#[derive(Debug, Clone)]
pub(crate) struct Checked {
    pub name: String,
    pub transport: &'static str,
    pub config: StoredConfig,
    /// Secret values to seal (`None`: keep the sealed one).
    pub secrets: Vec<(String, Option<String>)>,
    pub enabled: bool,
    pub preset: Option<String>,
}

impl Checked {
    pub fn secret_kind(&self) -> &'static str {
        if self.transport == "http" {
            "header"
        } else {
            "env"
        }
    }
}

fn env_name_ok(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn header_name_ok(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

fn no_controls(value: &str) -> bool {
    !value.chars().any(|c| c.is_control() && c != '\t')
}

/// What to check of a value that may hold `${VAR}` references (kept as
/// written, resolved at each start): the value with each reference's
/// default in its place, or `None` when a reference has no default — such
/// a value can only be checked once resolved, at the start.
fn checkable(value: &str) -> Option<String> {
    if super::refs::names(value).is_empty() {
        return Some(value.to_owned());
    }
    super::refs::resolve(value, &|_| None).ok()
}

/// Records a problem on `field` when `value` refers to one of Colmena's own
/// variables (`${COLMENA_…}`): those never reach a server (see `refs`).
fn refuse_colmena_reference(problems: &mut Problems, field: &str, value: &str) {
    if let Some(name) = super::refs::first_reserved(value) {
        problems.add(
            field,
            super::refs::RESERVED_REASON,
            format!(
                "{field} refers to ${{{name}}}: Colmena's own variables ({}*) are never given to an MCP server",
                super::refs::RESERVED_PREFIX
            ),
        );
    }
}

/// Checks `input` and splits it into what is stored plain and what is sealed.
pub(crate) fn check(input: McpServerInput) -> Result<Checked> {
    let mut problems = Problems::new();
    let name = problems.check(validate::name("name", &input.name, MAX_NAME));
    if let Some(seconds) = input.timeout_seconds
        && !(1..=MAX_CALL_TIMEOUT_SECS).contains(&seconds)
    {
        problems.add(
            "timeoutSeconds",
            "out_of_range",
            format!("timeoutSeconds must be between 1 and {MAX_CALL_TIMEOUT_SECS}"),
        );
    }
    let (transport, mut config, vars, field, name_ok): (_, StoredConfig, _, _, fn(&str) -> bool) =
        match input.transport {
            McpTransportInput::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let command = command.trim().to_owned();
                if command.is_empty() {
                    problems.add("command", "required", "the command must not be empty");
                } else if !no_controls(&command) || command.len() > MAX_ARG {
                    problems.add(
                        "command",
                        "invalid",
                        "the command holds control characters or is too long",
                    );
                }
                refuse_colmena_reference(&mut problems, "command", &command);
                if let Some(arg) = args
                    .iter()
                    .find(|a| super::refs::first_reserved(a).is_some())
                {
                    refuse_colmena_reference(&mut problems, "args", arg);
                }
                if args.len() > MAX_ARGS {
                    problems.add("args", "too_many", format!("at most {MAX_ARGS} arguments"));
                }
                if args.iter().any(|a| a.len() > MAX_ARG || a.contains('\0')) {
                    problems.add(
                        "args",
                        "invalid",
                        format!("an argument is longer than {MAX_ARG} bytes or holds a NUL"),
                    );
                }
                let cwd = cwd.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty());
                if let Some(dir) = &cwd {
                    refuse_colmena_reference(&mut problems, "cwd", dir);
                }
                if let Some(dir) = cwd.as_deref().and_then(checkable)
                    && !std::path::Path::new(&dir).is_absolute()
                {
                    problems.add(
                        "cwd",
                        "not_absolute",
                        "the working folder must be an absolute path",
                    );
                }
                let config = StoredConfig {
                    command,
                    args,
                    cwd,
                    ..StoredConfig::default()
                };
                ("stdio", config, env, "env", env_name_ok as fn(&str) -> bool)
            }
            McpTransportInput::Http { url, headers } => {
                let url = url.trim().to_owned();
                refuse_colmena_reference(&mut problems, "url", &url);
                match checkable(&url).map(|u| url::Url::parse(&u)) {
                    // References with no default: checked once resolved, at the start.
                    None => {}
                    Some(Ok(parsed))
                        if matches!(parsed.scheme(), "http" | "https")
                            && parsed.host().is_some() => {}
                    Some(Ok(_)) => problems.add(
                        "url",
                        "scheme",
                        "the URL must start with http:// or https://",
                    ),
                    Some(Err(e)) => {
                        problems.add("url", "invalid", format!("'{url}' is not a URL: {e}"))
                    }
                }
                let config = StoredConfig {
                    url,
                    ..StoredConfig::default()
                };
                (
                    "http",
                    config,
                    headers,
                    "headers",
                    header_name_ok as fn(&str) -> bool,
                )
            }
        };
    config.timeout_seconds = input.timeout_seconds;
    if vars.len() > MAX_VARS {
        problems.add(field, "too_many", format!("at most {MAX_VARS} entries"));
    }
    let mut secrets = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for var in vars {
        let var_name = var.name.trim().to_owned();
        if !name_ok(&var_name) {
            problems.add(
                field,
                "invalid_name",
                format!("'{var_name}' is not a valid name here"),
            );
            continue;
        }
        if !seen.insert(var_name.to_ascii_lowercase()) {
            problems.add(field, "duplicate", format!("'{var_name}' is given twice"));
            continue;
        }
        let value = var.value.filter(|v| !(var.secret && v.is_empty()));
        if let Some(v) = &value
            && (v.len() > MAX_VALUE || !no_controls(v))
        {
            problems.add(
                field,
                "invalid_value",
                format!("the value of '{var_name}' is too long or holds control characters"),
            );
            continue;
        }
        // A secret is used as written (`${…}` in a password is part of
        // it); a plain value is resolved at each start.
        if !var.secret
            && let Some(v) = &value
        {
            refuse_colmena_reference(&mut problems, field, v);
        }
        if var.secret {
            secrets.push((var_name.clone(), value));
            config.vars.push(StoredVar {
                name: var_name,
                value: None,
            });
        } else {
            config.vars.push(StoredVar {
                name: var_name,
                value: Some(value.unwrap_or_default()),
            });
        }
    }
    problems.finish()?;
    let name = name.ok_or_else(|| AppError::internal("a checked name is missing"))?;
    Ok(Checked {
        name,
        transport,
        config,
        secrets,
        enabled: input.enabled.unwrap_or(true),
        preset: input.preset.filter(|p| !p.is_empty()),
    })
}
