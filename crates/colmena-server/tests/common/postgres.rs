//! A PostgreSQL server for the tests of the bus's PostgreSQL store: the
//! one `scripts/test.sh` started (`COLMENA_TEST_POSTGRES`), else a
//! throwaway cluster of `tests/postgres/start.sh` stopped when the test
//! ends. Each test takes a schema of its own, so tests share one server.
//! The server speaks TLS too, with a certificate from its own test CA.

#![allow(dead_code, clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

pub struct Postgres {
    pub url: String,
    /// The PEM file of the CA that signed the server's certificate (for
    /// localhost and 127.0.0.1), when known.
    pub ca: Option<String>,
    /// The cluster this test started (stopped on drop); None when shared.
    dir: Option<String>,
}

fn scripts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/postgres")
}

impl Postgres {
    /// The server, or None (after saying why on stderr) when this machine
    /// has no PostgreSQL to start.
    pub fn get() -> Option<Postgres> {
        if let Ok(url) = std::env::var("COLMENA_TEST_POSTGRES") {
            let ca = std::env::var("COLMENA_TEST_POSTGRES_CA").ok();
            return Some(Postgres { url, ca, dir: None });
        }
        let out = Command::new(scripts().join("start.sh")).output().unwrap();
        if !out.status.success() {
            eprintln!(
                "SKIPPED: no PostgreSQL to test against (set COLMENA_TEST_POSTGRES or install \
                 Debian's postgresql): {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return None;
        }
        let text = String::from_utf8(out.stdout).unwrap();
        let mut lines = text.lines();
        Some(Postgres {
            url: lines.next().unwrap().to_owned(),
            dir: Some(lines.next().unwrap().to_owned()),
            ca: lines.next().map(str::to_owned),
        })
    }

    /// A schema no other test uses.
    pub fn fresh_schema(&self) -> String {
        static N: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        format!(
            "t_{}_{}_{nanos}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        )
    }

    /// A client of the database itself, for looking at what is stored.
    pub async fn client(&self) -> tokio_postgres::Client {
        let (client, connection) = tokio_postgres::connect(&self.url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        client
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        if let Some(dir) = &self.dir {
            let _ = Command::new(scripts().join("stop.sh")).arg(dir).status();
        }
    }
}
