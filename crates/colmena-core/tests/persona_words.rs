//! Every built-in specialist has its name and description in each of the
//! window's languages: the catalogs (`ui/src/i18n/locales/<lang>.json`) are
//! read from the repository, so a persona added here without its words
//! fails this test instead of showing English in a Spanish window (the
//! UX review found the scheduler doing so).

#![allow(clippy::unwrap_used)]

use std::path::Path;

use colmena_core::setup::PERSONAS;

fn catalogs() -> Vec<(String, serde_json::Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/i18n/locales");
    let mut found: Vec<(String, serde_json::Value)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| {
            let lang = path.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            (lang, serde_json::from_str(&text).unwrap())
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

#[test]
fn every_persona_is_named_and_described_in_every_language() {
    let catalogs = catalogs();
    let langs: Vec<&str> = catalogs.iter().map(|(lang, _)| lang.as_str()).collect();
    assert!(langs.contains(&"en") && langs.contains(&"es"), "{langs:?}");
    let mut missing = Vec::new();
    for (lang, catalog) in &catalogs {
        for persona in PERSONAS.iter() {
            for field in ["name", "description"] {
                let words = catalog["personas"][persona.id][field]
                    .as_str()
                    .unwrap_or("");
                if words.trim().is_empty() {
                    missing.push(format!("{lang}: personas.{}.{field}", persona.id));
                }
            }
        }
    }
    assert!(missing.is_empty(), "missing: {missing:?}");
}
