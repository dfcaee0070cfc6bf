//! Every built-in tool has a title people read, in each of the window's
//! languages (issue 37, item 6: `cli_exec` is "Run a command"; its id stays
//! secondary). The catalogs (`ui/src/i18n/locales/<lang>/toolTitles.json`)
//! are read from the repository, so a tool added without its words fails
//! here instead of showing its id in the window.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use colmena_core::toolbox::catalog::BUILTIN_TOOLS;

#[test]
fn every_builtin_tool_has_a_title_in_every_language() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/i18n/locales");
    let mut missing = Vec::new();
    for lang in ["en", "es"] {
        let text = std::fs::read_to_string(dir.join(lang).join("toolTitles.json")).unwrap();
        let catalog: serde_json::Value = serde_json::from_str(&text).unwrap();
        for tool in BUILTIN_TOOLS {
            let title = catalog["toolTitles"][tool.name].as_str().unwrap_or("");
            if title.trim().is_empty() {
                missing.push(format!("{lang}: toolTitles.{}", tool.name));
            }
        }
        let known = catalog["toolTitles"].as_object().unwrap().len();
        assert_eq!(
            known,
            BUILTIN_TOOLS.len(),
            "{lang}: titles for tools that do not exist"
        );
    }
    assert!(missing.is_empty(), "missing: {missing:?}");
}
