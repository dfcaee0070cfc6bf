//! The skills shipped inside Colmena: the instructions of the catalog
//! personas (SPEC H31). They are seeded as rows at every start (H17) from
//! these files, parsed by the same parser as any folder on disk.

/// `(folder name, SKILL.md)` of every bundled skill.
pub const BUNDLED_SKILLS: &[(&str, &str)] = &[
    (
        "browser-automation",
        include_str!("../../skills/browser-automation/SKILL.md"),
    ),
    (
        "code-review",
        include_str!("../../skills/code-review/SKILL.md"),
    ),
    (
        "data-analysis",
        include_str!("../../skills/data-analysis/SKILL.md"),
    ),
    (
        "file-organization",
        include_str!("../../skills/file-organization/SKILL.md"),
    ),
    (
        "image-briefs",
        include_str!("../../skills/image-briefs/SKILL.md"),
    ),
    (
        "scheduling",
        include_str!("../../skills/scheduling/SKILL.md"),
    ),
    (
        "software-engineering",
        include_str!("../../skills/software-engineering/SKILL.md"),
    ),
    (
        "source-citation",
        include_str!("../../skills/source-citation/SKILL.md"),
    ),
    (
        "web-research",
        include_str!("../../skills/web-research/SKILL.md"),
    ),
    (
        "writing-style",
        include_str!("../../skills/writing-style/SKILL.md"),
    ),
];
