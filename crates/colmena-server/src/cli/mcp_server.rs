//! `colmena mcp-server`: the MCP servers Colmena uses as a client (SPEC
//! H23, H24) — programs it starts and streamable HTTP endpoints whose tools
//! agents call. Each verb is one call of `colmena_core::mcp_servers`; the
//! CLI is a local door, so it may configure them (a remote caller may not).

use std::io::{BufRead, IsTerminal, Read};
use std::path::Path;

use clap::{ArgGroup, Args, Subcommand};
use colmena_core::mcp_servers::import::{
    self, ImportEntry, ImportMatch, ImportOptions, ImportStatus,
};
use colmena_core::mcp_servers::presets;
use colmena_core::mcp_servers::{
    self, McpServer, McpServerInput, McpState, McpToolInfo, McpTransport, McpTransportInput,
    McpVar, McpVarInput,
};
use colmena_core::{AppError, Caller, Ctx, ErrorCode, Result};

use super::output::{Output, table, yes_no};

#[derive(Debug, Subcommand)]
pub enum McpServerCommand {
    /// List the servers and their state.
    List,
    /// Show one server: its configuration (secrets masked), tools, last error.
    Show { id: String },
    /// Add a server: a program (--command) or a streamable HTTP endpoint (--url).
    Add {
        /// Display name; the id its tools are named by comes from it (mcp__<id>__<tool>).
        name: String,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Replace a server's configuration with the one given (its id stays).
    Edit {
        id: String,
        /// A new name (default: keep it).
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Switch a server on: its tools come back at its next start.
    Enable { id: String },
    /// Switch a server off: its tools leave every agent at once.
    Disable { id: String },
    /// Delete a server and its tools.
    Delete { id: String },
    /// Start a server afresh and list its tools (exit status 9 when it fails).
    Test { id: String },
    /// Import servers from a Claude Desktop, Cursor, Claude Code or VS Code
    /// configuration (the "mcpServers" JSON).
    Import {
        /// The file, or - for standard input.
        file: String,
        /// Only show what would be imported.
        #[arg(long)]
        dry_run: bool,
        /// Resolve ${VAR} references now, from this environment (default:
        /// keep them, resolved at each start).
        #[arg(long)]
        resolve_references: bool,
        /// Import only this server (repeatable).
        #[arg(long = "only", value_name = "NAME")]
        only: Vec<String>,
    },
    /// Ready-made servers, and what each needs on this computer.
    Presets,
}

/// A server's configuration on the command line.
///
/// Values given as NAME=VALUE stay in the shell's history and are visible
/// in the process list: for a secret give NAME alone, and its value is
/// read from the environment variable NAME of this command, else from one
/// line of standard input (one line per secret, in order).
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("transport").required(true).args(["command", "url"])))]
pub struct ConfigArgs {
    /// The program to start (stdio).
    #[arg(long)]
    command: Option<String>,
    /// An argument of the program (repeatable, in order).
    #[arg(
        long = "arg",
        value_name = "ARG",
        allow_hyphen_values = true,
        requires = "command"
    )]
    args: Vec<String>,
    /// An environment variable of the program, NAME=VALUE (repeatable).
    /// 'NAME=${VAR}' is resolved from Colmena's environment at each start.
    #[arg(long = "env", value_name = "NAME=VALUE", requires = "command")]
    env: Vec<String>,
    /// A secret environment variable, sealed in the vault: NAME (value from
    /// $NAME, else a line of stdin) or NAME=VALUE (stays in shell history).
    #[arg(long = "secret-env", value_name = "NAME[=VALUE]", requires = "command")]
    secret_env: Vec<String>,
    /// The program's working folder, an absolute path (default: the data dir's mcp/<id>).
    #[arg(long, requires = "command")]
    cwd: Option<String>,
    /// The server's streamable HTTP endpoint.
    #[arg(long)]
    url: Option<String>,
    /// An HTTP header, NAME=VALUE (repeatable).
    #[arg(long = "header", value_name = "NAME=VALUE", requires = "url")]
    headers: Vec<String>,
    /// A secret header, sealed in the vault: NAME (value from $NAME, else a
    /// line of stdin) or NAME=VALUE (stays in shell history).
    #[arg(long = "secret-header", value_name = "NAME[=VALUE]", requires = "url")]
    secret_headers: Vec<String>,
    /// Edit: keep the sealed value of this secret without retyping it (repeatable).
    #[arg(long = "keep-secret", value_name = "NAME")]
    keep_secrets: Vec<String>,
    /// Longest a tool call may take, in seconds (default 120).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<u32>,
    /// Add it switched off (edit: switch it off).
    #[arg(long)]
    disabled: bool,
}

