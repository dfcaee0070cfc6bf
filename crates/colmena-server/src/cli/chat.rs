//! `colmena chat AGENT`: talk with one agent in a conversation, its answer
//! streaming as it is written. Reads lines from stdin (a prompt when it is a
//! terminal); `/resume` goes on with an interrupted run, `/quit` leaves.
//! `--image FILE` attaches images to the first message sent (the agent's
//! model must accept images; they are sent again with every later turn).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Mutex;

use clap::Args;
use colmena_core::conversations;
use colmena_core::ids::AgentId;
use colmena_core::runtime::{chat, resume};
use colmena_core::{Ctx, Result, agents};
use tokio::io::{AsyncBufReadExt, BufReader};

use super::output::Output;
use super::stream::{RunPrinter, outcome, watch};
use super::swarm::credentials_from_env;

#[derive(Debug, Args)]
pub struct ChatArgs {
    agent: String,
    /// Go on in this conversation (default: a new one).
    #[arg(long)]
    conversation: Option<String>,
    /// Send these messages one after another and leave, instead of reading stdin.
    #[arg(long = "message", short = 'm')]
    messages: Vec<String>,
    /// Read the API key for these runs from this environment variable.
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
    /// Attach this image file to the first message (repeat for more).
    #[arg(long = "image", value_name = "FILE")]
    images: Vec<PathBuf>,
}

pub async fn run(ctx: &Ctx, out: &Output, args: ChatArgs) -> Result<()> {
    let agent = agents::get(ctx, &AgentId(args.agent)).await?;
    let conversation = match &args.conversation {
        Some(id) => conversations::get(ctx, id).await?,
        None => conversations::create_web_conversation(ctx, None, Some(agent.id.as_str())).await?,
    };
    let credentials = credentials_from_env(args.api_key_env.as_deref())?;
    let interactive = args.messages.is_empty() && std::io::stdin().is_terminal();
    if out.json {
        println!(
            "{}",
            serde_json::json!({ "type": "conversation", "conversationId": conversation.id, "agentId": agent.id })
        );
    } else if interactive {
        println!(
            "talking with {} — conversation {}",
            agent.name, conversation.id
        );
        println!("(/resume goes on with an interrupted run, /quit leaves)");
    }
    if let Some(offer) = conversations::resume(ctx, &conversation.id).await? {
        eprintln!(
            "run {} was interrupted after {} messages; type /resume to go on with it",
            offer.run.id, offer.checkpoint_messages
        );
    }

    // The images are stored before anything is said: a file that cannot be
    // read fails the command at once.
    let mut attached = Vec::new();
    for path in &args.images {
        let artifact = colmena_core::images::upload_file(ctx, &conversation.user_id, path).await?;
        attached.push(artifact.id);
    }
    // Taken by the first message.
    let pending = Mutex::new(attached);
    let say = |text: String| {
        let credentials = credentials.clone();
        let images = pending
            .lock()
            .map(|mut p| std::mem::take(&mut *p))
            .unwrap_or_default();
        let (agent, conversation) = (agent.id.clone(), conversation.id.clone());
        async move {
            let printer = RunPrinter::new(out.json);
            if text.trim() == "/resume" {
                let Some(offer) = conversations::resume(ctx, &conversation).await? else {
                    eprintln!("nothing to resume in this conversation");
                    return Ok(());
                };
                let run = resume::resume_run(ctx, &offer.run.id, printer.sink());
                return outcome(watch(ctx, &printer, run).await?, out.json).map(|_| ());
            }
            let run = chat::send_with_images(
                ctx,
                &conversation,
                Some(&agent),
                &text,
                &images,
                credentials,
                printer.sink(),
            );
            outcome(watch(ctx, &printer, run).await?, out.json).map(|_| ())
        }
    };

    if !args.messages.is_empty() {
        for text in args.messages {
            say(text).await?;
        }
        return Ok(());
    }
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut last = Ok(());
    loop {
        if interactive {
            print!("you> ");
            let _ = std::io::stdout().flush();
        }
        let line = tokio::select! {
            line = lines.next_line() => line,
            _ = tokio::signal::ctrl_c() => break,
        };
        let Some(line) =
            line.map_err(|e| colmena_core::AppError::internal(format!("cannot read stdin: {e}")))?
        else {
            break;
        };
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        if text == "/quit" {
            break;
        }
        // A failed turn is reported and the conversation goes on.
        last = say(text.to_owned()).await;
        if let Err(e) = &last {
            super::output::print_error(e, out.json);
        }
    }
    // Reading a script from stdin: the last turn decides the exit status.
    if interactive { Ok(()) } else { last }
}
