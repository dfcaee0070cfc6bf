//! Ready-made servers a person adds with one click. The browser abilities
//! of the catalog come from here: the Playwright MCP server (npm
//! `@playwright/mcp`) driving the Chromium installed on this computer —
//! Playwright's own browser downloads are not needed, and a page is a real
//! page in a real browser.

use serde::{Deserialize, Serialize};

use super::config::{McpServerInput, McpTransportInput};

/// A preset as the add dialog lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct McpPreset {
    pub id: String,
    pub name: String,
    pub description: String,
    /// What it needs on this computer that is missing, if anything.
    pub missing: Option<String>,
    pub input: McpServerInput,
}

/// Where the system Chromium (or Chrome) is, if anywhere.
pub fn system_chromium() -> Option<std::path::PathBuf> {
    let names = [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ];
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|candidate| candidate.is_file())
}

/// The presets, filled in for this computer.
pub fn presets() -> Vec<McpPreset> {
    let chromium = system_chromium();
    let mut args = vec![
        "-y".to_owned(),
        "@playwright/mcp@0.0.83".to_owned(),
        "--headless".to_owned(),
        "--isolated".to_owned(),
    ];
    if let Some(path) = &chromium {
        args.push("--executable-path".into());
        args.push(path.display().to_string());
    }
    vec![
        McpPreset {
            id: "playwright".into(),
            name: "Playwright browser".into(),
            description: "A real Chromium the agent drives: open pages, click, type, read, take screenshots (tools mcp__playwright__browser_*).".into(),
            missing: chromium
                .is_none()
                .then(|| "Chromium is not installed (Debian: apt install chromium)".to_owned()),
            input: McpServerInput {
                name: "playwright".into(),
                transport: McpTransportInput::Stdio {
                    command: "npx".into(),
                    args,
                    env: Vec::new(),
                    cwd: None,
                },
                enabled: Some(true),
                timeout_seconds: Some(120),
                preset: Some("playwright".into()),
            },
        },
        McpPreset {
            id: "filesystem".into(),
            name: "Files of a folder".into(),
            description: "Read, search and write the files of one folder you choose (the reference server-filesystem).".into(),
            missing: None,
            input: McpServerInput {
                name: "filesystem".into(),
                transport: McpTransportInput::Stdio {
                    command: "npx".into(),
                    args: vec![
                        "-y".into(),
                        "@modelcontextprotocol/server-filesystem".into(),
                        dirs::document_dir()
                            .or_else(dirs::home_dir)
                            .map(|d| d.display().to_string())
                            .unwrap_or_else(|| "/tmp".into()),
                    ],
                    env: Vec::new(),
                    cwd: None,
                },
                enabled: Some(true),
                timeout_seconds: None,
                preset: Some("filesystem".into()),
            },
        },
    ]
}
