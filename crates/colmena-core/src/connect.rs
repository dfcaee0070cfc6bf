//! Connecting an AI client to Colmena in one step (SPEC X2): the exact
//! configuration that Claude Code, Claude Desktop or Cursor needs to reach
//! Colmena's MCP server as a chosen author, over stdio (the client spawns
//! `colmena mcp`) or streamable HTTP (the local server's `/mcp`).
//!
//! The desktop's Settings → Connect AI clients and `colmena mcp config`
//! both print what this module writes.
//!
//! Tokens: over stdio the workspace owner needs none (`colmena mcp` acts as
//! the owner without one); any other author, and every HTTP client, needs
//! the author's bearer token. Only a hash is kept, so a token can be shown
//! only when it is minted — which replaces the author's previous token.
//! Without minting, the configuration carries a placeholder and says so.

use serde::{Deserialize, Serialize};

use crate::ctx::Ctx;
use crate::error::{AppError, Result};
use crate::inbox::{authors, local_server};

/// The clients Colmena writes configurations for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum AiClient {
    ClaudeCode,
    ClaudeDesktop,
    Cursor,
}

impl AiClient {
    pub fn parse(text: &str) -> Result<AiClient> {
        match text.trim() {
            "claude-code" => Ok(AiClient::ClaudeCode),
            "claude-desktop" => Ok(AiClient::ClaudeDesktop),
            "cursor" => Ok(AiClient::Cursor),
            other => Err(AppError::invalid_field(
                "client",
                "unknown_client",
                format!("the client must be claude-code, claude-desktop or cursor, not '{other}'"),
            )),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum McpTransport {
    /// The client starts `colmena mcp` and talks over its stdin/stdout.
    Stdio,
    /// The client calls `http://127.0.0.1:PORT/mcp` with a bearer token.
    Http,
}

impl McpTransport {
    pub fn parse(text: &str) -> Result<McpTransport> {
        match text.trim() {
            "stdio" => Ok(McpTransport::Stdio),
            "http" => Ok(McpTransport::Http),
            other => Err(AppError::invalid_field(
                "transport",
                "unknown_transport",
                format!("the transport must be stdio or http, not '{other}'"),
            )),
        }
    }
}

/// What to write a configuration for.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ConnectRequest {
    pub client: AiClient,
    pub transport: McpTransport,
    /// The author the client acts as (default: the owner's).
    #[serde(default)]
    pub author: Option<String>,
    /// Mint a new token for the author (its previous one stops working).
    #[serde(default)]
    pub mint_token: bool,
}

/// A configuration ready to paste.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ClientConfig {
    pub client: AiClient,
    pub transport: McpTransport,
    pub author: String,
    /// What to run (Claude Code) or to put in the client's config file.
    pub text: String,
    /// Where that goes, in words.
    pub where_to: String,
    /// The configuration needs a token it does not carry yet.
    pub needs_token: bool,
    /// A token was minted just now and is in `text`.
    pub token_minted: bool,
    /// The MCP endpoint (HTTP) or the program the client starts (stdio).
    pub endpoint: String,
}

/// The name Colmena has in a client's list of servers.
const SERVER_NAME: &str = "colmena";

/// Writes the configuration; `program` is the `colmena` executable the
/// client should start (stdio).
pub async fn client_config(
    ctx: &Ctx,
    request: ConnectRequest,
    program: &str,
) -> Result<ClientConfig> {
    if request.client == AiClient::ClaudeDesktop && request.transport == McpTransport::Http {
        return Err(AppError::invalid_field(
            "transport",
            "stdio_only",
            "Claude Desktop's config file starts local servers only: choose stdio",
        ));
    }
    let author = authors::get(ctx, request.author.as_deref().unwrap_or(ctx.owner())).await?;
    let owner = author.id == ctx.owner();
    let needs = request.transport == McpTransport::Http || !owner;
    let token = if needs && request.mint_token {
        Some(authors::rotate_token(ctx, &author.id).await?.token)
    } else {
        None
    };
    let token_text = token
        .clone()
        .unwrap_or_else(|| format!("<the token of {}>", author.name));
    let data_dir = ctx.data_dir().display().to_string();
    let url = format!("http://127.0.0.1:{}/mcp", local_server::port(ctx).await?);
    let text = match (request.client, request.transport) {
        (AiClient::ClaudeCode, McpTransport::Stdio) => {
            let mut parts = vec![
                "claude mcp add".to_owned(),
                SERVER_NAME.to_owned(),
                "--scope user".to_owned(),
            ];
            if needs {
                parts.push(format!("--env COLMENA_TOKEN={}", shell_word(&token_text)));
            }
            parts.push("--".to_owned());
            parts.push(shell_word(program));
            parts.push("mcp --data-dir".to_owned());
            parts.push(shell_word(&data_dir));
            parts.join(" ")
        }
        (AiClient::ClaudeCode, McpTransport::Http) => format!(
            "claude mcp add --transport http {SERVER_NAME} --scope user {url} --header {}",
            shell_word(&format!("Authorization: Bearer {token_text}"))
        ),
        (_, McpTransport::Stdio) => servers(LocalServer {
            command: program.to_owned(),
            args: vec!["mcp".into(), "--data-dir".into(), data_dir],
            env: needs.then_some(Env {
                colmena_token: token_text,
            }),
        })?,
        (_, McpTransport::Http) => servers(RemoteServer {
            url: url.clone(),
            headers: Headers {
                authorization: format!("Bearer {token_text}"),
            },
        })?,
    };
    let where_to = match request.client {
        AiClient::ClaudeCode => "Run it in a terminal; `claude mcp list` shows colmena.",
        AiClient::ClaudeDesktop => {
            "Merge it into claude_desktop_config.json (Settings → Developer → Edit Config), then restart Claude Desktop."
        }
        AiClient::Cursor => "Merge it into ~/.cursor/mcp.json (or .cursor/mcp.json in a project).",
    };
    Ok(ClientConfig {
        client: request.client,
        transport: request.transport,
        author: author.id,
        text,
        where_to: where_to.to_owned(),
        needs_token: needs && token.is_none(),
        token_minted: token.is_some(),
        endpoint: match request.transport {
            McpTransport::Http => url,
            McpTransport::Stdio => program.to_owned(),
        },
    })
}

/// The `colmena` program an AI client should start: the one installed next
/// to `beside` (the desktop app's own executable: `/usr/bin/colmena-desktop`
/// sits next to `/usr/bin/colmena`), else `colmena` from the PATH.
pub fn cli_program(beside: Option<&std::path::Path>) -> String {
    let name = if cfg!(windows) {
        "colmena.exe"
    } else {
        "colmena"
    };
    beside
        .and_then(|exe| exe.parent())
        .map(|dir| dir.join(name))
        .filter(|cli| cli.is_file())
        .map_or_else(|| name.to_owned(), |cli| cli.display().to_string())
}

// The `mcpServers` entries, fields in the order people expect to read them.

#[derive(Serialize)]
struct LocalServer {
    command: String,
    args: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    env: Option<Env>,
}

#[derive(Serialize)]
struct Env {
    #[serde(rename = "COLMENA_TOKEN")]
    colmena_token: String,
}

#[derive(Serialize)]
struct RemoteServer {
    url: String,
    headers: Headers,
}

#[derive(Serialize)]
struct Headers {
    #[serde(rename = "Authorization")]
    authorization: String,
}

#[derive(Serialize)]
struct McpServers<T> {
    #[serde(rename = "mcpServers")]
    servers: Named<T>,
}

/// Keyed by [`SERVER_NAME`].
#[derive(Serialize)]
struct Named<T> {
    colmena: T,
}

/// `{"mcpServers": {"colmena": server}}`, pretty.
fn servers<T: Serialize>(server: T) -> Result<String> {
    let config = McpServers {
        servers: Named { colmena: server },
    };
    Ok(serde_json::to_string_pretty(&config)?)
}

/// A word as a POSIX shell reads it: quoted when it needs to be.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@,+".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn shell_words_survive_spaces_and_quotes() {
        assert_eq!(shell_word("/usr/bin/colmena"), "/usr/bin/colmena");
        assert_eq!(shell_word("/home/a b/ws"), "'/home/a b/ws'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
