//! How a replica reaches the bus's PostgreSQL: plain only on this machine,
//! verified TLS otherwise, and the CA a managed server documents.
//!
//! Managed PostgreSQL services (RDS, Cloud SQL, Supabase, a team's own
//! server) sign their certificates with a CA of their own and hand out
//! libpq URLs such as `…?sslmode=verify-full&sslrootcert=/path/ca.pem`.
//! tokio-postgres reads neither `sslrootcert` nor the `verify-*` modes, so
//! they are read here: `sslrootcert` names a PEM file whose certificates
//! are trusted besides the system's roots (`system`: the roots alone), and
//! `verify-full` / `verify-ca` mean `require`, which this driver always
//! verifies — the certificate chain and the host name, never less. A URL
//! naming a CA without a mode asks for TLS: it gets `require`.

use std::path::Path;
use std::str::FromStr;

use native_tls::Certificate;
use postgres_native_tls::MakeTlsConnector;
use tokio_postgres::config::{Host, SslMode};

use super::redact;
use crate::error::{AppError, Result};

/// A URL checked: the driver's configuration and the extra roots to trust.
pub(super) struct Checked {
    pub config: tokio_postgres::Config,
    pub roots: Vec<Certificate>,
}

/// The URL parses, its CA file (if any) loads, and a server that is not on
/// this machine is reached only over verified TLS.
pub(super) fn check_url(url: &str) -> Result<Checked> {
    let libpq = LibpqTls::split(url)?;
    let mut config = tokio_postgres::Config::from_str(&libpq.url).map_err(|e| {
        AppError::invalid_field(
            "store",
            "invalid_url",
            format!("not a PostgreSQL URL: {}", redact(&e.to_string())),
        )
    })?;
    let roots = match libpq.ca_file.as_deref() {
        Some(path) => load_roots(Path::new(path))?,
        None => Vec::new(),
    };
    if libpq.asks_for_tls && !libpq.names_a_mode {
        config.ssl_mode(SslMode::Require);
    }
    // With `hostaddr` the driver connects to that address and uses the host
    // only as the name TLS verifies: both must be on this machine to skip TLS.
    let remote = config.get_hosts().iter().any(|host| match host {
        Host::Tcp(name) => !is_loopback(name),
        #[cfg(unix)]
        Host::Unix(_) => false,
    }) || config.get_hostaddrs().iter().any(|ip| !ip.is_loopback());
    let require = config.get_ssl_mode() == SslMode::Require;
    if remote && !require {
        return Err(AppError::invalid_field(
            "store",
            "needs_tls",
            "a PostgreSQL server on another machine is reached only over verified TLS: \
             add sslmode=require to the URL",
        ));
    }
    if require && config.get_hosts().is_empty() && !config.get_hostaddrs().is_empty() {
        return Err(AppError::invalid_field(
            "store",
            "needs_host",
            "verified TLS needs the server's name: give a host with hostaddr",
        ));
    }
    if !remote && !require {
        // On this machine, plain: a local server's self-signed certificate
        // (Debian's default) would fail verification, and there is no
        // network to protect.
        config.ssl_mode(SslMode::Disable);
    }
    Ok(Checked { config, roots })
}

/// The connector every connection of a replica uses: the system's roots
/// plus `roots`, verification always on.
pub(super) fn connector(roots: &[Certificate]) -> Result<MakeTlsConnector> {
    let mut builder = native_tls::TlsConnector::builder();
    for root in roots {
        builder.add_root_certificate(root.clone());
    }
    let connector = builder
        .build()
        .map_err(|e| AppError::internal(format!("no TLS for PostgreSQL: {e}")))?;
    Ok(MakeTlsConnector::new(connector))
}

/// A URL's libpq TLS parameters taken out of it.
struct LibpqTls {
    /// The URL as tokio-postgres reads it.
    url: String,
    /// `sslrootcert`, unless `system`.
    ca_file: Option<String>,
    /// A `sslrootcert` was given (a file or `system`).
    asks_for_tls: bool,
    /// A `sslmode` was given.
    names_a_mode: bool,
}

