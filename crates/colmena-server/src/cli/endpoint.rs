//! `colmena endpoint`: HTTP endpoints declared as tools (SPEC H27–H29).
//! Each verb is one call of `colmena_core::endpoints`; the CLI is a local
//! door, so it may declare, change and test them.
//!
//! Secret header values are never taken as arguments (they would stay in
//! the shell's history and the process list): `--secret-header NAME` reads
//! the value from one line of standard input (a prompt when it is a
//! terminal), one line per secret header, in order. They are never printed
//! back: `show` and `list` name them only.

use std::io::{BufRead, IsTerminal};

use clap::{Args, Subcommand};
use colmena_core::endpoints::{
    self, Endpoint, EndpointInput, EndpointPair, EndpointRequest, HttpMethod, SecretHeaderInput,
};
use colmena_core::{AppError, Caller, Ctx, ErrorCode, Result};
use serde_json::{Value, json};

use super::output::{Output, table, yes_no};

#[derive(Debug, Subcommand)]
pub enum EndpointCommand {
    /// List the endpoints and their tools.
    List,
    /// Show one endpoint (secret headers by name only).
    Show { id: String },
    /// Declare an endpoint; it becomes the tool endpoint_<id>.
    Create {
        /// Display name; the id (and tool name) comes from it unless --slug.
        name: String,
        /// The id: lowercase letters, digits and _.
        #[arg(long)]
        slug: Option<String>,
        #[command(flatten)]
        def: DefinitionArgs,
    },
    /// Change an endpoint: what is given replaces what it had; the rest
    /// stays (secret headers included).
    Update {
        id: String,
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        def: DefinitionArgs,
        /// Remove this secret header (repeatable).
        #[arg(long = "remove-secret-header", value_name = "NAME")]
        remove_secret_headers: Vec<String>,
        /// Send no body any more.
        #[arg(long, conflicts_with = "body")]
        no_body: bool,
    },
    /// Delete an endpoint, its sealed secrets and its tool.
    Delete { id: String },
    /// Switch an endpoint (and its tool) on.
    Enable { id: String },
    /// Switch an endpoint (and its tool) off.
    Disable { id: String },
    /// Call an endpoint without the model (exit status 9 when it answers
    /// an error status).
    Test {
        id: String,
        /// The arguments, a JSON object.
        #[arg(long, default_value = "{}")]
        params: String,
        /// Only show the request that would be sent (secrets masked).
        #[arg(long)]
        dry_run: bool,
    },
}

/// What an endpoint does. On `update` each flag given replaces that part.
#[derive(Debug, Args)]
pub struct DefinitionArgs {
    /// What the model reads to decide when to call it.
    #[arg(long)]
    description: Option<String>,
    /// GET, POST, PUT, PATCH or DELETE (default GET).
    #[arg(long)]
    method: Option<String>,
    /// http(s)://host[:port]/path; {{param}} may appear in the path.
    #[arg(long)]
    url: Option<String>,
    /// A query parameter, NAME=TEMPLATE (repeatable; replaces them all).
    #[arg(long = "query", value_name = "NAME=TEMPLATE")]
    query: Vec<String>,
    /// A plain header, NAME=TEMPLATE (repeatable; replaces them all).
    #[arg(long = "header", value_name = "NAME=TEMPLATE")]
    headers: Vec<String>,
    /// A secret header, sealed in the vault: its value is read from a line
    /// of standard input (repeatable, one line each, in order).
    #[arg(long = "secret-header", value_name = "NAME")]
    secret_headers: Vec<String>,
    /// The JSON body template ("{{p}}" alone takes p's typed value).
    #[arg(long)]
    body: Option<String>,
    /// A parameter, NAME[:TYPE][:required] (TYPE: string, integer, number,
    /// boolean, array, object; default string). Repeatable; replaces the schema.
    #[arg(
        long = "param",
        value_name = "NAME[:TYPE][:required]",
        conflicts_with = "param_schema"
    )]
    params: Vec<String>,
    /// The parameters' JSON schema, whole.
    #[arg(long)]
    param_schema: Option<String>,
    /// Longest a call may take, 1–120 seconds (default 30).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<u32>,
    /// Create it switched off.
    #[arg(long)]
    disabled: bool,
}

fn pairs(flag: &str, texts: &[String]) -> Result<Vec<EndpointPair>> {
    texts
        .iter()
        .map(|text| {
            text.split_once('=')
                .map(|(k, v)| EndpointPair {
                    name: k.to_owned(),
                    value: v.to_owned(),
                })
                .ok_or_else(|| {
                    AppError::invalid_field(
                        flag,
                        "not_a_pair",
                        format!("--{flag} takes NAME=TEMPLATE, not '{text}'"),
                    )
                })
        })
        .collect()
}

