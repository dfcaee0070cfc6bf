//! Backups that carry the master key (issue 33): sealed with a passphrase
//! beside the copy, so that a workspace whose key is lost gets every sealed
//! secret back from a restore. No secret is ever printed: comparisons of
//! clear values use `assert!`, never `assert_eq!`.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::PathBuf;

use colmena_core::ErrorCode;
use colmena_core::providers::{self, NewProvider};
use colmena_core::secrets::key_bundle;
use colmena_core::store::DB_FILE;
use colmena_core::store::backup::{self, BackupKey, KeyToRestore, RestoredKey};

const API_KEY: &str = "sk-test-backup-0123456789abcdef";
const PASSPHRASE: &str = "correct horse battery staple";

fn with(passphrase: &str) -> KeyToRestore<'_> {
    KeyToRestore {
        passphrase: Some(passphrase),
        bundle: None,
    }
}

/// The provider's sealed key, opened by the workspace at `dir`.
async fn provider_key_opens(dir: &std::path::Path, id: &str) -> bool {
    let ctx = support::open(dir).await;
    let owned = id.to_owned();
    let cipher: Vec<u8> = ctx
        .store()
        .read(move |c| {
            Ok(c.query_row(
                "SELECT api_key_cipher FROM providers WHERE id = ?1",
                [&owned],
                |r| r.get(0),
            )?)
        })
        .await
        .unwrap();
    let opened = ctx
        .vault()
        .open_envelope(&format!("provider:{id}:api_key"), &cipher);
    matches!(opened, Ok(clear) if clear.as_slice() == API_KEY.as_bytes())
}

#[tokio::test]
async fn issue33_a_backup_with_its_key_brings_every_secret_back_once_the_key_file_is_gone() {
    let support::Workspace { dir: _dir, ctx } = support::workspace().await;
    let created = providers::create(
        &ctx,
        NewProvider {
            name: "OpenAI".into(),
            kind: "openai_compatible".into(),
            base_url: None,
            api_key: Some(API_KEY.into()),
        },
    )
    .await
    .unwrap();
    let data_dir = ctx.data_dir().to_owned();
    let db = data_dir.join(DB_FILE);
    let key_file = PathBuf::from(&ctx.vault().status().location);
    let key_bytes = std::fs::read(&key_file).unwrap();

    // Without a passphrase the copy says it carries no key.
    let bare = backup::backup(&db, None).unwrap();
    assert_eq!(bare.key, BackupKey::NotIncluded);
    assert!(!backup::bundle_path(&bare.path).exists());

    let taken = backup::backup_with_key(&db, None, PASSPHRASE).unwrap();
    let BackupKey::Sealed { bundle } = &taken.key else {
        panic!("the key was not sealed: {:?}", taken.key)
    };
    assert_eq!(bundle, &backup::bundle_path(&taken.path));
    let sealed = std::fs::read(bundle).unwrap();
    assert!(
        !sealed
            .windows(key_bytes.len())
            .any(|w| w == key_bytes.as_slice()),
        "the master key is in clear in its bundle"
    );
    drop(ctx);

    // The key is lost.
    std::fs::remove_file(&key_file).unwrap();

    // Restored without the passphrase: the store comes back, its secrets stay locked, and it says so.
    let plain = backup::restore(&db, &taken.path).unwrap();
    assert_eq!(
        plain.key,
        RestoredKey::NotOpened {
            bundle: bundle.clone(),
            current_key_opens: false
        }
    );
    assert!(!key_file.exists());

    // A wrong passphrase is a clear error and changes nothing.
    let wrong = backup::restore_with_key(&db, &taken.path, with("not the passphrase")).unwrap_err();
    assert_eq!(wrong.code, ErrorCode::Validation);
    assert_eq!(
        wrong.details.as_ref().unwrap()["reason"],
        "wrong_passphrase"
    );
    assert!(!wrong.message.contains(PASSPHRASE));
    assert!(!key_file.exists());

    // The right one puts the key back: the provider's key opens again.
    let restored = backup::restore_with_key(&db, &taken.path, with(PASSPHRASE)).unwrap();
    assert!(
        matches!(&restored.key, RestoredKey::Restored { location } if std::path::Path::new(location) == key_file),
        "{:?}",
        restored.key
    );
    assert_eq!(restored.replaced_key, None);
    assert!(
        std::fs::read(&key_file).unwrap() == key_bytes,
        "another key was put back"
    );
    assert!(
        provider_key_opens(&data_dir, created.id.as_str()).await,
        "the provider's key does not open after the restore"
    );

    // Again: the key is already there.
    let again = backup::restore_with_key(&db, &taken.path, with(PASSPHRASE)).unwrap();
    assert!(
        matches!(again.key, RestoredKey::AlreadyThere { .. }),
        "{:?}",
        again.key
    );
}

