//! `colmena web-search`: the search service `web_search` asks. One call to
//! `colmena_core::web_search` per verb; the key is read from a flag or
//! stdin and only ever printed masked.

use clap::Subcommand;
use colmena_core::web_search::{self, WebSearchConfig, WebSearchSettings};
use colmena_core::{Ctx, Result};

use super::output::{Output, table, yes_no};
use super::provider::KeyArgs;

#[derive(Debug, Subcommand)]
pub enum WebSearchCommand {
    /// Show the configured service (the key masked) and whether web_search is on.
    Show,
    /// Choose the service web_search asks, and switch the tool on.
    Set {
        /// searxng, brave or tavily.
        #[arg(long)]
        backend: String,
        /// The service's address (required for SearXNG, e.g. http://localhost:8080;
        /// default for Brave and Tavily: their public API).
        #[arg(long)]
        base_url: Option<String>,
        /// Brave and Tavily need a key; without one, the stored key is kept
        /// when the backend and host stay the same.
        #[command(flatten)]
        key: KeyArgs,
    },
    /// Forget the service and its key; web_search is switched off.
    Clear,
    /// Run one query against the configured service and print the results.
    Test {
        /// What to search for (default: "Colmena").
        query: Option<String>,
    },
    /// The services Colmena can ask, and which need a key.
    Backends,
}

pub async fn run(ctx: &Ctx, out: &Output, command: WebSearchCommand) -> Result<()> {
    match command {
        WebSearchCommand::Show => {
            let config = web_search::get(ctx).await?;
            out.emit(&config, print_config);
        }
        WebSearchCommand::Set {
            backend,
            base_url,
            key,
        } => {
            let input = WebSearchSettings {
                backend,
                base_url,
                api_key: key.read()?,
            };
            let config = web_search::set(ctx, input).await?;
            out.emit(&config, print_config);
        }
        WebSearchCommand::Clear => {
            let config = web_search::clear(ctx).await?;
            out.emit(&config, |_| {
                println!("web search cleared: web_search is switched off")
            });
        }
        WebSearchCommand::Test { query } => {
            let found = web_search::test(ctx, query).await?;
            out.emit(&found, |f| {
                println!(
                    "{} answered \"{}\" with {} result(s)",
                    f.backend.label(),
                    f.query,
                    f.results.len()
                );
                table(
                    &["title", "url"],
                    f.results
                        .iter()
                        .map(|r| vec![r.title.chars().take(60).collect(), r.url.clone()])
                        .collect(),
                );
            });
        }
        WebSearchCommand::Backends => {
            let list = web_search::backends();
            out.emit(&list, |list| {
                table(
                    &["backend", "name", "default base url", "needs key"],
                    list.iter()
                        .map(|b| {
                            vec![
                                b.backend.as_str().to_owned(),
                                b.label.clone(),
                                b.default_base_url.clone().unwrap_or_else(|| "—".into()),
                                yes_no(b.needs_api_key),
                            ]
                        })
                        .collect(),
                )
            });
        }
    }
    Ok(())
}

fn print_config(config: &WebSearchConfig) {
    let Some(backend) = config.backend else {
        println!(
            "no search service is configured: web_search is off \
             (colmena web-search set --backend searxng --base-url http://localhost:8080)"
        );
        return;
    };
    table(
        &["backend", "base url", "api key", "tool active"],
        vec![vec![
            backend.as_str().to_owned(),
            config.base_url.clone().unwrap_or_default(),
            config.api_key_masked.clone().unwrap_or_else(|| "—".into()),
            yes_no(config.tool_active),
        ]],
    );
}
