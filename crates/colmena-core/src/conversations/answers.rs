//! What an answer in a conversation carried besides its text: the tools its
//! run called and the tokens it used (issue 37: a reopened conversation
//! shows them as they were when the answer was written, as Claude Desktop
//! and Jan do). Read from the run's own steps and record when the history
//! is read, so nothing is kept twice.

use rusqlite::{Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ChatMessage, MessageRole};
use crate::error::Result;
use crate::llm::Usage;
use crate::runs::stored_count;

/// The longest tool output a history carries; the run's detail has it whole.
const OUTPUT_CHARS: usize = 4_000;

/// One tool call an answer's run made, and how it went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct MessageTool {
    pub call_id: String,
    /// The tool's id (the window shows its title).
    pub name: String,
    /// The arguments as the model wrote them (JSON text).
    pub arguments: String,
    pub ok: bool,
    /// The permission gate refused it: it did not run.
    pub denied: bool,
    /// What it answered, cut at 4,000 characters.
    pub output: String,
}

/// Fills in each answer's tools and token counts from the run it came from.
pub(crate) fn attach(conn: &Connection, messages: &mut [ChatMessage]) -> Result<()> {
    let mut usage = conn.prepare_cached(
        "SELECT prompt_tokens, prompt_tokens_reported, completion_tokens, completion_tokens_reported
         FROM runs WHERE id = ?1",
    )?;
    let mut steps = conn.prepare_cached(
        "SELECT content FROM run_steps WHERE run_id = ?1 AND kind = 'tool_result' ORDER BY seq",
    )?;
    for message in messages.iter_mut() {
        let (MessageRole::Assistant, Some(run)) = (message.role, message.run_id.as_deref()) else {
            continue;
        };
        message.usage = usage
            .query_row([run], |r| {
                Ok(Usage {
                    prompt_tokens: stored_count(r.get(0)?, r.get(1)?),
                    completion_tokens: stored_count(r.get(2)?, r.get(3)?),
                })
            })
            .optional()?;
        let contents = steps
            .query_map([run], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        message.tools = contents.iter().filter_map(|c| tool_of(c)).collect();
    }
    Ok(())
}

/// A `tool_result` step as the conversation shows it; `None` when the
/// stored step is unreadable (it is then left out, not guessed).
fn tool_of(content: &str) -> Option<MessageTool> {
    let step: Value = serde_json::from_str(content).ok()?;
    let text = |key: &str| step[key].as_str().map(str::to_owned);
    Some(MessageTool {
        call_id: text("callId")?,
        name: text("name")?,
        arguments: text("arguments").unwrap_or_default(),
        ok: step["ok"].as_bool().unwrap_or(false),
        denied: step["denied"].as_bool().unwrap_or(false),
        output: cut(&text("output").unwrap_or_default()),
    })
}

fn cut(output: &str) -> String {
    let total = output.chars().count();
    if total <= OUTPUT_CHARS {
        return output.to_owned();
    }
    let head: String = output.chars().take(OUTPUT_CHARS).collect();
    format!("{head}… ({} more characters)", total - OUTPUT_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_tool_result_reads_back_and_a_long_output_is_cut() {
        let long = "x".repeat(OUTPUT_CHARS + 5);
        let step = serde_json::json!({
            "callId": "c1", "name": "web_fetch", "arguments": "{\"url\":\"http://a\"}",
            "ok": true, "denied": false, "output": long,
        });
        let tool = tool_of(&step.to_string()).unwrap_or_else(|| panic!("unreadable"));
        assert_eq!(tool.name, "web_fetch");
        assert!(tool.output.ends_with("… (5 more characters)"));
        assert_eq!(tool_of("not json"), None);
        assert_eq!(
            tool_of("{\"name\":\"x\"}"),
            None,
            "a step without its call id is left out"
        );
    }
}