fn pair(flag: &str, text: &str) -> Result<(String, String)> {
    text.split_once('=')
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .ok_or_else(|| {
            AppError::invalid_field(
                flag,
                "not_a_pair",
                format!("--{flag} takes NAME=VALUE, not '{text}'"),
            )
        })
}

/// The value of the secret `name` given without one.
fn secret_value(name: &str, stdin: &mut impl BufRead) -> Result<String> {
    if let Ok(value) = std::env::var(name) {
        return Ok(value);
    }
    if std::io::stdin().is_terminal() {
        eprint!("value of {name} (it is shown as you type; end with Enter): ");
    }
    let mut line = String::new();
    let read = stdin
        .read_line(&mut line)
        .map_err(|e| AppError::internal(format!("cannot read standard input: {e}")))?;
    if read == 0 {
        return Err(AppError::invalid_field(
            "secret",
            "secret_required",
            format!(
                "no value for {name}: give {name}=VALUE, set {name} in the environment, or pass it on standard input"
            ),
        ));
    }
    Ok(line.trim_end_matches(['\n', '\r']).to_owned())
}

impl ConfigArgs {
    fn vars(
        plain: Vec<String>,
        secret: Vec<String>,
        keep: &[String],
        flag: &str,
    ) -> Result<Vec<McpVarInput>> {
        let mut vars = Vec::new();
        for text in plain {
            let (name, value) = pair(flag, &text)?;
            vars.push(McpVarInput {
                name,
                value: Some(value),
                secret: false,
            });
        }
        let mut stdin = std::io::stdin().lock();
        for text in secret {
            let (name, value) = match text.split_once('=') {
                Some((k, v)) => (k.to_owned(), v.to_owned()),
                None => (text.clone(), secret_value(&text, &mut stdin)?),
            };
            vars.push(McpVarInput {
                name,
                value: Some(value),
                secret: true,
            });
        }
        vars.extend(keep.iter().map(|name| McpVarInput {
            name: name.clone(),
            value: None,
            secret: true,
        }));
        Ok(vars)
    }

    fn input(self, name: String, enabled: bool, preset: Option<String>) -> Result<McpServerInput> {
        let transport = match (self.command, self.url) {
            (Some(command), _) => McpTransportInput::Stdio {
                command,
                args: self.args,
                env: Self::vars(self.env, self.secret_env, &self.keep_secrets, "env")?,
                cwd: self.cwd,
            },
            (None, Some(url)) => McpTransportInput::Http {
                url,
                headers: Self::vars(
                    self.headers,
                    self.secret_headers,
                    &self.keep_secrets,
                    "header",
                )?,
            },
            (None, None) => {
                return Err(AppError::invalid_field(
                    "command",
                    "required",
                    "give --command or --url",
                ));
            }
        };
        Ok(McpServerInput {
            name,
            transport,
            enabled: Some(enabled && !self.disabled),
            timeout_seconds: self.timeout,
            preset,
        })
    }
}

