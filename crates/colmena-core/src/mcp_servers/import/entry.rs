//! One server of a pasted configuration turned into what `create` takes.
//!
//! The clients agree on the core (`command`, `args`, `env` for a program;
//! `url`, `headers` for a remote server) and differ at the edges, which are
//! mapped where the meaning is plain and listed as ignored otherwise:
//! - `type`: `stdio`, `http` / `streamable-http` (Claude Code, VS Code),
//!   `transportType` (Cline); without it a `command` is a program and a `url`
//!   a remote server (Claude Desktop, Cursor). `sse` is refused: Colmena
//!   speaks streamable HTTP only.
//! - `httpUrl` (Gemini CLI) and `serverUrl` (Windsurf) are the URL.
//! - `disabled: true` (Cline, Claude Code) imports the server switched off.
//! - `timeout`: Cline writes seconds, Gemini CLI milliseconds; a value above
//!   an hour (the longest Colmena allows) can only be milliseconds.
//! - Cursor's `${env:NAME}` is Colmena's `${NAME}`, `${userHome}` the home
//!   folder; VS Code's `${input:…}` prompts have no equivalent here.
//!
//! A reference to one of Colmena's own variables (`${COLMENA_…}`) makes the
//! entry invalid: a cloned project's `.mcp.json` must not be able to send
//! them anywhere. Every other reference of a URL server is marked with the
//! origin its value would be sent to, so the preview can say so.

use serde_json::{Map, Value};

use super::secrets::{has_url_password, looks_secret};
use super::{ImportProblem, ImportReference, ImportVar};
use crate::mcp_servers::config::{McpServerInput, McpTransportInput, McpVarInput};
use crate::mcp_servers::refs;

/// The longest call timeout Colmena allows, in seconds.
const MAX_TIMEOUT: f64 = 3600.0;

/// The keys this module reads; anything else is listed as ignored.
const KNOWN: &[&str] = &[
    "type",
    "transportType",
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "httpUrl",
    "serverUrl",
    "headers",
    "disabled",
    "enabled",
    "timeout",
];

/// What one entry became.
#[derive(Default)]
pub(super) struct Converted {
    pub input: Option<McpServerInput>,
    pub problem: Option<ImportProblem>,
    pub transport: Option<&'static str>,
    pub target: String,
    pub enabled: bool,
    pub timeout_seconds: Option<u32>,
    pub secrets: Vec<String>,
    pub plain_vars: Vec<ImportVar>,
    pub cwd: Option<String>,
    pub references: Vec<ImportReference>,
    pub ignored: Vec<String>,
    pub notes: Vec<String>,
}

fn problem(reason: &str, message: impl Into<String>) -> ImportProblem {
    ImportProblem {
        reason: reason.to_owned(),
        message: message.into(),
    }
}

type Lookup<'a> = &'a (dyn Fn(&str) -> Option<String> + Sync);

/// Reads the strings of one entry: rewrites other clients' placeholders,
/// records the references, and resolves them when asked to.
struct Strings<'a> {
    resolve: bool,
    lookup: Lookup<'a>,
    references: Vec<ImportReference>,
    notes: Vec<String>,
}

