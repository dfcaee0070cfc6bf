//! The parts of the timeline that are plain code: previews and kind names.

#![allow(clippy::unwrap_used)]

use super::ActivityKind;
use super::sources::preview;

#[test]
fn a_preview_keeps_three_lines_and_cuts_long_text() {
    assert_eq!(preview(""), None);
    assert_eq!(preview("\n  \n"), None);
    assert_eq!(
        preview("# Title\n\nOne\nTwo\nThree").as_deref(),
        Some("# Title\nOne\nTwo")
    );
    let long = "abeja ".repeat(100);
    let cut = preview(&long).unwrap();
    assert_eq!(cut.chars().count(), 280);
    assert!(cut.ends_with('…'));
    // Cut between characters, never inside one.
    let accents = "ñ".repeat(400);
    assert!(preview(&accents).unwrap().starts_with("ññ"));
}

#[test]
fn every_kind_reads_back_from_its_name() {
    for kind in ActivityKind::ALL {
        assert_eq!(ActivityKind::parse(kind.as_str()), Some(kind));
    }
    assert_eq!(ActivityKind::parse("wake-up"), Some(ActivityKind::WakeUp));
    assert_eq!(ActivityKind::parse("nothing"), None);
}