pub async fn run(ctx: &Ctx, out: &Output, command: McpServerCommand) -> Result<()> {
    let caller = Caller::cli(ctx, None);
    match command {
        McpServerCommand::List => {
            let list = mcp_servers::list(ctx).await?;
            out.emit(&list, |list| print_list(list));
        }
        McpServerCommand::Show { id } => {
            let server = mcp_servers::get(ctx, &id).await?;
            out.emit(&server, print_server);
        }
        McpServerCommand::Add { name, config } => {
            let server = mcp_servers::create(ctx, &caller, config.input(name, true, None)?).await?;
            out.emit(&server, |s| {
                println!("added MCP server {} ({})", s.id, state(s))
            });
        }
        McpServerCommand::Edit { id, name, config } => {
            let current = mcp_servers::get(ctx, &id).await?;
            let input = config.input(
                name.unwrap_or(current.name),
                current.enabled,
                current.preset,
            )?;
            let server = mcp_servers::update(ctx, &caller, &id, input).await?;
            out.emit(&server, |s| {
                println!("updated MCP server {} ({})", s.id, state(s))
            });
        }
        McpServerCommand::Enable { id } => {
            let server = mcp_servers::set_enabled(ctx, &caller, &id, Some(true)).await?;
            out.emit(&server, |s| {
                println!("MCP server {} is on ({})", s.id, state(s))
            });
        }
        McpServerCommand::Disable { id } => {
            let server = mcp_servers::set_enabled(ctx, &caller, &id, Some(false)).await?;
            out.emit(&server, |s| println!("MCP server {} is off", s.id));
        }
        McpServerCommand::Delete { id } => {
            mcp_servers::delete(ctx, &caller, &id).await?;
            out.done(&format!("deleted MCP server {id}"));
        }
        McpServerCommand::Test { id } => {
            let result = mcp_servers::test(ctx, &caller, &id).await?;
            out.emit(&result, |r| {
                if r.ok {
                    println!("MCP server {id} works: {} tool(s)", r.tools.len());
                    print_tools(&r.tools);
                } else {
                    if let Some(code) = r.exit_code {
                        println!("exit code: {code}");
                    }
                    if let Some(tail) = r.stderr_tail.as_deref().filter(|t| !t.trim().is_empty()) {
                        println!("standard error (last lines):\n{}", indent(tail));
                    }
                }
            });
            if !result.ok {
                return Err(AppError::new(
                    ErrorCode::Upstream,
                    result
                        .error
                        .unwrap_or_else(|| format!("MCP server {id} failed")),
                )
                .with_details(serde_json::json!({
                    "reason": "mcp_server_failed",
                    "exitCode": result.exit_code,
                    "stderrTail": result.stderr_tail,
                })));
            }
        }
        McpServerCommand::Import {
            file,
            dry_run,
            resolve_references,
            only,
        } => {
            let text = read_config(&file)?;
            let options = ImportOptions {
                resolve_references,
                only: (!only.is_empty()).then_some(only),
            };
            if dry_run {
                let preview = import::preview(ctx, &text, options).await?;
                out.emit(&preview, |p| {
                    print_entries(&p.entries);
                    for note in &p.notes {
                        println!("note: {note}");
                    }
                    let c = p.counts;
                    println!(
                        "would add {}; {} exist, {} invalid, {} not selected (dry run: nothing was written)",
                        c.new, c.exists, c.invalid, c.not_selected
                    );
                });
            } else {
                let outcome = import::import(ctx, &caller, &text, options).await?;
                out.emit(&outcome, |o| {
                    for server in &o.added {
                        println!("added {} ({})", server.id, state(server));
                    }
                    let others: Vec<ImportEntry> =
                        o.skipped.iter().chain(&o.invalid).cloned().collect();
                    if !others.is_empty() {
                        print_entries(&others);
                    }
                    for failure in &o.failed {
                        println!("failed {}: {}", failure.name, failure.error.message);
                    }
                    println!(
                        "added {}; skipped {} (exist), {} invalid, {} failed, {} not selected",
                        o.added.len(),
                        o.skipped.len(),
                        o.invalid.len(),
                        o.failed.len(),
                        o.not_selected.len()
                    );
                });
                if let Some(failure) = outcome.failed.into_iter().next() {
                    return Err(failure.error);
                }
            }
        }
        McpServerCommand::Presets => {
            let list = presets::presets();
            out.emit(&list, |list| {
                table(
                    &["id", "name", "needs", "description"],
                    list.iter()
                        .map(|p| {
                            vec![
                                p.id.clone(),
                                p.name.clone(),
                                p.missing.clone().unwrap_or_else(|| "—".into()),
                                p.description.clone(),
                            ]
                        })
                        .collect(),
                )
            });
        }
    }
    Ok(())
}