impl LibpqTls {
    fn split(url: &str) -> Result<LibpqTls> {
        let mut out = LibpqTls {
            url: url.to_owned(),
            ca_file: None,
            asks_for_tls: false,
            names_a_mode: false,
        };
        let Some((base, query)) = url.split_once('?') else {
            return Ok(out);
        };
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            match (key, percent_decoded(value)?.as_str()) {
                ("sslrootcert", "system") => out.asks_for_tls = true,
                ("sslrootcert", "") => {}
                ("sslrootcert", path) => {
                    out.asks_for_tls = true;
                    out.ca_file = Some(path.to_owned());
                }
                ("sslmode", "verify-full" | "verify-ca") => {
                    out.names_a_mode = true;
                    kept.push("sslmode=require".to_owned());
                }
                ("sslmode", _) => {
                    out.names_a_mode = true;
                    kept.push(pair.to_owned());
                }
                _ => kept.push(pair.to_owned()),
            }
        }
        out.url = if kept.is_empty() {
            base.to_owned()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        Ok(out)
    }
}

/// A URL query value with its `%XX` escapes decoded.
fn percent_decoded(value: &str) -> Result<String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(bad_escape)?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| bad_escape())
}

fn bad_escape() -> AppError {
    AppError::invalid_field(
        "store",
        "invalid_url",
        "not a PostgreSQL URL: a bad %-escape in its parameters",
    )
}

