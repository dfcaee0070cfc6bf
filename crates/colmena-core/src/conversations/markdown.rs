//! A conversation as one Markdown file (issue 37: export a conversation, as
//! Claude Desktop and Jan do): its title, then every turn under who spoke —
//! "You", or the agent by name — with the images a message carried named
//! and the tools an answer called listed (their arguments and outputs stay
//! in the run's detail).

use super::{ChatMessage, MessageRole, get, history};
use crate::ctx::Ctx;
use crate::document::MarkdownDocument;
use crate::error::Result;
use crate::ids::AgentId;

/// The conversation `id` as Markdown.
pub async fn to_markdown(ctx: &Ctx, id: &str) -> Result<MarkdownDocument> {
    let conversation = get(ctx, id).await?;
    let messages = history(ctx, id).await?;
    let mut names = std::collections::HashMap::new();
    let agents: std::collections::BTreeSet<String> =
        messages.iter().filter_map(|m| m.agent_id.clone()).collect();
    for agent in agents {
        let name = crate::agents::get(ctx, &AgentId::from(agent.as_str()))
            .await
            .map(|a| a.name)
            .unwrap_or_else(|_| agent.clone());
        names.insert(agent, name);
    }
    let title = conversation.title.unwrap_or_else(|| "Conversation".into());
    let mut out = format!("# {title}\n");
    for message in &messages {
        let who = match (message.role, &message.agent_id) {
            (MessageRole::User, _) => "You",
            (_, Some(agent)) => names.get(agent).map_or(agent.as_str(), String::as_str),
            (MessageRole::Assistant, None) => "Assistant",
            (MessageRole::System | MessageRole::Tool, None) => continue,
        };
        out.push_str(&format!(
            "\n## {who} · {}\n\n",
            message.created_at.format("%Y-%m-%d %H:%M UTC")
        ));
        out.push_str(&turn(message));
    }
    Ok(MarkdownDocument::named(&title, "conversation", out))
}

/// One message's body: the tools it called, its text, its images.
fn turn(message: &ChatMessage) -> String {
    let mut out = String::new();
    if !message.tools.is_empty() {
        let tools: Vec<String> = message
            .tools
            .iter()
            .map(|t| format!("`{}`{}", t.name, if t.ok { "" } else { " (failed)" }))
            .collect();
        out.push_str(&format!("_Used {}_\n\n", tools.join(", ")));
    }
    out.push_str(message.content.trim_end());
    out.push('\n');
    if !message.images.is_empty() {
        let names: Vec<&str> = message.images.iter().map(|i| i.name.as_str()).collect();
        out.push_str(&format!("\n_Images: {}_\n", names.join(", ")));
    }
    out
}
