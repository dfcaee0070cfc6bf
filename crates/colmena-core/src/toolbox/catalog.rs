//! The tools Colmena's own code provides (SPEC H16: there is no `create_tool`;
//! a tool is code). Each has the description a model reads, a category, and
//! the JSON schema of its arguments. Rows in the `tools` table are re-seeded
//! from this list at every start (H17).
//!
//! `tools::builtin::MINIMAL_TOOLS` are what a coordinator always needs —
//! delegate, search, remember, notify — and stay active whatever
//! specialists are installed. The list stands above `contracts/` (many
//! schemas are an operation's contract); the workspace hands it to the
//! re-seed as it opens.
//!
//! Every tool listed here runs for real (`toolbox::builtins`): a capability
//! this build does not have is not listed, rather than listed and refusing
//! (browsers come from an MCP server such as Playwright's). The `cron_*`
//! tools manage real scheduled jobs (`crate::cron`); `cron_trigger` fails
//! when no scheduler runs rather than pretend. `tests/every_tool_is_real.rs`
//! calls each one.

use crate::contracts::{self, bus, cron, hive};
use crate::tools::builtin::{Parameters, ToolDef};

macro_rules! tool {
    ($name:literal, $category:literal, $description:literal, contract = $input:ty) => {
        ToolDef {
            name: $name,
            category: $category,
            description: $description,
            parameters: Parameters::Contract(contracts::input_schema_text::<$input>),
        }
    };
    ($name:literal, $category:literal, $description:literal, $parameters:literal) => {
        ToolDef {
            name: $name,
            category: $category,
            description: $description,
            parameters: Parameters::Written($parameters),
        }
    };
}