impl Strings<'_> {
    /// `text` of `field` (named in a refusal) as it would be stored.
    fn take(&mut self, field: &str, text: &str) -> Result<String, ImportProblem> {
        let text = self.rewrite(text)?;
        if let Some(name) = refs::first_reserved(&text) {
            return Err(problem(
                refs::RESERVED_REASON,
                format!(
                    "{field} refers to ${{{name}}}: Colmena's own variables ({}*) are never given to an MCP server",
                    refs::RESERVED_PREFIX
                ),
            ));
        }
        for name in refs::names(&text) {
            // Unset alone, does this text still resolve? Then a default covers it.
            let defaulted = refs::resolve(&text, &|n| (n != name).then(String::new)).is_ok();
            match self.references.iter_mut().find(|r| r.name == name) {
                Some(known) => known.has_default &= defaulted,
                None => self.references.push(ImportReference {
                    set: (self.lookup)(&name).is_some(),
                    name,
                    has_default: defaulted,
                    sent_to: None,
                }),
            }
        }
        if self.resolve {
            refs::resolve(&text, self.lookup).map_err(|e| problem("unset_reference", e.message))
        } else {
            Ok(text)
        }
    }

    /// Cursor's and VS Code's placeholders in Colmena's terms.
    fn rewrite(&mut self, text: &str) -> Result<String, ImportProblem> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                out.push_str(&rest[start..]);
                return Ok(out);
            };
            let inner = &after[..end];
            if let Some(name) = inner.strip_prefix("env:") {
                out.push_str(&format!("${{{name}}}"));
            } else if inner == "userHome" {
                let home = dirs::home_dir()
                    .map(|h| h.display().to_string())
                    .unwrap_or_default();
                out.push_str(&home);
            } else if inner == "pathSeparator" || inner == "/" {
                out.push(std::path::MAIN_SEPARATOR);
            } else if let Some(input) = inner.strip_prefix("input:") {
                return Err(problem(
                    "needs_input",
                    format!(
                        "it asks for '${{input:{input}}}', a value VS Code prompts for: add the server by hand and type the value in"
                    ),
                ));
            } else {
                if inner.starts_with("workspaceFolder") {
                    let note = format!(
                        "'${{{inner}}}' is the editor's project folder: Colmena has none, replace it with a path"
                    );
                    if !self.notes.contains(&note) {
                        self.notes.push(note);
                    }
                }
                out.push_str(&rest[start..start + 2 + end + 1]);
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// Is `value` nothing but references kept as written (and perhaps the
/// word of an auth scheme)? Then there is no secret in it to seal.
fn only_references(value: &str) -> bool {
    let mut left = String::new();
    let mut rest = value;
    let mut any = false;
    while let Some(start) = rest.find("${") {
        left.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            left.push_str(&rest[start..]);
            rest = "";
            break;
        };
        let inner = &after[..end];
        let token = &rest[start..start + 2 + end + 1];
        if !inner.contains(":-") && refs::names(token) == [inner] {
            any = true;
        } else {
            left.push_str(token);
        }
        rest = &after[end + 1..];
    }
    left.push_str(rest);
    let left = left.trim();
    any && (left.is_empty()
        || ["bearer", "basic", "token", "bot", "apikey"]
            .contains(&left.to_ascii_lowercase().as_str()))
}

fn looks_placeholder(value: &str) -> bool {
    let upper = value.trim().to_ascii_uppercase();
    (upper.starts_with('<') && upper.ends_with('>'))
        || upper.starts_with("YOUR_")
        || upper.starts_with("YOUR-")
        || upper == "..."
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn text_of(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, ImportProblem> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(problem("bad_shape", format!("\"{key}\" must be a string"))),
    }
}

/// A kind of transport as the clients spell it.
fn kind_of(obj: &Map<String, Value>) -> Result<Option<&'static str>, ImportProblem> {
    let Some(written) = text_of(obj, "type")?.or(text_of(obj, "transportType")?) else {
        return Ok(None);
    };
    let squashed: String = written
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    match squashed.as_str() {
        "stdio" => Ok(Some("stdio")),
        "http" | "streamablehttp" => Ok(Some("http")),
        "sse" => Err(problem(
            "sse_unsupported",
            "it uses the SSE transport, which Colmena does not speak: use the server's streamable HTTP endpoint (often ending in /mcp) with \"type\": \"http\"",
        )),
        _ => Err(problem(
            "unknown_transport",
            format!("its type '{written}' is not one Colmena knows (stdio or http)"),
        )),
    }
}

/// The timeout in seconds, saying how it was read.
fn timeout_of(value: &Value, notes: &mut Vec<String>) -> Option<u32> {
    let Some(number) = value.as_f64().filter(|n| n.is_finite() && *n > 0.0) else {
        notes.push(format!(
            "the timeout {value} is not a positive number: the default applies"
        ));
        return None;
    };
    let seconds = if number > MAX_TIMEOUT {
        let seconds = (number / 1000.0).ceil();
        notes.push(format!(
            "the timeout {number} was read as milliseconds ({seconds} s)"
        ));
        seconds
    } else {
        number.ceil()
    };
    if seconds > MAX_TIMEOUT {
        notes.push(format!(
            "the timeout was shortened to the longest Colmena allows ({MAX_TIMEOUT} s)"
        ));
    }
    // Bounded to 1..=3600 just above.
    Some(seconds.clamp(1.0, MAX_TIMEOUT) as u32)
}

