//! HTTPS for a server other machines reach (`--tls-cert`, `--tls-key`):
//! rustls with the `ring` provider, a PEM certificate chain and a PEM
//! private key (PKCS#8, PKCS#1 or SEC1). HTTP/1.1 only, like plain HTTP.

use std::path::Path;
use std::sync::Arc;

use colmena_core::{AppError, Result};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;

/// A loaded certificate and key, ready to accept connections.
#[derive(Clone)]
pub struct Tls {
    pub(crate) acceptor: TlsAcceptor,
}

impl Tls {
    /// Reads the PEM files; a missing, unreadable or mismatched pair is a
    /// validation error naming the flag.
    pub fn load(cert: &Path, key: &Path) -> Result<Tls> {
        let read = |path: &Path, field: &str| {
            std::fs::read(path).map_err(|e| {
                AppError::invalid_field(
                    field,
                    "unreadable",
                    format!("cannot read {}: {e}", path.display()),
                )
            })
        };
        let cert_pem = read(cert, "tlsCert")?;
        let key_pem = read(key, "tlsKey")?;
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert_pem)
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| {
                AppError::invalid_field(
                    "tlsCert",
                    "invalid_pem",
                    format!("{} is not a PEM certificate chain: {e}", cert.display()),
                )
            })?;
        if chain.is_empty() {
            return Err(AppError::invalid_field(
                "tlsCert",
                "invalid_pem",
                format!("{} holds no certificate", cert.display()),
            ));
        }
        let private = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| {
            AppError::invalid_field(
                "tlsKey",
                "invalid_pem",
                format!("{} is not a PEM private key: {e}", key.display()),
            )
        })?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| AppError::internal(format!("no TLS versions: {e}")))?
            .with_no_client_auth()
            .with_single_cert(chain, private)
            .map_err(|e| {
                AppError::invalid_field(
                    "tlsKey",
                    "mismatched",
                    format!("the TLS certificate and key do not go together: {e}"),
                )
            })?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Tls {
            acceptor: TlsAcceptor::from(Arc::new(config)),
        })
    }
}