/// Every built-in tool, grouped by category.
pub const BUILTIN_TOOLS: &[ToolDef] = &[
    // -- coordination (minimal) --------------------------------------------
    tool!(
        "delegate_task",
        "coordination",
        "Hand a task to another agent of the hive and wait for its answer. Use it when a specialist is better placed to do part of the work.",
        r#"{"type":"object","properties":{"agent_id":{"type":"string","description":"Id of the agent to delegate to (see list_agents)"},"task":{"type":"string","minLength":1,"description":"What the agent must do, with all the context it needs"}},"required":["agent_id","task"],"additionalProperties":false}"#
    ),
    tool!(
        "list_agents",
        "coordination",
        "List the agents you may hand work to (your swarm's members, or the agents a person listed for you), with what each one is good at.",
        r#"{"type":"object","properties":{},"additionalProperties":false}"#
    ),
    tool!(
        "search_catalog",
        "knowledge",
        "Search the hive's skills, tools and your memories by keywords (BM25). Returns the best matches with a snippet.",
        contract = hive::SearchArgs
    ),
    tool!(
        "load_skill",
        "knowledge",
        "Load the full instructions of a skill by its name, when its description says it fits the task at hand.",
        r#"{"type":"object","properties":{"name":{"type":"string","pattern":"^[a-z0-9]+(-[a-z0-9]+)*$"}},"required":["name"],"additionalProperties":false}"#
    ),
    tool!(
        "memory_search",
        "memory",
        "Search the user's long-term memory by keywords. Returns matching memories with a snippet.",
        contract = hive::SearchArgs
    ),
    tool!(
        "memory_read",
        "memory",
        "Read one of the user's memories by its title.",
        contract = hive::MemoryReadArgs
    ),
    tool!(
        "memory_write",
        "memory",
        "Save or replace a memory for the user under a title, to recall it in later conversations.",
        contract = hive::MemoryWriteArgs
    ),
    tool!(
        "notify_user",
        "coordination",
        "Send the user a desktop notification: for results they are waiting for or for decisions only they can make.",
        r#"{"type":"object","properties":{"title":{"type":"string","minLength":1,"maxLength":120},"body":{"type":"string","maxLength":2000},"urgent":{"type":"boolean","default":false}},"required":["title"],"additionalProperties":false}"#
    ),
    // -- bus (given to a role when it is woken, SPEC B4, B6) ------------------
    tool!(
        "send_message",
        "bus",
        "Send a message on the bus to another author (a role or a person), by name. Urgent wakes a role at once.",
        contract = bus::SendMessageArgs
    ),
    tool!(
        "read_inbox",
        "bus",
        "Read your bus inbox, oldest first; the messages returned are marked read.",
        contract = bus::ReadInboxArgs
    ),
    tool!(
        "list_sent",
        "bus",
        "List the messages you sent on the bus, oldest first (to confirm delivery).",
        contract = bus::ListSentArgs
    ),
    // -- web ----------------------------------------------------------------
    tool!(
        "web_search",
        "web",
        "Search the web through the search service the person configured (SearXNG, Brave Search or Tavily) and return result titles, URLs and snippets; read a result with web_fetch.",
        r#"{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":400,"description":"What to search for, as you would type it into a search engine"},"limit":{"type":"integer","minimum":1,"maximum":20,"default":5,"description":"Most results to return"}},"required":["query"],"additionalProperties":false}"#
    ),
    tool!(
        "web_fetch",
        "web",
        "Fetch a web page or file over HTTP(S) and return its readable text (size and time limited).",
        r#"{"type":"object","properties":{"url":{"type":"string","format":"uri"},"max_bytes":{"type":"integer","minimum":1024,"maximum":5242880,"default":1048576},"timeout_seconds":{"type":"integer","minimum":1,"maximum":60,"default":20}},"required":["url"],"additionalProperties":false}"#
    ),
    // -- files --------------------------------------------------------------
    tool!(
        "fs_list",
        "files",
        "List the entries of a folder inside the agent's workspace.",
        r#"{"type":"object","properties":{"path":{"type":"string","default":"."},"recursive":{"type":"boolean","default":false}},"additionalProperties":false}"#
    ),
    tool!(
        "fs_read",
        "files",
        "Read a text file inside the agent's workspace.",
        r#"{"type":"object","properties":{"path":{"type":"string"},"max_bytes":{"type":"integer","minimum":1,"default":262144}},"required":["path"],"additionalProperties":false}"#
    ),
    tool!(
        "fs_write",
        "files",
        "Create or overwrite a text file inside the agent's workspace.",
        r#"{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}"#
    ),
    tool!(
        "fs_search",
        "files",
        "Search file names and contents inside the agent's workspace.",
        r#"{"type":"object","properties":{"query":{"type":"string","minLength":1},"path":{"type":"string","default":"."}},"required":["query"],"additionalProperties":false}"#
    ),
    tool!(
        "fs_move",
        "files",
        "Move or rename a file or folder inside the agent's workspace.",
        r#"{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"}},"required":["from","to"],"additionalProperties":false}"#
    ),
    tool!(
        "fs_delete",
        "files",
        "Delete a file or an empty folder inside the agent's workspace.",
        r#"{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}"#
    ),
    // -- software -----------------------------------------------------------
    tool!(
        "cli_exec",
        "software",
        "Run a command in the agent's workspace with a time limit and return its exit status and output.",
        r#"{"type":"object","properties":{"command":{"type":"string","minLength":1},"args":{"type":"array","items":{"type":"string"}},"timeout_seconds":{"type":"integer","minimum":1,"maximum":600,"default":60}},"required":["command"],"additionalProperties":false}"#
    ),
    tool!(
        "git_status",
        "software",
        "Show the working-tree status of the git repository in the agent's workspace.",
        r#"{"type":"object","properties":{},"additionalProperties":false}"#
    ),
    tool!(
        "git_diff",
        "software",
        "Show the changes of the working tree, or between two revisions.",
        r#"{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"},"path":{"type":"string"}},"additionalProperties":false}"#
    ),
    tool!(
        "git_log",
        "software",
        "Show recent commits, optionally for one path.",
        r#"{"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":200,"default":20},"path":{"type":"string"}},"additionalProperties":false}"#
    ),
    tool!(
        "git_commit",
        "software",
        "Commit the staged changes (or the given paths) with a message.",
        r#"{"type":"object","properties":{"message":{"type":"string","minLength":1},"paths":{"type":"array","items":{"type":"string"}}},"required":["message"],"additionalProperties":false}"#
    ),
    // -- data ---------------------------------------------------------------
    tool!(
        "data_query_csv",
        "data",
        "Run one read-only SQL SELECT over CSV, TSV, JSON or JSON Lines files of your workspace. Each file is loaded as a table named after its file name (sales-2024.csv → sales_2024; the answer lists the tables and columns); returns the columns and rows as JSON.",
        r#"{"type":"object","properties":{"files":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":8,"description":"Paths relative to your workspace (.csv, .tsv, .json holding an array of objects, .jsonl)"},"sql":{"type":"string","minLength":1,"maxLength":20000,"description":"One SELECT (or WITH … SELECT) statement over the tables"},"max_rows":{"type":"integer","minimum":1,"maximum":1000,"default":100,"description":"Most rows to return"}},"required":["files","sql"],"additionalProperties":false}"#
    ),
    tool!(
        "data_describe",
        "data",
        "Summarise a CSV, TSV, JSON or JSON Lines file of your workspace: its table name, row count, each column's inferred type, missing values, distinct values, min, max and mean of numbers, and a few sample rows.",
        r#"{"type":"object","properties":{"file":{"type":"string","description":"Path relative to your workspace"},"sample_rows":{"type":"integer","minimum":0,"maximum":20,"default":5}},"required":["file"],"additionalProperties":false}"#
    ),
    tool!(
        "data_chart",
        "data",
        "Draw a bar, line or scatter chart of a CSV, TSV, JSON or JSON Lines file of your workspace (optionally of a SELECT over its table) and write it as an SVG file into your workspace; returns the file's path.",
        r#"{"type":"object","properties":{"file":{"type":"string","description":"Path relative to your workspace"},"sql":{"type":"string","maxLength":20000,"description":"A SELECT over the file's table giving the rows to draw (default: every row, in file order)"},"kind":{"type":"string","enum":["bar","line","scatter"]},"x":{"type":"string","description":"Column for the horizontal axis (numeric for scatter)"},"y":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":6,"description":"Numeric column(s) to draw, one series each"},"title":{"type":"string","maxLength":200},"output":{"type":"string","description":"Where to write the SVG, relative to your workspace (default charts/<title or file name>.svg)"}},"required":["file","kind","x","y"],"additionalProperties":false}"#
    ),
    // -- documents ----------------------------------------------------------
    tool!(
        "doc_outline",
        "documents",
        "Return the heading outline of a markdown document, to plan or check its structure.",
        r#"{"type":"object","properties":{"markdown":{"type":"string"}},"required":["markdown"],"additionalProperties":false}"#
    ),
    tool!(
        "doc_stats",
        "documents",
        "Count words, sentences and reading time of a text, and flag very long sentences.",
        r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}"#
    ),
    // -- images -------------------------------------------------------------
    tool!(
        "image_metadata",
        "images",
        "Read an image artifact's width, height and format.",
        r#"{"type":"object","properties":{"artifact_id":{"type":"string"}},"required":["artifact_id"],"additionalProperties":false}"#
    ),
    tool!(
        "image_transform",
        "images",
        "Resize, crop or convert an image artifact; returns a new artifact id with its width, height and format.",
        r#"{"type":"object","properties":{"artifact_id":{"type":"string"},"width":{"type":"integer","minimum":1},"height":{"type":"integer","minimum":1},"format":{"type":"string","enum":["png","jpeg","webp"]},"crop":{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"integer"},"width":{"type":"integer"},"height":{"type":"integer"}}}},"required":["artifact_id"],"additionalProperties":false}"#
    ),
    // -- scheduling (SPEC H25) ------------------------------------------------
    tool!(
        "cron_create",
        "scheduling",
        "Schedule a job: run an agent or a swarm with a prompt (a role's wake-ups are set up by a person in Cron), on a cron expression (five fields, read in the job's IANA time zone: 0 8 * * 1-5 is weekdays at 8:00) or every N seconds (at least 60). Missed runs while no scheduler ran are skipped, or run once with missed=run_once. Returns the job with its next run (UTC).",
        contract = crate::cron::NewCronJob
    ),
    tool!(
        "cron_list",
        "scheduling",
        "List the scheduled jobs: schedule, time zone, target, paused or not, next run (UTC) and the latest run's status.",
        r#"{"type":"object","properties":{},"additionalProperties":false}"#
    ),
    tool!(
        "cron_update",
        "scheduling",
        "Change a scheduled job: only the fields given in changes change; a new schedule or time zone recomputes its next run.",
        contract = cron::CronUpdateArgs
    ),
    tool!(
        "cron_pause",
        "scheduling",
        "Pause a scheduled job: it does not run until resumed, and nothing counts as missed meanwhile.",
        contract = cron::CronJobArgs
    ),
    tool!(
        "cron_resume",
        "scheduling",
        "Resume a paused job; its next run counts from now.",
        contract = cron::CronJobArgs
    ),
    tool!(
        "cron_trigger",
        "scheduling",
        "Run a scheduled job now, once, through the running scheduler (it fails when no scheduler runs: the app or colmena serve must be running). See the run in cron_history.",
        contract = cron::CronJobArgs
    ),
    tool!(
        "cron_history",
        "scheduling",
        "A scheduled job's runs, newest first: trigger, status (running, succeeded, failed, skipped), duration, the run it produced and the error.",
        contract = cron::CronHistoryArgs
    ),
    tool!(
        "cron_delete",
        "scheduling",
        "Delete a scheduled job and its history.",
        contract = cron::CronJobArgs
    ),
];

