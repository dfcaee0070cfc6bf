//! `colmena-scripted-llm --port PORT --script FILE`: the scripted provider as
//! a process, for the end-to-end tests and manual runs of the app. The script
//! file is `{"rules": [...], "models": [...]}`; `models` (optional) is what
//! it lists at `/v1/models` and `/api/tags`.

use std::net::SocketAddr;

use colmena_scripted_llm::{Script, ScriptedLlm};
use serde::Deserialize;

#[derive(Default, Deserialize)]
struct ScriptFile {
    #[serde(flatten)]
    script: Script,
    #[serde(default)]
    models: Vec<String>,
}

#[tokio::main]
async fn main() {
    let mut port = 0u16;
    let mut script_path = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => port = args.next().and_then(|p| p.parse().ok()).unwrap_or(0),
            "--script" => script_path = args.next(),
            other => {
                eprintln!(
                    "unknown argument {other}; usage: colmena-scripted-llm --port PORT --script FILE"
                );
                std::process::exit(2);
            }
        }
    }
    let file: ScriptFile = match script_path {
        None => ScriptFile::default(),
        Some(path) => {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
                eprintln!("cannot read {path}: {e}");
                std::process::exit(2);
            });
            serde_json::from_str(&text).unwrap_or_else(|e| {
                eprintln!("{path} is not a script: {e}");
                std::process::exit(2);
            })
        }
    };
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let server = ScriptedLlm::start_listing(addr, file.script, &file.models)
        .await
        .unwrap_or_else(|e| {
            eprintln!("cannot listen on {addr}: {e}");
            std::process::exit(1);
        });
    println!("listening on http://{}", server.addr());
    let _ = tokio::signal::ctrl_c().await;
}
