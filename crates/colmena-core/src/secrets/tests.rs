use super::*;
use crate::store::DB_FILE;

/// A data dir and, apart from it, a folder for key files.
struct Fixture {
    data: tempfile::TempDir,
    keys: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture {
            data: tempfile::tempdir().unwrap(),
            keys: tempfile::tempdir().unwrap(),
        }
    }

    fn store(&self) -> Store {
        Store::open(&self.data.path().join(DB_FILE)).unwrap()
    }

    async fn vault(&self, store: &Store, choice: BackendChoice) -> Vault {
        Vault::open_with_key_dir(self.data.path(), store, choice, self.keys.path())
            .await
            .unwrap()
    }

    fn key_path(&self) -> PathBuf {
        keyfile::path_in(self.keys.path(), self.data.path())
    }
}

async fn open_file_vault(fx: &Fixture) -> (Store, Vault) {
    let store = fx.store();
    let vault = fx.vault(&store, BackendChoice::File).await;
    (store, vault)
}

#[tokio::test]
async fn sealed_secrets_open_only_in_their_own_context() {
    let fx = Fixture::new();
    let (_store, vault) = open_file_vault(&fx).await;
    let sealed = vault
        .seal("provider:a:api_key", b"sk-secret-value")
        .unwrap();
    assert!(!sealed.windows(15).any(|w| w == b"sk-secret-value"));
    let clear = vault.open_envelope("provider:a:api_key", &sealed).unwrap();
    assert_eq!(clear.as_slice(), b"sk-secret-value");
    assert!(vault.open_envelope("provider:b:api_key", &sealed).is_err());
}

#[tokio::test]
async fn two_seals_of_one_secret_differ() {
    let fx = Fixture::new();
    let (_store, vault) = open_file_vault(&fx).await;
    let a = vault.seal("c", b"same").unwrap();
    let b = vault.seal("c", b"same").unwrap();
    assert_ne!(a, b, "a nonce was reused");
}

