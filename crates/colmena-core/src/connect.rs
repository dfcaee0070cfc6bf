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
use serde_json::json;

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
        (_, McpTransport::Stdio) => {
            let mut server = json!({
                "command": program,
                "args": ["mcp", "--data-dir", data_dir],
            });
            if needs {
                server["env"] = json!({ "COLMENA_TOKEN": token_text });
            }
            pretty(json!({ "mcpServers": { SERVER_NAME: server } }))?
        }
        (_, McpTransport::Http) => pretty(json!({ "mcpServers": { SERVER_NAME: {
            "url": url,
            "headers": { "Authorization": format!("Bearer {token_text}") },
        } } }))?,
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

fn pretty(value: serde_json::Value) -> Result<String> {
    Ok(serde_json::to_string_pretty(&value)?)
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