/// The variables (`env`) or headers of an entry, secrets told apart.
fn vars(
    obj: &Map<String, Value>,
    key: &str,
    strings: &mut Strings<'_>,
    secrets: &mut Vec<String>,
) -> Result<Vec<McpVarInput>, ImportProblem> {
    let map = match obj.get(key) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(map)) => map,
        Some(_) => {
            return Err(problem(
                "bad_shape",
                format!("\"{key}\" must be an object of names and values"),
            ));
        }
    };
    let mut out = Vec::with_capacity(map.len());
    for (name, raw) in map {
        let written = scalar(raw).ok_or_else(|| {
            problem(
                "bad_shape",
                format!("the value of {key}.{name} must be a string"),
            )
        })?;
        let value = strings.take(&format!("{key}.{name}"), &written)?;
        let secret = !value.is_empty()
            && (looks_secret(name) || has_url_password(&value))
            && (strings.resolve || !only_references(&value));
        if looks_placeholder(&value) {
            strings.notes.push(format!(
                "the value of {name} looks like a placeholder: set the real one before starting it"
            ));
        }
        if secret {
            secrets.push(name.clone());
        }
        out.push(McpVarInput {
            name: name.clone(),
            value: Some(value),
            secret,
        });
    }
    Ok(out)
}

/// Where the references of a URL server send their values: the origin of
/// `url` resolved against the environment now, or `url` as written when it
/// cannot be resolved yet (a reference that is not set).
fn origin_of(url: &str, lookup: Lookup<'_>) -> String {
    refs::resolve(url, lookup)
        .ok()
        .and_then(|resolved| url::Url::parse(&resolved).ok())
        .map(|parsed| parsed.origin().ascii_serialization())
        .filter(|origin| origin != "null")
        .unwrap_or_else(|| url.to_owned())
}

/// The plain (not sealed) variables or headers, with their values.
fn plain_of(vars: &[McpVarInput]) -> Vec<ImportVar> {
    vars.iter()
        .filter(|v| !v.secret)
        .map(|v| ImportVar {
            name: v.name.clone(),
            value: v.value.clone().unwrap_or_default(),
        })
        .collect()
}

/// Notes about arguments that look like secrets: arguments are stored plain.
fn note_secret_args(args: &[String], notes: &mut Vec<String>) {
    for (i, arg) in args.iter().enumerate() {
        let flag_value = arg.strip_prefix("--").and_then(|a| a.split_once('='));
        let after_flag = i > 0
            && args[i - 1].starts_with('-')
            && looks_secret(args[i - 1].trim_start_matches('-'));
        let secret = match flag_value {
            Some((flag, value)) => {
                looks_secret(flag) && !value.is_empty() && !only_references(value)
            }
            None => after_flag && !only_references(arg),
        } || has_url_password(arg);
        if secret {
            notes.push(format!(
                "argument {} looks like a secret: Colmena keeps arguments in plain text, pass it through an environment variable if the server reads one",
                i + 1
            ));
        }
    }
}

pub(super) fn convert(value: &Value, resolve: bool, lookup: Lookup<'_>) -> Converted {
    let mut out = Converted {
        enabled: true,
        ..Converted::default()
    };
    let mut strings = Strings {
        resolve,
        lookup,
        references: Vec::new(),
        notes: Vec::new(),
    };
    let result = fill(value, &mut strings, &mut out);
    out.references = strings.references;
    let mut notes = strings.notes;
    notes.append(&mut out.notes);
    out.notes = notes;
    if let Err(p) = result {
        out.input = None;
        out.problem = Some(p);
    }
    out
}

