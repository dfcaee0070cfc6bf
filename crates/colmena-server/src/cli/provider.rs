use std::io::Read;

use clap::{Args, Subcommand};
use colmena_core::ids::ProviderId;
use colmena_core::providers::{self, NewProvider, Provider, ProviderUpdate};
use colmena_core::{AppError, Ctx, Result};

use super::output::{Output, SwitchArgs, table, yes_no};

#[derive(Debug, Subcommand)]
pub enum ProviderCommand {
    /// Add a provider.
    Add {
        /// Display name; the id is derived from it ("LM Studio" → lm_studio).
        name: String,
        /// openai_compatible (or openai), anthropic, ollama.
        #[arg(long)]
        kind: String,
        /// API base URL (default: the kind's public endpoint).
        #[arg(long)]
        base_url: Option<String>,
        #[command(flatten)]
        key: KeyArgs,
    },
    /// List providers (keys are shown masked).
    List,
    /// Show one provider.
    Show { id: String },
    /// Change a provider's name, base URL or key.
    Update {
        id: String,
        #[arg(long)]
        name: Option<String>,
        #[arg(long)]
        base_url: Option<String>,
        #[command(flatten)]
        key: KeyArgs,
        /// Remove the stored API key.
        #[arg(long, conflicts_with_all = ["api_key", "api_key_stdin"])]
        remove_api_key: bool,
    },
    /// Switch a provider on or off (flips it without --on/--off). Its models follow.
    Toggle {
        id: String,
        #[command(flatten)]
        switch: SwitchArgs,
    },
    /// Delete a provider and its models (refused while agents use them).
    Remove { id: String },
}

#[derive(Debug, Args)]
pub struct KeyArgs {
    /// API key (visible to other local users in the process list; prefer --api-key-stdin).
    #[arg(long, conflicts_with = "api_key_stdin")]
    api_key: Option<String>,
    /// Read the API key from standard input.
    #[arg(long)]
    api_key_stdin: bool,
}

impl KeyArgs {
    pub(super) fn read(self) -> Result<Option<String>> {
        if self.api_key_stdin {
            let mut key = String::new();
            std::io::stdin()
                .read_to_string(&mut key)
                .map_err(|e| AppError::internal(format!("cannot read the key from stdin: {e}")))?;
            return Ok(Some(key));
        }
        Ok(self.api_key)
    }
}

pub async fn run(ctx: &Ctx, out: &Output, command: ProviderCommand) -> Result<()> {
    match command {
        ProviderCommand::Add {
            name,
            kind,
            base_url,
            key,
        } => {
            let input = NewProvider {
                name,
                kind,
                base_url,
                api_key: key.read()?,
            };
            let provider = providers::create(ctx, input).await?;
            out.emit(&provider, |p| {
                println!("added provider {} ({})", p.id, p.kind.as_str())
            });
        }
        ProviderCommand::List => {
            let list = providers::list(ctx).await?;
            out.emit(&list, |list| print_table(list));
        }
        ProviderCommand::Show { id } => {
            let provider = providers::get(ctx, &ProviderId(id)).await?;
            out.emit(&provider, |p| print_table(std::slice::from_ref(p)));
        }
        ProviderCommand::Update {
            id,
            name,
            base_url,
            key,
            remove_api_key,
        } => {
            let input = ProviderUpdate {
                name,
                base_url,
                api_key: key.read()?,
                remove_api_key,
            };
            let provider = providers::update(ctx, &ProviderId(id), input).await?;
            out.emit(&provider, |p| println!("updated provider {}", p.id));
        }
        ProviderCommand::Toggle { id, switch } => {
            let provider = providers::switch(ctx, &ProviderId(id), switch.target()).await?;
            out.emit(&provider, |p| {
                let state = if p.enabled { "enabled" } else { "disabled" };
                println!("provider {} is {state}", p.id);
            });
        }
        ProviderCommand::Remove { id } => {
            providers::delete(ctx, &ProviderId(id.clone())).await?;
            out.done(&format!("removed provider {id}"));
        }
    }
    Ok(())
}

fn print_table(list: &[Provider]) {
    table(
        &[
            "id", "name", "kind", "base url", "api key", "enabled", "models",
        ],
        list.iter()
            .map(|p| {
                vec![
                    p.id.to_string(),
                    p.name.clone(),
                    p.kind.as_str().to_owned(),
                    p.base_url.clone(),
                    p.api_key_masked.clone().unwrap_or_else(|| "—".into()),
                    yes_no(p.enabled),
                    p.model_count.to_string(),
                ]
            })
            .collect(),
    );
}