/// The certificates of a PEM file, to trust besides the system's roots.
fn load_roots(path: &Path) -> Result<Vec<Certificate>> {
    let pem = std::fs::read(path).map_err(|e| {
        AppError::invalid_field(
            "store",
            "invalid_ca",
            format!("the CA file '{}' cannot be read: {e}", path.display()),
        )
    })?;
    let roots = Certificate::stack_from_pem(&pem).unwrap_or_default();
    if roots.is_empty() {
        return Err(AppError::invalid_field(
            "store",
            "invalid_ca",
            format!("the CA file '{}' holds no PEM certificate", path.display()),
        ));
    }
    Ok(roots)
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_matches(['[', ']'])
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::super::BusStoreChoice;
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn attack_a_server_on_another_machine_without_verified_tls_is_refused() {
        let dir = std::path::Path::new("/tmp/w");
        for url in [
            "postgres://u:secret@db.example:5432/bus",
            "postgres://u:secret@10.0.0.5/bus?sslmode=prefer",
            "postgres://u:secret@10.0.0.5/bus?sslmode=disable",
            // A loopback name with the real address in hostaddr.
            "postgres://u:secret@localhost/bus?hostaddr=10.0.0.5",
            "postgres://u:secret@/bus?hostaddr=10.0.0.5",
            // Verified TLS with no name to verify.
            "postgres://u:secret@/bus?hostaddr=10.0.0.5&sslmode=require",
            // A CA named, and then TLS turned off.
            "postgres://u:secret@10.0.0.5/bus?sslrootcert=system&sslmode=disable",
        ] {
            let err = BusStoreChoice::parse(url, None, dir).unwrap_err();
            assert_eq!(err.code, ErrorCode::Validation, "{url}");
            assert!(!err.message.contains("secret"), "{}", err.message);
        }
        BusStoreChoice::parse(
            "postgres://u:secret@db.example/bus?sslmode=require",
            None,
            dir,
        )
        .unwrap();
        BusStoreChoice::parse("postgres://u@[::1]:5432/bus", None, dir).unwrap();
        let debug = format!(
            "{:?}",
            BusStoreChoice::parse("postgres://u:secret@localhost/bus", None, dir).unwrap()
        );
        assert!(!debug.contains("secret"), "{debug}");
        // On this machine without sslmode=require: plain, never a failed
        // verification of a local self-signed certificate.
        let local = check_url("postgres://u@localhost/bus?hostaddr=127.0.0.1").unwrap();
        assert_eq!(local.config.get_ssl_mode(), SslMode::Disable);
        let verified = check_url("postgres://u@db.example/bus?sslmode=require").unwrap();
        assert_eq!(verified.config.get_ssl_mode(), SslMode::Require);
    }

    #[test]
    fn a_libpq_url_with_a_ca_file_and_a_verify_mode_reads_as_verified_tls() {
        let tmp = tempfile::tempdir().unwrap();
        let ca = tmp.path().join("ca dir").join("ca.pem");
        std::fs::create_dir_all(ca.parent().unwrap()).unwrap();
        std::fs::write(&ca, TEST_CA).unwrap();
        let escaped = ca.display().to_string().replace(' ', "%20");
        for url in [
            format!("postgres://u@db.example/bus?sslmode=verify-full&sslrootcert={escaped}"),
            format!("postgres://u@db.example/bus?sslrootcert={escaped}&sslmode=verify-ca"),
            // A CA and no mode: TLS is what was asked for.
            format!("postgres://u@db.example/bus?sslrootcert={escaped}"),
            // On this machine too.
            format!("postgres://u@localhost/bus?application_name=x&sslrootcert={escaped}"),
        ] {
            let checked = check_url(&url).unwrap();
            assert_eq!(checked.config.get_ssl_mode(), SslMode::Require, "{url}");
            assert_eq!(checked.roots.len(), 1, "{url}");
        }
        let system = check_url("postgres://u@db.example/bus?sslrootcert=system").unwrap();
        assert_eq!(system.config.get_ssl_mode(), SslMode::Require);
        assert!(system.roots.is_empty());
        // Other parameters reach the driver as they were written.
        let kept = check_url(&format!(
            "postgres://u@localhost/bus?application_name=caf%C3%A9&sslrootcert={escaped}"
        ))
        .unwrap();
        assert_eq!(kept.config.get_application_name(), Some("café"));
    }

    #[test]
    fn a_ca_file_that_is_missing_or_not_pem_is_a_clear_error() {
        let tmp = tempfile::tempdir().unwrap();
        let junk = tmp.path().join("junk.pem");
        std::fs::write(&junk, "not a certificate").unwrap();
        for (url, code) in [
            (
                "postgres://u@db.example/bus?sslrootcert=/nonexistent/ca.pem".to_owned(),
                "invalid_ca",
            ),
            (
                format!("postgres://u@db.example/bus?sslrootcert={}", junk.display()),
                "invalid_ca",
            ),
            (
                "postgres://u@db.example/bus?sslrootcert=%zz".to_owned(),
                "invalid_url",
            ),
        ] {
            let err = BusStoreChoice::parse(&url, None, std::path::Path::new("/tmp/w"))
                .map(|_| ())
                .unwrap_err();
            assert_eq!(err.code, ErrorCode::Validation, "{url}");
            assert_eq!(
                err.details.as_ref().and_then(|d| d["reason"].as_str()),
                Some(code),
                "{url}: {err:?}"
            );
        }
    }

    /// A self-signed CA certificate (only parsed here, never trusted).
    const TEST_CA: &str = "-----BEGIN CERTIFICATE-----
MIIBkzCCATmgAwIBAgIUZxP2JE8r/FZdUk9lMlfMJM/HekQwCgYIKoZIzj0EAwIw
HzEdMBsGA1UEAwwUQ29sbWVuYSB1bml0LXRlc3QgQ0EwHhcNMjYxMjA1MTYyMDQ5
WhcNMzYxMjAyMTYyMDQ5WjAfMR0wGwYDVQQDDBRDb2xtZW5hIHVuaXQtdGVzdCBD
QTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABPJG90RbaolhscfaKD4GknHzdCN9
C41s8VUQV2w4D716A0VZbmv1ZMZBs2F6KRSGrha/MqVsG0AVqZqyNtVNrvmjUzBR
MB0GA1UdDgQWBBSSNMq6bxjqlBTAuzQoqLB4HfN2IzAfBgNVHSMEGDAWgBSSNMq6
bxjqlBTAuzQoqLB4HfN2IzAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gA
MEUCIQCuFd5eMd5p9M3Er+rsfiwFTUORVVHH+KwCfeS8Eeg1owIgD+xpmsQd2yUn
TXGsS2QmsNp4MF4VLB+zKoOL0n9geQ4=
-----END CERTIFICATE-----
";
}