fn fill(
    value: &Value,
    strings: &mut Strings<'_>,
    out: &mut Converted,
) -> Result<(), ImportProblem> {
    let Value::Object(obj) = value else {
        return Err(problem(
            "bad_shape",
            "a server's settings must be a JSON object",
        ));
    };
    out.ignored = obj
        .keys()
        .filter(|k| !KNOWN.contains(&k.as_str()))
        .cloned()
        .collect();
    if obj.get("envFile").is_some() {
        out.notes
            .push("envFile is not read: add its variables to the server by hand".into());
    }
    match (obj.get("disabled"), obj.get("enabled")) {
        (Some(Value::Bool(off)), _) => out.enabled = !off,
        (None, Some(Value::Bool(on))) => out.enabled = *on,
        (None, None) => {}
        _ => out.notes.push(
            "\"disabled\" or \"enabled\" is not true or false: it is imported switched on".into(),
        ),
    }
    if let Some(timeout) = obj.get("timeout") {
        out.timeout_seconds = timeout_of(timeout, &mut out.notes);
    }
    let command = text_of(obj, "command")?;
    let url = match text_of(obj, "url")? {
        Some(url) => Some(url),
        None => text_of(obj, "httpUrl")?.or(text_of(obj, "serverUrl")?),
    };
    let kind = match (kind_of(obj)?, &command, &url) {
        (Some(kind), _, _) => kind,
        (None, Some(_), Some(_)) => {
            return Err(problem(
                "ambiguous_transport",
                "it has both a command and a URL: say which with \"type\": \"stdio\" or \"http\"",
            ));
        }
        (None, Some(_), None) => "stdio",
        (None, None, Some(_)) => "http",
        (None, None, None) => {
            return Err(problem(
                "no_transport",
                "it has neither a command to run nor a URL to reach",
            ));
        }
    };
    out.transport = Some(kind);
    let mut secrets = Vec::new();
    let transport = if kind == "stdio" {
        let written = command
            .ok_or_else(|| problem("no_transport", "it is a stdio server without a command"))?;
        let mut command = strings.take("command", &written)?;
        let mut args = match obj.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|a| {
                    scalar(a)
                        .ok_or_else(|| problem("bad_shape", "\"args\" must be a list of strings"))
                })
                .collect::<Result<Vec<_>, _>>()?,
            Some(_) => return Err(problem("bad_shape", "\"args\" must be a list of strings")),
        };
        // Cursor runs `command` through a shell: "npx -y pkg" is a program and two arguments here.
        let first = command
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned();
        if args.is_empty()
            && command.trim().contains(char::is_whitespace)
            && !command.contains(['"', '\''])
            && !first.contains(['/', '\\'])
        {
            let parts: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
            command = parts[0].clone();
            args = parts[1..].to_vec();
            out.notes.push(
                "the command was split at its spaces into a program and its arguments".into(),
            );
        }
        let args = args
            .iter()
            .enumerate()
            .map(|(i, a)| strings.take(&format!("argument {}", i + 1), a))
            .collect::<Result<Vec<_>, _>>()?;
        note_secret_args(&args, &mut out.notes);
        let cwd = text_of(obj, "cwd")?
            .map(|c| strings.take("cwd", &c))
            .transpose()?;
        let env = vars(obj, "env", strings, &mut secrets)?;
        out.plain_vars = plain_of(&env);
        out.cwd = cwd.clone();
        out.target = std::iter::once(command.as_str())
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        McpTransportInput::Stdio {
            command,
            args,
            env,
            cwd,
        }
    } else {
        let written =
            url.ok_or_else(|| problem("no_transport", "it is an HTTP server without a URL"))?;
        let url = strings.take("url", &written)?;
        let path = url
            .split(['?', '#'])
            .next()
            .unwrap_or_default()
            .trim_end_matches('/');
        if path.to_ascii_lowercase().ends_with("/sse") {
            out.notes.push("the URL ends in /sse: if that is an SSE endpoint Colmena cannot use it (it speaks streamable HTTP)".into());
        }
        if has_url_password(&url) {
            out.notes.push(
                "the URL holds a password: Colmena keeps the URL in plain text, prefer a header"
                    .into(),
            );
        }
        let headers = vars(obj, "headers", strings, &mut secrets)?;
        out.plain_vars = plain_of(&headers);
        // The URL and the headers are all a URL server reads: every value
        // they refer to is sent to its origin.
        let origin = origin_of(&url, strings.lookup);
        for reference in &mut strings.references {
            reference.sent_to = Some(origin.clone());
        }
        out.target = url.clone();
        McpTransportInput::Http { url, headers }
    };
    out.secrets = secrets;
    out.input = Some(McpServerInput {
        name: String::new(),
        transport,
        enabled: Some(out.enabled),
        timeout_seconds: out.timeout_seconds,
        preset: None,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env(name: &str) -> Option<String> {
        (name == "SET_ONE").then(|| "value-1".to_owned())
    }

    fn convert_json(value: Value, resolve: bool) -> Converted {
        convert(&value, resolve, &env)
    }

    #[test]
    fn references_are_kept_listed_and_resolved_only_when_asked() {
        let value = json!({
            "type": "http",
            "url": "${BASE:-https://api.example.com}/mcp",
            "headers": {"Authorization": "Bearer ${SET_ONE}", "X-Trace": "${MISSING}"}
        });
        let kept = convert_json(value.clone(), false);
        assert!(
            kept.problem.is_none(),
            "{:?}",
            kept.problem.map(|p| p.message)
        );
        assert!(kept.secrets.is_empty(), "a reference is nothing to seal");
        let names: Vec<(&str, bool, bool)> = kept
            .references
            .iter()
            .map(|r| (r.name.as_str(), r.set, r.has_default))
            .collect();
        assert_eq!(
            names,
            [
                ("BASE", false, true),
                ("SET_ONE", true, false),
                ("MISSING", false, false)
            ]
        );
        let resolved = convert_json(value, true);
        assert_eq!(
            resolved.problem.map(|p| p.reason),
            Some("unset_reference".to_owned())
        );
        let ok = convert_json(
            json!({"url": "${BASE:-https://x.test}/mcp", "headers": {"Authorization": "Bearer ${SET_ONE}"}}),
            true,
        );
        assert_eq!(ok.secrets, ["Authorization"], "a resolved key is sealed");
        assert_eq!(ok.target, "https://x.test/mcp");
    }

    #[test]
    fn other_clients_fields_are_mapped_or_listed() {
        let c = convert_json(
            json!({"command": "npx -y pkg", "disabled": true, "timeout": 30000, "autoApprove": [], "alwaysAllow": []}),
            false,
        );
        let Some(McpServerInput {
            transport: McpTransportInput::Stdio { command, args, .. },
            enabled,
            ..
        }) = c.input
        else {
            panic!("not stdio: {:?}", c.problem.map(|p| p.message));
        };
        assert_eq!(
            (command.as_str(), args),
            ("npx", vec!["-y".to_owned(), "pkg".to_owned()])
        );
        assert_eq!(enabled, Some(false));
        assert_eq!(c.timeout_seconds, Some(30));
        assert_eq!(c.ignored, ["alwaysAllow", "autoApprove"]);
        assert_eq!(
            convert_json(json!({"command": "x", "timeout": 60}), false).timeout_seconds,
            Some(60)
        );
        let cursor = convert_json(
            json!({"command": "x", "env": {"T": "${env:SET_ONE}"}}),
            false,
        );
        assert_eq!(cursor.references[0].name, "SET_ONE");
    }

    #[test]
    fn entries_that_cannot_be_imported_say_why() {
        for (value, reason) in [
            (
                json!({"type": "sse", "url": "https://x.test/sse"}),
                "sse_unsupported",
            ),
            (json!({"args": ["x"]}), "no_transport"),
            (
                json!({"command": "a", "url": "https://x.test"}),
                "ambiguous_transport",
            ),
            (
                json!({"type": "websocket", "url": "wss://x.test"}),
                "unknown_transport",
            ),
            (json!({"command": 3}), "bad_shape"),
            (json!({"command": "a", "env": {"K": null}}), "bad_shape"),
            (json!("npx"), "bad_shape"),
            (
                json!({"command": "a", "env": {"K": "${input:key}"}}),
                "needs_input",
            ),
        ] {
            let c = convert_json(value.clone(), false);
            assert_eq!(
                c.problem.map(|p| p.reason).as_deref(),
                Some(reason),
                "{value}"
            );
        }
    }

    #[test]
    fn secret_values_are_told_apart() {
        let c = convert_json(
            json!({"command": "x", "env": {"OPENAI_API_KEY": "sk-live", "MONKEY": "banana", "EMPTY_TOKEN": "", "DATABASE_URL": "postgres://u:p@h/db", "GH_TOKEN": "${SET_ONE}"}}),
            false,
        );
        assert_eq!(c.secrets, ["DATABASE_URL", "OPENAI_API_KEY"]);
        let args = convert_json(
            json!({"command": "x", "args": ["--api-key", "sk-1", "--token=abc", "--token=${T}"]}),
            false,
        );
        assert_eq!(args.notes.len(), 2, "{:?}", args.notes);
    }
}
