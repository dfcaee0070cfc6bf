//! Skills (SPEC H11–H15) against a real store, index and folders.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;

use colmena_core::ErrorCode;
use colmena_core::agents::{self, NewAgent};
use colmena_core::skills::{self, SkillDraft, SkillFilter, SkillOrigin};
use support::{catalog_query, workspace};

fn draft(name: &str) -> SkillDraft {
    SkillDraft {
        name: name.into(),
        description: "Summarise meetings into decisions and actions.".into(),
        body: "# Minutes\n\nList decisions, owners and dates.".into(),
        ..Default::default()
    }
}

fn write_skill(dir: &Path, folder: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(folder);
    std::fs::create_dir_all(&path).unwrap();
    std::fs::write(path.join("SKILL.md"), text).unwrap();
    path
}

#[tokio::test]
async fn h11_skills_can_be_created_read_updated_toggled_and_deleted() {
    let ws = workspace().await;
    let created = skills::create(&ws.ctx, draft("meeting-minutes"))
        .await
        .unwrap();
    assert_eq!(created.origin, SkillOrigin::Ui);
    assert!(created.active);
    assert_eq!(
        skills::get(&ws.ctx, "meeting-minutes").await.unwrap(),
        created
    );

    let updated = skills::update(
        &ws.ctx,
        "meeting-minutes",
        SkillDraft {
            body: "# Minutes\n\nAlso list open questions.".into(),
            ..draft("ignored-name")
        },
    )
    .await
    .unwrap();
    assert_eq!(
        updated.id, "meeting-minutes",
        "the name cannot change through update"
    );
    assert!(updated.body.contains("open questions"));

    assert!(
        !skills::switch(&ws.ctx, "meeting-minutes", None)
            .await
            .unwrap()
            .active
    );
    assert!(
        skills::switch(&ws.ctx, "meeting-minutes", Some(true))
            .await
            .unwrap()
            .active
    );

    let err = skills::create(&ws.ctx, draft("meeting-minutes"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);

    skills::delete(&ws.ctx, "meeting-minutes").await.unwrap();
    assert_eq!(
        skills::get(&ws.ctx, "meeting-minutes")
            .await
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );
}

#[tokio::test]
async fn h11_a_skill_given_to_agents_cannot_be_deleted_and_the_error_names_them() {
    let ws = workspace().await;
    skills::create(&ws.ctx, draft("meeting-minutes"))
        .await
        .unwrap();
    agents::create(
        &ws.ctx,
        NewAgent {
            name: "Secretaria".into(),
            skills: vec!["meeting-minutes".into()],
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let err = skills::delete(&ws.ctx, "meeting-minutes")
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert!(err.message.contains("secretaria"), "{}", err.message);
}

#[tokio::test]
async fn h11_skills_written_in_the_app_follow_the_skill_md_rules() {
    let ws = workspace().await;
    let err = skills::create(
        &ws.ctx,
        SkillDraft {
            name: "Bad Name".into(),
            description: "   ".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    let fields: Vec<String> = err.details.unwrap()["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(fields, ["name", "description"]);
}

#[tokio::test]
async fn h12_skill_folders_are_listed_with_their_problems() {
    let ws = workspace().await;
    let folder = colmena_core::skills::folders::workspace_folder(ws.ctx.data_dir());
    write_skill(
        &folder,
        "good-one",
        "---\nname: good-one\ndescription: Fine.\n---\nBody",
    );
    write_skill(
        &folder,
        "wrong-folder",
        "---\nname: other-name\ndescription: Fine.\n---\nBody",
    );
    write_skill(&folder, "broken", "no front matter here");

    let found = colmena_core::skills::folders::list_disk_skills(&ws.ctx)
        .await
        .unwrap();
    let by_name = |n: &str| found.iter().find(|d| d.folder_name == n).unwrap();
    assert_eq!(by_name("good-one").error, None);
    assert_eq!(by_name("good-one").description.as_deref(), Some("Fine."));
    assert!(
        by_name("wrong-folder")
            .error
            .as_deref()
            .unwrap()
            .contains("must be equal")
    );
    assert!(
        by_name("broken")
            .error
            .as_deref()
            .unwrap()
            .contains("front matter")
    );
    assert!(!by_name("good-one").imported);
}

#[tokio::test]
async fn h13_importing_a_folder_is_idempotent_by_name_and_uses_the_same_parser() {
    let ws = workspace().await;
    let root = tempfile::tempdir().unwrap();
    let path = write_skill(
        root.path(),
        "release-notes",
        "---\nname: release-notes\ndescription: Write release notes.\nx-owner: docs-team\n---\n\nGroup changes by impact. Keyword: golondrina.\n",
    );

    let first = skills::import_from_disk(&ws.ctx, &path).await.unwrap();
    assert_eq!(first.origin, SkillOrigin::Disk);
    assert_eq!(
        first.extra["x-owner"], "docs-team",
        "unknown fields are kept"
    );

    std::fs::write(
        path.join("SKILL.md"),
        "---\nname: release-notes\ndescription: Write release notes for users.\n---\n\nKeyword: gaviota.\n",
    )
    .unwrap();
    let second = skills::import_from_disk(&ws.ctx, &path).await.unwrap();
    assert_eq!(second.description, "Write release notes for users.");
    let all = skills::list(&ws.ctx, SkillFilter::default()).await.unwrap();
    assert_eq!(
        all.iter().filter(|s| s.id == "release-notes").count(),
        1,
        "updated, not duplicated"
    );

    // The import is indexed, and the old text is gone from the index (H14).
    let hits = colmena_core::memory::search_catalog(&ws.ctx, catalog_query("gaviota"))
        .await
        .unwrap();
    assert_eq!(hits[0].id, "release-notes");
    let stale = colmena_core::memory::search_catalog(&ws.ctx, catalog_query("golondrina"))
        .await
        .unwrap();
    assert!(stale.is_empty());

    // A folder whose SKILL.md breaks a rule is refused with the field named.
    let bad = write_skill(root.path(), "bad", "---\nname: bad\n---\nno description");
    let err = skills::import_from_disk(&ws.ctx, &bad).await.unwrap_err();
    assert_eq!(err.field(), Some("description"));
}

#[tokio::test]
async fn h14_every_create_update_and_delete_re_syncs_the_index() {
    let ws = workspace().await;
    let search = |q: &'static str| {
        let ctx = ws.ctx.clone();
        async move {
            colmena_core::memory::search_catalog(&ctx, catalog_query(q))
                .await
                .unwrap()
                .into_iter()
                .map(|h| h.id)
                .collect::<Vec<_>>()
        }
    };
    skills::create(
        &ws.ctx,
        SkillDraft {
            body: "Mention the armadillo.".into(),
            ..draft("meeting-minutes")
        },
    )
    .await
    .unwrap();
    assert_eq!(search("armadillo").await, ["meeting-minutes"]);
    skills::update(
        &ws.ctx,
        "meeting-minutes",
        SkillDraft {
            body: "Mention the pangolin.".into(),
            ..draft("meeting-minutes")
        },
    )
    .await
    .unwrap();
    assert!(search("armadillo").await.is_empty());
    assert_eq!(search("pangolin").await, ["meeting-minutes"]);
    skills::delete(&ws.ctx, "meeting-minutes").await.unwrap();
    assert!(search("pangolin").await.is_empty());
}

#[tokio::test]
async fn h15_a_scaffolded_folder_imports_as_a_valid_skill() {
    let ws = workspace().await;
    let root = tempfile::tempdir().unwrap();
    let folder = skills::scaffold(root.path(), "weekly-report").unwrap();
    assert!(folder.join("SKILL.md").is_file());
    let skill = skills::import_from_disk(&ws.ctx, &folder).await.unwrap();
    assert_eq!(skill.id, "weekly-report");
    let err = skills::scaffold(root.path(), "weekly-report").unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert_eq!(
        skills::scaffold(root.path(), "Bad_Name")
            .unwrap_err()
            .field(),
        Some("name")
    );
}

#[tokio::test]
async fn h17_an_edited_bundled_skill_is_not_overwritten_at_restart() {
    let ws = workspace().await;
    let original = skills::get(&ws.ctx, "web-research").await.unwrap();
    assert_eq!(original.origin, SkillOrigin::Bundled);
    skills::update(
        &ws.ctx,
        "web-research",
        SkillDraft {
            name: "web-research".into(),
            description: original.description.clone(),
            body: "My own way of researching.".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let dir = ws.dir.path().to_owned();
    drop(ws.ctx);
    let ctx = support::open(&dir).await;
    let after = skills::get(&ctx, "web-research").await.unwrap();
    assert_eq!(after.body, "My own way of researching.");
    assert_eq!(after.origin, SkillOrigin::Ui);
}