fn json_arg(flag: &str, text: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| {
        AppError::invalid_field(flag, "invalid_json", format!("--{flag} is not JSON: {e}"))
    })
}

/// The schema `--param` flags describe.
fn schema_of(params: &[String]) -> Result<Value> {
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for text in params {
        let mut parts = text.split(':');
        let name = parts.next().unwrap_or_default().trim().to_owned();
        let mut kind = "string".to_owned();
        for part in parts {
            match part.trim() {
                "required" => required.push(name.clone()),
                t @ ("string" | "integer" | "number" | "boolean" | "array" | "object") => {
                    kind = t.to_owned()
                }
                other => {
                    return Err(AppError::invalid_field(
                        "param",
                        "invalid",
                        format!("--param {text}: '{other}' is neither a type nor 'required'"),
                    ));
                }
            }
        }
        properties.insert(name, json!({ "type": kind }));
    }
    Ok(json!({ "type": "object", "properties": properties, "required": required }))
}

/// The value of the secret header `name`, from a line of standard input.
fn secret_value(name: &str, stdin: &mut impl BufRead) -> Result<String> {
    if std::io::stdin().is_terminal() {
        eprint!("value of secret header {name} (end with Enter): ");
    }
    let mut line = String::new();
    let read = stdin
        .read_line(&mut line)
        .map_err(|e| AppError::internal(format!("cannot read standard input: {e}")))?;
    let value = line.trim_end_matches(['\n', '\r']).to_owned();
    if read == 0 || value.is_empty() {
        return Err(AppError::invalid_field(
            "secretHeaders",
            "secret_required",
            format!("no value for secret header {name}: pass it as a line of standard input"),
        ));
    }
    Ok(value)
}

fn secrets(names: &[String]) -> Result<Vec<SecretHeaderInput>> {
    let mut stdin = std::io::stdin().lock();
    names
        .iter()
        .map(|name| {
            Ok(SecretHeaderInput {
                name: name.clone(),
                value: Some(secret_value(name, &mut stdin)?),
            })
        })
        .collect()
}

fn method(text: &str) -> Result<HttpMethod> {
    HttpMethod::parse(text).ok_or_else(|| {
        AppError::invalid_field(
            "method",
            "unknown_method",
            format!("'{text}' is not GET, POST, PUT, PATCH or DELETE"),
        )
    })
}

impl DefinitionArgs {
    /// Applies the flags given to `input`.
    fn apply(self, input: &mut EndpointInput) -> Result<()> {
        if let Some(description) = self.description {
            input.description = description;
        }
        if let Some(m) = &self.method {
            input.method = method(m)?;
        }
        if let Some(url) = self.url {
            input.url = url;
        }
        if !self.query.is_empty() {
            input.query = pairs("query", &self.query)?;
        }
        if !self.headers.is_empty() {
            input.headers = pairs("header", &self.headers)?;
        }
        for secret in secrets(&self.secret_headers)? {
            input
                .secret_headers
                .retain(|s| !s.name.eq_ignore_ascii_case(&secret.name));
            input.secret_headers.push(secret);
        }
        if let Some(body) = &self.body {
            input.body = Some(json_arg("body", body)?);
        }
        if let Some(schema) = &self.param_schema {
            input.param_schema = Some(json_arg("param-schema", schema)?);
        } else if !self.params.is_empty() {
            input.param_schema = Some(schema_of(&self.params)?);
        }
        if self.timeout.is_some() {
            input.timeout_seconds = self.timeout;
        }
        if self.disabled {
            input.enabled = Some(false);
        }
        Ok(())
    }
}