/// The text of `file` (`-`: standard input). A file is read by core, as the
/// window's picked file is; standard input with the same bounds.
fn read_config(file: &str) -> Result<String> {
    if file != "-" {
        return import::read_config_file(Path::new(file));
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(import::MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| {
            AppError::invalid_field(
                "file",
                "unreadable",
                format!("cannot read standard input: {e}"),
            )
        })?;
    if bytes.len() as u64 > import::MAX_FILE_BYTES {
        return Err(AppError::invalid_field(
            "file",
            "too_large",
            "standard input is too large to be an MCP configuration",
        ));
    }
    String::from_utf8(bytes).map_err(|_| {
        AppError::invalid_field("file", "not_text", "standard input is not UTF-8 text")
    })
}

fn indent(text: &str) -> String {
    text.trim_end()
        .lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    let mut short: String = line.chars().take(max).collect();
    if line.chars().count() > max || text.lines().nth(1).is_some() {
        short.push('…');
    }
    short
}

/// The state column: disabled, stopped, starting, running with N tools, failed: why.
fn state(s: &McpServer) -> String {
    match s.status.state {
        McpState::Disabled => "disabled".into(),
        McpState::Stopped => "stopped".into(),
        McpState::Starting => "starting".into(),
        McpState::Running => match s.tools.len() {
            1 => "running with 1 tool".into(),
            n => format!("running with {n} tools"),
        },
        McpState::Failed => format!(
            "failed: {}",
            first_line(s.status.error.as_deref().unwrap_or("unknown"), 60)
        ),
    }
}

fn quoted(arg: &str) -> String {
    if arg.is_empty() || arg.contains(char::is_whitespace) {
        format!("'{arg}'")
    } else {
        arg.to_owned()
    }
}

fn target(t: &McpTransport) -> (&'static str, String) {
    match t {
        McpTransport::Stdio { command, args, .. } => (
            "stdio",
            std::iter::once(quoted(command))
                .chain(args.iter().map(|a| quoted(a)))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        McpTransport::Http { url, .. } => ("http", url.clone()),
    }
}

fn print_list(list: &[McpServer]) {
    table(
        &["id", "name", "transport", "status", "target"],
        list.iter()
            .map(|s| {
                let (kind, target) = target(&s.transport);
                vec![
                    s.id.clone(),
                    s.name.clone(),
                    kind.into(),
                    state(s),
                    first_line(&target, 60),
                ]
            })
            .collect(),
    );
}

fn print_vars(label: &str, vars: &[McpVar]) {
    for v in vars {
        let kind = if v.secret { "  (secret)" } else { "" };
        println!("{label:<12}{} = {}{kind}", v.name, v.value);
    }
}

fn print_server(s: &McpServer) {
    let (kind, target) = target(&s.transport);
    println!("{:<12}{}", "id:", s.id);
    println!("{:<12}{}", "name:", s.name);
    println!("{:<12}{kind}", "transport:");
    match &s.transport {
        McpTransport::Stdio { env, cwd, .. } => {
            println!("{:<12}{target}", "command:");
            println!(
                "{:<12}{}",
                "cwd:",
                cwd.clone()
                    .unwrap_or_else(|| format!("(the data dir's mcp/{})", s.id))
            );
            print_vars("env:", env);
        }
        McpTransport::Http { headers, .. } => {
            println!("{:<12}{target}", "url:");
            print_vars("header:", headers);
        }
    }
    println!("{:<12}{}", "enabled:", yes_no(s.enabled));
    println!("{:<12}{} s", "timeout:", s.timeout_seconds);
    if let Some(preset) = &s.preset {
        println!("{:<12}{preset}", "preset:");
    }
    println!("{:<12}{}", "status:", state(s));
    if let Some(error) = &s.status.error {
        println!(
            "{:<12}{}",
            "last error:",
            error.lines().collect::<Vec<_>>().join("\n            ")
        );
    }
    if let Some(code) = s.status.exit_code {
        println!("{:<12}{code}", "exit code:");
    }
    if let Some(tail) = s
        .status
        .stderr_tail
        .as_deref()
        .filter(|t| !t.trim().is_empty())
    {
        println!("standard error (last lines):\n{}", indent(tail));
    }
    println!("tools:");
    print_tools(&s.tools);
}

fn print_tools(tools: &[McpToolInfo]) {
    table(
        &["tool", "name", "active", "description"],
        tools
            .iter()
            .map(|t| {
                vec![
                    t.id.clone(),
                    t.name.clone(),
                    yes_no(t.active),
                    first_line(&t.description, 60),
                ]
            })
            .collect(),
    );
}

fn print_entries(entries: &[ImportEntry]) {
    table(
        &[
            "name",
            "id",
            "status",
            "transport",
            "secrets",
            "references",
            "ignored",
        ],
        entries
            .iter()
            .map(|e| {
                let status = match (e.status, &e.existing, &e.problem) {
                    (ImportStatus::New, ..) if e.enabled => "new".to_owned(),
                    (ImportStatus::New, ..) => "new (off)".to_owned(),
                    (ImportStatus::Exists, Some(x), _) => match x.matched_by {
                        ImportMatch::Id => format!("exists (id {})", x.id),
                        ImportMatch::Name => format!("exists (named '{}', id {})", x.name, x.id),
                    },
                    (ImportStatus::Exists, None, _) => "exists".to_owned(),
                    (ImportStatus::Invalid, _, Some(p)) => format!("invalid ({})", p.reason),
                    (ImportStatus::Invalid, _, None) => "invalid".to_owned(),
                    (ImportStatus::NotSelected, ..) => "not selected".to_owned(),
                };
                let references = e
                    .references
                    .iter()
                    .map(|r| {
                        let state = match (r.set, r.has_default) {
                            (true, _) => "set",
                            (false, true) => "unset, default",
                            (false, false) => "unset",
                        };
                        match &r.sent_to {
                            Some(origin) => format!("{} ({state}, sent to {origin})", r.name),
                            None => format!("{} ({state})", r.name),
                        }
                    })
                    .collect::<Vec<_>>();
                let dash = |v: &[String]| {
                    if v.is_empty() {
                        "—".to_owned()
                    } else {
                        v.join(", ")
                    }
                };
                vec![
                    e.name.clone(),
                    e.id.clone().unwrap_or_else(|| "—".into()),
                    status,
                    e.transport.clone().unwrap_or_else(|| "—".into()),
                    dash(&e.secrets),
                    dash(&references),
                    dash(&e.ignored),
                ]
            })
            .collect(),
    );
    for e in entries {
        if let (ImportStatus::Invalid, Some(problem)) = (e.status, &e.problem) {
            println!("invalid: {}: {}", e.name, problem.message);
        }
        if let Some(cwd) = &e.cwd {
            println!("working folder: {}: {cwd}", e.name);
        }
        for var in &e.plain_vars {
            println!("plain: {}: {}={}", e.name, var.name, var.value);
        }
        for note in &e.notes {
            println!("note: {}: {note}", e.name);
        }
    }
}