pub fn find(name: &str) -> Option<&'static ToolDef> {
    BUILTIN_TOOLS.iter().find(|t| t.name == name)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::tools::builtin::MINIMAL_TOOLS;

    #[test]
    fn h31_there_are_eight_minimal_tools_and_all_are_in_the_catalog() {
        assert_eq!(MINIMAL_TOOLS.len(), 8);
        for name in MINIMAL_TOOLS {
            assert!(find(name).is_some(), "{name} is not in the catalog");
        }
    }

    #[test]
    fn h16_every_tool_has_a_unique_name_a_description_and_an_object_schema() {
        let mut seen = HashSet::new();
        for tool in BUILTIN_TOOLS {
            assert!(seen.insert(tool.name), "{} twice", tool.name);
            assert!(
                tool.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{}",
                tool.name
            );
            assert!(
                tool.description.len() > 20,
                "{} has no real description",
                tool.name
            );
            let schema: serde_json::Value = serde_json::from_str(&tool.parameters())
                .unwrap_or_else(|e| panic!("{}: bad schema: {e}", tool.name));
            assert_eq!(schema["type"], "object", "{}", tool.name);
            if let Some(required) = schema["required"].as_array() {
                for field in required {
                    let field = field.as_str().unwrap();
                    assert!(
                        schema["properties"][field].is_object(),
                        "{}: {field}",
                        tool.name
                    );
                }
            }
        }
    }
}