#[tokio::test]
async fn issue33_a_different_key_in_the_keeper_is_kept_sealed_beside_the_store_it_belonged_to() {
    let support::Workspace { dir: _dir, ctx } = support::workspace().await;
    providers::create(
        &ctx,
        NewProvider {
            name: "OpenAI".into(),
            kind: "openai_compatible".into(),
            base_url: None,
            api_key: Some(API_KEY.into()),
        },
    )
    .await
    .unwrap();
    let db = ctx.data_dir().join(DB_FILE);
    let key_file = PathBuf::from(&ctx.vault().status().location);
    let original = std::fs::read(&key_file).unwrap();
    let taken = backup::backup_with_key(&db, None, PASSPHRASE).unwrap();
    drop(ctx);

    // Another key took its place (the workspace was made anew, say).
    let other = [42u8; 32];
    std::fs::write(&key_file, other).unwrap();
    let restored = backup::restore_with_key(&db, &taken.path, with(PASSPHRASE)).unwrap();
    let kept = restored.replaced_key.clone().unwrap();
    assert_eq!(
        Some(kept.clone()),
        restored.previous.as_deref().map(backup::bundle_path),
        "beside the copy of the store it belonged to"
    );
    assert!(key_bundle::open(&std::fs::read(&kept).unwrap(), PASSPHRASE).is_ok());
    assert!(std::fs::read(&key_file).unwrap() == original);

    // A bundle that holds another key does not open this backup's secrets,
    // and nothing changes.
    let mismatch = backup::restore_with_key(
        &db,
        &taken.path,
        KeyToRestore {
            passphrase: Some(PASSPHRASE),
            bundle: Some(&kept),
        },
    )
    .unwrap_err();
    assert_eq!(mismatch.details.unwrap()["reason"], "key_mismatch");
    assert!(std::fs::read(&key_file).unwrap() == original);
}

#[tokio::test]
async fn issue33_automatic_copies_carry_the_key_once_it_is_sealed_for_them() {
    let support::Workspace { dir: _dir, ctx } = support::workspace().await;
    let db = ctx.data_dir().join(DB_FILE);
    assert!(!backup::kept_for_automatic_copies(&db));
    let short = backup::keep_for_automatic_copies(&db, "short").unwrap_err();
    assert_eq!(short.details.unwrap()["reason"], "passphrase_too_short");

    backup::keep_for_automatic_copies(&db, PASSPHRASE).unwrap();
    assert!(backup::kept_for_automatic_copies(&db));
    let copy = backup::backup(&db, None).unwrap();
    let BackupKey::Sealed { bundle } = &copy.key else {
        panic!("{:?}", copy.key)
    };
    assert!(key_bundle::open(&std::fs::read(bundle).unwrap(), PASSPHRASE).is_ok());
    let before_upgrade = backup::before_new_version(&db, "99.0.0").unwrap().unwrap();
    assert!(backup::bundle_path(&before_upgrade).is_file());
    let listed = backup::overview(&db).unwrap();
    assert!(listed.automatic_key);
    assert!(listed.backups.iter().all(|b| b.key_included), "{listed:?}");

    assert!(backup::forget_for_automatic_copies(&db).unwrap());
    let without = backup::backup(&db, None).unwrap();
    assert_eq!(without.key, BackupKey::NotIncluded);
    drop(ctx);
}
