//! Tool calls on a local model: the tools are described in the system turn
//! and a call is written as `<tool_call>{"name": …, "arguments": {…}}</tool_call>`
//! — the format Qwen 2.5 and the Hermes-style templates were trained on, so
//! models that know a tool format mostly know this one. From the opening
//! tag on, a lazy grammar holds the model to valid JSON naming one of the
//! offered tools; before it, the model writes freely.

use colmena_core::llm::local::wire::EngineTool;
use serde_json::{Value, json};

/// The tag that opens a tool call (and triggers the grammar).
pub(crate) const OPEN: &str = "<tool_call>";
pub(crate) const CLOSE: &str = "</tool_call>";

/// What the system turn gains when tools are offered.
pub(crate) fn system_addition(tools: &[EngineTool]) -> String {
    let list: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                }
            })
        })
        .collect();
    format!(
        "# Tools\n\nYou may call one or more tools to answer. The tools, as JSON:\n<tools>\n{}\n</tools>\n\n\
         To call a tool, write only this, once per call:\n\
         {OPEN}\n{{\"name\": <tool name>, \"arguments\": <arguments as a JSON object>}}\n{CLOSE}\n\
         Otherwise answer in plain text.",
        list.iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    )
}

/// The GBNF grammar of one or more calls to the offered tools.
pub(crate) fn grammar(tools: &[EngineTool]) -> String {
    let names = tools
        .iter()
        .map(|t| gbnf_literal(&Value::String(t.name.clone()).to_string()))
        .collect::<Vec<_>>()
        .join(" | ");
    format!(
        r#"root ::= call (ws call)* ws
call ::= "{OPEN}" ws "{{" ws "\"name\"" ws ":" ws name ws "," ws "\"arguments\"" ws ":" ws object ws "}}" ws "{CLOSE}"
name ::= {names}
object ::= "{{" ws ( string ws ":" ws value ( ws "," ws string ws ":" ws value )* )? ws "}}"
array ::= "[" ws ( value ( ws "," ws value )* )? ws "]"
value ::= object | array | string | number | "true" | "false" | "null"
string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{{4}} ) )* "\""
number ::= "-"? ( [0-9] | [1-9] [0-9]{{1,15}} ) ( "." [0-9]{{1,16}} )? ( [eE] [-+]? [0-9]{{1,4}} )?
ws ::= [ \t\n]{{0,8}}
"#
    )
}

/// `text` as a GBNF string literal.
fn gbnf_literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A call the model wrote: the tool's name and its arguments as JSON text.
#[derive(Debug, PartialEq)]
pub(crate) struct Call {
    pub name: String,
    pub arguments: String,
}

/// The calls in `text` (which starts at the first opening tag), or `None`
/// when they are not well formed (the answer was cut short).
pub(crate) fn parse_calls(text: &str, tools: &[EngineTool]) -> Option<Vec<Call>> {
    let mut calls = Vec::new();
    let mut rest = text.trim();
    while let Some(after) = rest.strip_prefix(OPEN) {
        let (body, tail) = after.split_once(CLOSE)?;
        let value: Value = serde_json::from_str(body.trim()).ok()?;
        let name = value["name"].as_str()?;
        if !tools.iter().any(|t| t.name == name) {
            return None;
        }
        let arguments = match &value["arguments"] {
            Value::Object(_) => value["arguments"].to_string(),
            _ => return None,
        };
        calls.push(Call {
            name: name.to_owned(),
            arguments,
        });
        rest = tail.trim();
    }
    (rest.is_empty() && !calls.is_empty()).then_some(calls)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools() -> Vec<EngineTool> {
        vec![EngineTool {
            name: "fs_read".into(),
            description: "Reads a file".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }]
    }

    #[test]
    fn calls_are_read_back_and_anything_else_is_not_a_call() {
        let text = "<tool_call>\n{\"name\": \"fs_read\", \"arguments\": {\"path\": \"a.txt\"}}\n</tool_call>\n\
                    <tool_call>{\"name\":\"fs_read\",\"arguments\":{}}</tool_call>";
        let calls = parse_calls(text, &tools()).unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].arguments, r#"{"path":"a.txt"}"#);
        assert_eq!(
            parse_calls("<tool_call>{\"name\":\"fs_read\"", &tools()),
            None
        );
        assert_eq!(
            parse_calls(
                "<tool_call>{\"name\":\"rm_rf\",\"arguments\":{}}</tool_call>",
                &tools()
            ),
            None,
            "a tool that was not offered"
        );
    }

    #[test]
    fn the_grammar_names_only_the_offered_tools() {
        let g = grammar(&tools());
        assert!(g.contains(r#"name ::= "\"fs_read\"""#), "{g}");
        assert!(system_addition(&tools()).contains("\"name\":\"fs_read\""));
    }
}
