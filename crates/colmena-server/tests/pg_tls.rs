//! Reaching the bus's PostgreSQL over TLS with the CA a managed server
//! documents (`sslrootcert` in the libpq URL), and refusing a server whose
//! certificate that CA did not sign for that name. The server is the test
//! cluster of `tests/postgres/start.sh`, which speaks TLS with a
//! certificate for localhost and 127.0.0.1 from a CA of its own; every
//! connection goes to 127.0.0.1.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::postgres::Postgres;
use common::{colmena, listening, ok_json, run};
use serde_json::Value;

/// The test cluster with its CA, or None (said on stderr).
fn cluster() -> Option<(Postgres, String, u16)> {
    let pg = Postgres::get()?;
    let Some(ca) = pg.ca.clone() else {
        eprintln!("SKIPPED: the test PostgreSQL's CA is not known (COLMENA_TEST_POSTGRES_CA)");
        return None;
    };
    let port = url::Url::parse(&pg.url).unwrap().port().unwrap();
    Some((pg, ca, port))
}

fn cli(dir: &Path, store: &str, schema: &str) -> Command {
    let mut cmd = colmena(dir);
    cmd.env("COLMENA_BUS_STORE", store)
        .env("COLMENA_BUS_SCHEMA", schema);
    cmd
}

async fn schema_exists(pg: &Postgres, schema: &str) -> bool {
    pg.client()
        .await
        .query_opt(
            "SELECT 1 FROM information_schema.schemata WHERE schema_name = $1",
            &[&schema],
        )
        .await
        .unwrap()
        .is_some()
}

#[tokio::test]
async fn a_replica_reaches_postgresql_over_tls_verified_with_the_ca_named_in_sslrootcert() {
    let Some((pg, ca, port)) = cluster() else {
        return;
    };
    let (dir, schema) = (tempfile::tempdir().unwrap(), pg.fresh_schema());
    let store = format!(
        "postgres://colmena@localhost:{port}/postgres?sslmode=verify-full&sslrootcert={ca}"
    );
    let ana = ok_json(cli(dir.path(), &store, &schema).args(["author", "create", "Ana"]));
    let mut replica = cli(dir.path(), &store, &schema)
        .args(["--json", "serve", "--bind", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let base = listening(&mut replica);
    // The replica's door answers from the database it reached over TLS.
    let me: Value = reqwest::Client::new()
        .get(format!(
            "{base}/author/{}/inbox",
            ana["id"].as_str().unwrap()
        ))
        .bearer_auth(ana["token"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(me.is_array(), "{me}");
    // The replica's connections are TLS (other tests' replicas on this
    // shared server reach it in plain over loopback: none other is TLS).
    let sessions = pg
        .client()
        .await
        .query(
            "SELECT s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s ON s.pid = a.pid
             WHERE a.application_name = 'colmena'",
            &[],
        )
        .await
        .unwrap();
    let _ = replica.kill();
    let _ = replica.wait();
    assert!(!sessions.is_empty(), "the replica holds no connection");
    assert!(
        sessions.iter().any(|row| row.get::<_, bool>(0)),
        "no connection over TLS"
    );
    let listed = ok_json(cli(dir.path(), &store, &schema).args(["author", "list"]));
    assert!(listed.to_string().contains("Ana"), "{listed}");
}

#[tokio::test]
async fn attack_a_postgresql_server_whose_certificate_no_trusted_ca_signed_is_refused() {
    let Some((pg, _ca, port)) = cluster() else {
        return;
    };
    let (dir, schema) = (tempfile::tempdir().unwrap(), pg.fresh_schema());
    // Verified TLS, the system's roots only: the test CA is not among them.
    let store = format!("postgres://colmena:hunter2@localhost:{port}/postgres?sslmode=require");
    let out = run(cli(dir.path(), &store, &schema).args(["--json", "author", "list"]));
    assert!(!out.status.success());
    let err: Value = serde_json::from_slice(&out.stderr).expect("json error on stderr");
    let message = err["error"]["message"].as_str().unwrap();
    assert!(message.contains("certificate"), "{message}");
    assert!(!message.contains("hunter2"), "{message}");
    assert!(
        !schema_exists(&pg, &schema).await,
        "something was written to a server that was never verified"
    );
}

#[tokio::test]
async fn attack_a_certificate_for_another_name_is_refused_even_from_the_trusted_ca() {
    let Some((pg, ca, port)) = cluster() else {
        return;
    };
    let (dir, schema) = (tempfile::tempdir().unwrap(), pg.fresh_schema());
    // The address is the cluster's; the name asked for is not on its
    // certificate (localhost, 127.0.0.1).
    let store = format!(
        "postgres://colmena@db.colmena.test:{port}/postgres?hostaddr=127.0.0.1&sslrootcert={ca}"
    );
    let out = run(cli(dir.path(), &store, &schema).args(["--json", "author", "list"]));
    assert!(!out.status.success());
    let err: Value = serde_json::from_slice(&out.stderr).expect("json error on stderr");
    let message = err["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("certificate") || message.contains("hostname"),
        "{message}"
    );
    assert!(!schema_exists(&pg, &schema).await);
}
