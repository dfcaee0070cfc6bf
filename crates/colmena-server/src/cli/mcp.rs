//! `colmena mcp`: Colmena as an MCP server over stdio, for clients that
//! start their servers (Claude Code, Claude Desktop, Cursor); and `colmena
//! mcp config`, the exact configuration for one of them.

use crate::mcp;
use clap::{Args, Subcommand};
use colmena_core::connect::{self, AiClient, ConnectRequest, McpTransport};
use colmena_core::{AppError, Ctx, Result};

use super::output::Output;

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Acts as the author whose bearer token this is (default: the owner).
    #[arg(long, env = "COLMENA_TOKEN", hide_env_values = true)]
    token: Option<String>,
    #[command(subcommand)]
    command: Option<McpCommand>,
}

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Print the configuration that connects an AI client to Colmena.
    Config {
        /// claude-code, claude-desktop or cursor.
        #[arg(long)]
        client: String,
        /// stdio (the client starts `colmena mcp`) or http (the local server).
        #[arg(long, default_value = "stdio")]
        transport: String,
        /// The author the client acts as (default: the owner).
        #[arg(long = "as", value_name = "AUTHOR")]
        author: Option<String>,
        /// Mint a new token for the author and put it in the configuration
        /// (the author's previous token stops working).
        #[arg(long)]
        mint_token: bool,
    },
}

pub async fn run(ctx: &Ctx, out: &Output, args: McpArgs) -> Result<()> {
    match args.command {
        None => {
            let caller = mcp::stdio_caller(ctx, args.token.as_deref()).await?;
            mcp::serve_stdio(ctx.clone(), caller).await
        }
        Some(McpCommand::Config {
            client,
            transport,
            author,
            mint_token,
        }) => {
            let request = ConnectRequest {
                client: AiClient::parse(&client)?,
                transport: McpTransport::parse(&transport)?,
                author,
                mint_token,
            };
            // `colmena` beside this program: in the Linux packages this
            // program is the desktop binary, which the client must not start.
            let program = std::env::current_exe()
                .map_err(|e| AppError::internal(format!("where is this program? {e}")))?;
            let program = connect::cli_program(Some(&program));
            let config = connect::client_config(ctx, request, &program).await?;
            out.emit(&config, |c| {
                println!("{}", c.text);
                eprintln!("{}", c.where_to);
                if c.needs_token {
                    eprintln!(
                        "it needs {}'s token: add --mint-token to put a new one in (the previous one stops working)",
                        c.author
                    );
                }
            });
            Ok(())
        }
    }
}