pub async fn run(ctx: &Ctx, out: &Output, command: EndpointCommand) -> Result<()> {
    let caller = Caller::cli(ctx, None);
    match command {
        EndpointCommand::List => {
            let list = endpoints::list(ctx).await?;
            out.emit(&list, |list| print_list(list));
        }
        EndpointCommand::Show { id } => {
            let endpoint = endpoints::get(ctx, &id).await?;
            out.emit(&endpoint, print_endpoint);
        }
        EndpointCommand::Create { name, slug, def } => {
            let mut input = EndpointInput {
                name,
                slug,
                description: String::new(),
                method: HttpMethod::Get,
                url: String::new(),
                query: Vec::new(),
                body: None,
                headers: Vec::new(),
                secret_headers: Vec::new(),
                param_schema: None,
                enabled: Some(true),
                timeout_seconds: None,
            };
            def.apply(&mut input)?;
            let endpoint = endpoints::create(ctx, &caller, input).await?;
            out.emit(&endpoint, |e| {
                println!("created endpoint {} (tool {})", e.id, e.tool)
            });
        }
        EndpointCommand::Update {
            id,
            name,
            def,
            remove_secret_headers,
            no_body,
        } => {
            let current = endpoints::get(ctx, &id).await?;
            let mut input = EndpointInput::from(&current);
            if let Some(name) = name {
                input.name = name;
            }
            input.secret_headers.retain(|s| {
                !remove_secret_headers
                    .iter()
                    .any(|r| r.eq_ignore_ascii_case(&s.name))
            });
            if no_body {
                input.body = None;
            }
            def.apply(&mut input)?;
            let endpoint = endpoints::update(ctx, &caller, &current.id, input).await?;
            out.emit(&endpoint, |e| println!("updated endpoint {}", e.id));
        }
        EndpointCommand::Delete { id } => {
            endpoints::delete(ctx, &caller, &id).await?;
            out.done(&format!("deleted endpoint {id}"));
        }
        EndpointCommand::Enable { id } => {
            let endpoint = endpoints::set_enabled(ctx, &caller, &id, Some(true)).await?;
            out.emit(&endpoint, |e| println!("endpoint {} is on", e.id));
        }
        EndpointCommand::Disable { id } => {
            let endpoint = endpoints::set_enabled(ctx, &caller, &id, Some(false)).await?;
            out.emit(&endpoint, |e| println!("endpoint {} is off", e.id));
        }
        EndpointCommand::Test {
            id,
            params,
            dry_run,
        } => {
            let params = json_arg("params", &params)?;
            if dry_run {
                let current = endpoints::get(ctx, &id).await?;
                let request = endpoints::preview(EndpointInput::from(&current), &params)?;
                out.emit(&request, print_request);
                return Ok(());
            }
            let result = endpoints::test(ctx, &caller, &id, &params).await?;
            out.emit(&result, |r| {
                println!(
                    "{} {} → {} ({} ms)",
                    r.request.method.as_str(),
                    r.request.url,
                    r.status,
                    r.duration_ms
                );
                if let Some(ct) = &r.content_type {
                    println!("content-type: {ct}");
                }
                if let Some(note) = &r.note {
                    println!("note: {note}");
                }
                if r.truncated {
                    println!("note: only the first MiB was read");
                }
                println!();
                println!("{}", r.body);
            });
            if !result.ok {
                return Err(AppError::new(
                    ErrorCode::Upstream,
                    format!("endpoint {id} answered {}", result.status),
                )
                .with_details(json!({ "reason": "endpoint_status", "status": result.status })));
            }
        }
    }
    Ok(())
}

fn print_list(list: &[Endpoint]) {
    table(
        &["id", "tool", "method", "url", "on", "secret headers"],
        list.iter()
            .map(|e| {
                vec![
                    e.id.clone(),
                    e.tool.clone(),
                    e.method.as_str().to_owned(),
                    e.url.clone(),
                    yes_no(e.enabled),
                    e.secret_header_names.join(", "),
                ]
            })
            .collect(),
    );
}

fn print_endpoint(e: &Endpoint) {
    println!("{} ({})", e.name, e.id);
    println!("tool:        {}", e.tool);
    println!("on:          {}", yes_no(e.enabled));
    println!("description: {}", e.description);
    println!("request:     {} {}", e.method.as_str(), e.url);
    for q in &e.query {
        println!("query:       {}={}", q.name, q.value);
    }
    for h in &e.headers {
        println!("header:      {}: {}", h.name, h.value);
    }
    for name in &e.secret_header_names {
        println!("secret:      {name}: (set)");
    }
    if let Some(body) = &e.body {
        println!(
            "body:        {}",
            serde_json::to_string(body).unwrap_or_default()
        );
    }
    println!("timeout:     {} s", e.timeout_seconds);
    println!(
        "parameters:  {}",
        serde_json::to_string(&e.param_schema).unwrap_or_default()
    );
}

fn print_request(r: &EndpointRequest) {
    println!("{} {}", r.method.as_str(), r.url);
    for h in &r.headers {
        println!("{}: {}", h.name, h.value);
    }
    if let Some(body) = &r.body {
        println!();
        println!("{body}");
    }
}
