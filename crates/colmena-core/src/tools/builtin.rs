//! What a built-in tool is ([`ToolDef`]: its name, category, description
//! and where its argument schema comes from) and which of them every hive
//! keeps active ([`MINIMAL_TOOLS`]).
//!
//! The list of built-in tools itself is `toolbox::catalog`: many of its
//! schemas are the operations' contracts, which stand above the nouns.
//! The tool rows (`tools::reseed`) and selective seeding (`setup`) are
//! handed that list by the workspace as it opens, and read the minimal
//! tools here.

/// One built-in tool.
#[derive(Debug, Clone, Copy)]
pub struct ToolDef {
    pub name: &'static str,
    pub category: &'static str,
    pub description: &'static str,
    pub(crate) parameters: Parameters,
}

/// Where a tool's argument schema comes from: the operation's contract
/// (shared with the MCP tools, SPEC X2) or, for tools only agents have,
/// the schema written here.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Parameters {
    Written(&'static str),
    Contract(fn() -> String),
}

impl ToolDef {
    /// JSON schema (draft 2020-12) of the arguments object.
    pub fn parameters(&self) -> String {
        match self.parameters {
            Parameters::Written(schema) => schema.to_owned(),
            Parameters::Contract(schema) => schema(),
        }
    }
}

/// The tools that are active in every hive (SPEC H31, H32).
pub const MINIMAL_TOOLS: [&str; 8] = [
    "delegate_task",
    "list_agents",
    "search_catalog",
    "load_skill",
    "memory_search",
    "memory_read",
    "memory_write",
    "notify_user",
];

pub fn is_minimal(name: &str) -> bool {
    MINIMAL_TOOLS.contains(&name)
}