#[cfg(unix)]
#[tokio::test]
async fn the_key_file_is_created_0600_outside_the_data_dir_and_reused() {
    use std::os::unix::fs::PermissionsExt;
    let fx = Fixture::new();
    let (store, vault) = open_file_vault(&fx).await;
    let sealed = vault.seal("c", b"kept").unwrap();
    let key_path = fx.key_path();
    let mode = std::fs::metadata(&key_path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let dir_mode = std::fs::metadata(fx.keys.path())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(dir_mode & 0o777, 0o700);
    assert!(!fx.data.path().join(keyfile::KEY_FILE).exists());
    assert_eq!(vault.status().backend, SecretBackend::File);
    assert_eq!(vault.status().location, key_path.display().to_string());
    assert!(vault.status().ready);

    drop(vault);
    let again = fx.vault(&store, BackendChoice::Auto).await;
    assert_eq!(
        again.status().backend,
        SecretBackend::File,
        "the recorded backend wins"
    );
    assert_eq!(
        again.open_envelope("c", &sealed).unwrap().as_slice(),
        b"kept"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_key_file_in_the_data_dir_is_moved_out_on_open() {
    use std::os::unix::fs::PermissionsExt;
    let fx = Fixture::new();
    let (store, vault) = open_file_vault(&fx).await;
    let sealed = vault.seal("c", b"kept").unwrap();
    drop(vault);
    // As an earlier version left it: the key in the data dir.
    let legacy = fx.data.path().join(keyfile::KEY_FILE);
    std::fs::rename(fx.key_path(), &legacy).unwrap();

    let vault = fx.vault(&store, BackendChoice::Auto).await;
    assert!(vault.status().ready, "{:?}", vault.status());
    assert_eq!(
        vault.open_envelope("c", &sealed).unwrap().as_slice(),
        b"kept"
    );
    assert!(!legacy.exists(), "the key is still in the data dir");
    let mode = std::fs::metadata(fx.key_path())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let note = vault.status().note.clone().unwrap_or_default();
    assert!(note.contains("moved out of the data dir"), "{note}");
}

#[tokio::test]
async fn two_different_keys_lock_the_vault_and_neither_is_deleted() {
    let fx = Fixture::new();
    let (store, vault) = open_file_vault(&fx).await;
    drop(vault);
    let legacy = fx.data.path().join(keyfile::KEY_FILE);
    keyfile::create(&legacy, &MasterKey::generate().unwrap()).unwrap();
    let vault = fx.vault(&store, BackendChoice::Auto).await;
    assert!(!vault.status().ready);
    assert!(legacy.exists() && fx.key_path().exists());
}

#[test]
fn throwaway_data_dirs_keep_their_keys_out_of_the_config_folder() {
    if std::env::var_os(keyfile::KEY_DIR_ENV).is_some() {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let data = data.path().canonicalize().unwrap();
    let dir = keyfile::key_dir(&data).unwrap();
    let tmp = std::env::temp_dir().canonicalize().unwrap();
    assert!(dir.starts_with(&tmp), "{}", dir.display());
    assert!(!dir.starts_with(&data));
    let real = keyfile::key_dir(Path::new("/home/someone/.local/share/colmena")).unwrap();
    assert!(real.ends_with("colmena/keys"), "{}", real.display());
    assert_ne!(
        keyfile::key_id(Path::new("/a")),
        keyfile::key_id(Path::new("/b"))
    );
}

#[tokio::test]
async fn a_missing_key_file_locks_the_vault_instead_of_making_a_new_key() {
    let fx = Fixture::new();
    let (store, vault) = open_file_vault(&fx).await;
    drop(vault);
    std::fs::remove_file(fx.key_path()).unwrap();
    let locked = fx.vault(&store, BackendChoice::Auto).await;
    assert!(!locked.status().ready);
    assert!(!fx.key_path().exists(), "no new key was made");
    let err = locked.seal("c", b"x").unwrap_err();
    assert_eq!(err.code, crate::error::ErrorCode::Precondition);
    assert!(err.message.contains("missing"), "{}", err.message);
}

#[tokio::test]
async fn a_replaced_key_file_is_detected() {
    let fx = Fixture::new();
    let (store, vault) = open_file_vault(&fx).await;
    drop(vault);
    let key_path = fx.key_path();
    std::fs::remove_file(&key_path).unwrap();
    keyfile::create(&key_path, &MasterKey::generate().unwrap()).unwrap();
    let vault = fx.vault(&store, BackendChoice::Auto).await;
    assert!(!vault.status().ready);
    assert!(
        vault
            .status()
            .note
            .as_deref()
            .unwrap_or("")
            .contains("does not match")
    );
}

#[tokio::test]
async fn asking_for_another_backend_than_the_recorded_one_locks() {
    let fx = Fixture::new();
    let (store, vault) = open_file_vault(&fx).await;
    drop(vault);
    let vault = fx.vault(&store, BackendChoice::Keychain).await;
    assert!(!vault.status().ready);
    assert_eq!(vault.status().backend, SecretBackend::File);
    assert!(
        vault
            .status()
            .note
            .as_deref()
            .unwrap_or("")
            .contains(BACKEND_ENV)
    );
}

#[test]
fn hex_round_trips() {
    let bytes = [0u8, 1, 127, 128, 255];
    assert_eq!(decode_hex(&encode_hex(&bytes)).unwrap(), bytes);
    assert_eq!(decode_hex("abc"), None);
    assert_eq!(decode_hex("zz"), None);
}

/// Two processes opening a new data dir at the same moment (the app and
/// `colmena serve`) must end up with the same key: one writes it, the other
/// reads it — never half of it, never a second key.
#[test]
fn two_openers_racing_for_a_new_key_file_agree_on_one_key() {
    for _ in 0..50 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("race.key");
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
        let openers: Vec<_> = (0..2)
            .map(|_| {
                let (path, barrier) = (path.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    let (key, _) = new_file_key(&path).unwrap();
                    key.0.to_vec()
                })
            })
            .collect();
        let keys: Vec<Vec<u8>> = openers.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(keys[0], keys[1]);
        assert_eq!(std::fs::read(&path).unwrap(), keys[0]);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no partial file is left behind");
    }
}
