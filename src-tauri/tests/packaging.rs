//! The files the installers and the release are made from (issue 16): the
//! release workflow builds for every OS with tauri-action, the updater is
//! configured with a public key and a manifest, and the Linux desktop entry
//! claims `colmena://` and takes the link.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;

fn repo_file(path: &str) -> String {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

fn config() -> Value {
    serde_json::from_str(&repo_file("tauri.conf.json")).unwrap()
}

#[test]
fn the_release_workflow_builds_windows_and_macos_with_tauri_action() {
    let workflow: yaml_serde::Value =
        yaml_serde::from_str(&repo_file(".github/workflows/release.yml")).unwrap();
    let tests = &workflow["jobs"]["tests"];
    let test_platforms: Vec<&str> = tests["strategy"]["matrix"]["include"]
        .as_sequence()
        .expect("a matrix of test runners")
        .iter()
        .filter_map(|m| m["platform"].as_str())
        .collect();
    assert!(
        test_platforms.iter().any(|p| p.starts_with("windows"))
            && test_platforms
                .iter()
                .filter(|p| p.starts_with("macos"))
                .count()
                == 2,
        "the Rust tests run on Windows and both Macs: {test_platforms:?}"
    );
    let job = &workflow["jobs"]["installers"];
    assert_eq!(
        job["needs"].as_str(),
        Some("tests"),
        "nothing is built for an OS whose tests did not pass"
    );
    let matrix = job["strategy"]["matrix"]["include"]
        .as_sequence()
        .expect("a matrix");
    let targets: Vec<&str> = matrix.iter().filter_map(|m| m["target"].as_str()).collect();
    let platforms: Vec<&str> = matrix
        .iter()
        .filter_map(|m| m["platform"].as_str())
        .collect();
    for wanted in [
        "x86_64-pc-windows-msvc",
        "aarch64-apple-darwin",
        "x86_64-apple-darwin",
        "x86_64-unknown-linux-gnu",
    ] {
        assert!(
            targets.contains(&wanted),
            "the matrix lacks {wanted}: {targets:?}"
        );
    }
    assert!(
        platforms.iter().any(|p| p.starts_with("windows")),
        "{platforms:?}"
    );
    assert!(
        platforms.iter().any(|p| p.starts_with("macos")),
        "{platforms:?}"
    );
    let bundles: Vec<&str> = matrix
        .iter()
        .filter_map(|m| m["bundles"].as_str())
        .collect();
    assert!(bundles.iter().any(|b| b.contains("msi")), "{bundles:?}");
    assert!(bundles.iter().any(|b| b.contains("dmg")), "{bundles:?}");
    let steps = job["steps"].as_sequence().unwrap();
    let action = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("tauri-apps/tauri-action@"))
        })
        .expect("the official tauri-action");
    assert_eq!(action["with"]["includeUpdaterJson"].as_bool(), Some(true));
    assert!(
        action["env"]["TAURI_SIGNING_PRIVATE_KEY"]
            .as_str()
            .unwrap()
            .contains("secrets.")
    );
    let args = action["with"]["args"].as_str().unwrap();
    assert!(
        args.contains("--config ../packaging/tauri.release.conf.json"),
        "{args}"
    );
    // Triggered by a version tag.
    assert!(
        workflow["on"]["push"]["tags"]
            .as_sequence()
            .unwrap()
            .iter()
            .any(|t| t.as_str() == Some("v*"))
    );
}

#[test]
fn release_builds_sign_their_updates_for_the_configured_key() {
    let release: Value =
        serde_json::from_str(&repo_file("packaging/tauri.release.conf.json")).unwrap();
    assert_eq!(release["bundle"]["createUpdaterArtifacts"], true);
    let updater = &config()["plugins"]["updater"];
    let key = updater["pubkey"].as_str().expect("an updater public key");
    use base64::Engine;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(key)
        .expect("base64");
    assert!(
        String::from_utf8_lossy(&decoded).starts_with("untrusted comment: minisign public key")
    );
    let endpoint = updater["endpoints"][0].as_str().unwrap();
    assert!(
        endpoint.starts_with("https://") && endpoint.ends_with("/latest.json"),
        "{endpoint}"
    );
}

#[test]
fn the_desktop_entry_claims_the_colmena_scheme_and_takes_the_link() {
    let config = config();
    for package in ["deb", "rpm"] {
        assert_eq!(
            config["bundle"]["linux"][package]["desktopTemplate"],
            "../packaging/linux/colmena.desktop",
            "{package}"
        );
    }
    let entry = repo_file("packaging/linux/colmena.desktop");
    let has = |line: &str| entry.lines().any(|l| l == line);
    assert!(has("Exec={{exec}} %u"), "{entry}");
    assert!(has("MimeType=x-scheme-handler/colmena;"), "{entry}");
    assert!(
        entry
            .lines()
            .any(|l| l.starts_with("Categories=") && l.contains("Office;")),
        "{entry}"
    );
    // An icon at every size the hicolor theme is looked up in.
    let icons: Vec<&str> = config["bundle"]["icon"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for size in [
        "16x16", "24x24", "32x32", "48x48", "64x64", "128x128", "256x256", "512x512",
    ] {
        assert!(
            icons.iter().any(|i| i.ends_with(&format!("/{size}.png"))),
            "no {size} icon: {icons:?}"
        );
    }
    assert!(
        icons.iter().any(|i| i.ends_with(".ico")) && icons.iter().any(|i| i.ends_with(".icns"))
    );
}
