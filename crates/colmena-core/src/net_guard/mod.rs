//! The address guard for requests made on an agent's behalf (`web_fetch`,
//! `web_search`'s service, source refreshes): no loopback, link-local,
//! private or metadata address unless the user allowed local network access.
//!
//! Why it is built this way:
//! - the check runs on the addresses a name *resolves to*, not on the URL
//!   text: `http://public.example` can resolve to 10.0.0.1;
//! - the connection is pinned to exactly the addresses that were checked
//!   (the client gets a resolver that only knows them), so a DNS answer that
//!   changes between the check and the connect (rebinding) cannot slip in;
//! - redirects are followed here, one hop at a time, and every hop is
//!   checked again: a public page that answers `302 → http://127.0.0.1/` is
//!   refused before anything is sent there;
//! - proxies from the environment are not used: a proxy resolves names
//!   itself, out of reach of the check;
//! - resolver, address policy and connector are injectable, so tests prove
//!   refusals happen before any connection attempt without sending a packet
//!   anywhere but loopback.

mod classify;
mod connector;
pub(crate) mod fetch;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::json;
use url::{Host, Url};

pub use classify::{AddressClass, classify, classify_name};
pub use connector::{Connector, Hop, Outgoing, ReqwestConnector};

use crate::error::{AppError, ErrorCode, Result};

/// Redirects followed before giving up.
pub const MAX_REDIRECTS: usize = 5;

/// Turns a host name into addresses.
pub trait Resolver: Send + Sync {
    fn resolve<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> BoxFuture<'a, std::io::Result<Vec<SocketAddr>>>;
}

/// The operating system's resolver (`getaddrinfo`).
pub struct SystemResolver;

impl Resolver for SystemResolver {
    fn resolve<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> BoxFuture<'a, std::io::Result<Vec<SocketAddr>>> {
        Box::pin(async move { Ok(tokio::net::lookup_host((host, port)).await?.collect()) })
    }
}

/// Decides whether one address may be connected to: `Err` names the class
/// that is refused.
pub trait AddressPolicy: Send + Sync {
    fn check(&self, addr: SocketAddr) -> std::result::Result<(), AddressClass>;
}

impl<F> AddressPolicy for F
where
    F: Fn(SocketAddr) -> std::result::Result<(), AddressClass> + Send + Sync,
{
    fn check(&self, addr: SocketAddr) -> std::result::Result<(), AddressClass> {
        self(addr)
    }
}

/// Public addresses only, plus the local classes when local network access
/// was granted (see [`AddressClass::is_local`]).
#[derive(Debug, Clone, Copy)]
pub struct DefaultPolicy {
    pub allow_local_network: bool,
}

impl AddressPolicy for DefaultPolicy {
    fn check(&self, addr: SocketAddr) -> std::result::Result<(), AddressClass> {
        match classify(addr.ip()) {
            None => Ok(()),
            Some(class) if self.allow_local_network && class.is_local() => Ok(()),
            Some(class) => Err(class),
        }
    }
}

/// A checked GET: resolve, check, connect to the checked addresses only,
/// and the same for every redirect.
#[derive(Clone)]
pub struct NetGuard {
    resolver: Arc<dyn Resolver>,
    policy: Arc<dyn AddressPolicy>,
    connector: Arc<dyn Connector>,
    max_redirects: usize,
}

impl NetGuard {
    /// The real resolver and connector with the default policy.
    pub fn system(allow_local_network: bool) -> NetGuard {
        NetGuard {
            resolver: Arc::new(SystemResolver),
            policy: Arc::new(DefaultPolicy {
                allow_local_network,
            }),
            connector: Arc::new(ReqwestConnector),
            max_redirects: MAX_REDIRECTS,
        }
    }

    pub fn with_resolver(mut self, resolver: Arc<dyn Resolver>) -> NetGuard {
        self.resolver = resolver;
        self
    }

    pub fn with_policy(mut self, policy: Arc<dyn AddressPolicy>) -> NetGuard {
        self.policy = policy;
        self
    }

    pub fn with_connector(mut self, connector: Arc<dyn Connector>) -> NetGuard {
        self.connector = connector;
        self
    }

    /// The addresses `url` may be reached at, every one of them allowed; an
    /// error (`forbidden`) when the scheme or any address is refused.
    pub async fn check(&self, url: &Url) -> Result<Vec<SocketAddr>> {
        self.check_hop(url, false).await
    }

    async fn check_hop(&self, url: &Url, redirected: bool) -> Result<Vec<SocketAddr>> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(AppError::new(
                ErrorCode::Forbidden,
                format!(
                    "{}only http and https pages can be fetched, not {}:",
                    if redirected {
                        "the page redirected elsewhere: "
                    } else {
                        ""
                    },
                    url.scheme()
                ),
            )
            .with_details(json!({ "reason": "scheme_not_allowed", "redirect": redirected })));
        }
        let port = url.port_or_known_default().unwrap_or(80);
        let (name, addrs) = match url.host() {
            None => {
                return Err(AppError::invalid_field(
                    "url",
                    "invalid_url",
                    "the URL has no host",
                ));
            }
            Some(Host::Ipv4(ip)) => (ip.to_string(), vec![SocketAddr::new(ip.into(), port)]),
            Some(Host::Ipv6(ip)) => (format!("[{ip}]"), vec![SocketAddr::new(ip.into(), port)]),
            Some(Host::Domain(name)) => {
                if let Some(class) = classify_name(name) {
                    return Err(refused(name, class, redirected));
                }
                (name.to_owned(), self.lookup(name, port).await?)
            }
        };
        for addr in &addrs {
            self.policy
                .check(*addr)
                .map_err(|class| refused(&name, class, redirected))?;
        }
        Ok(addrs)
    }

    async fn lookup(&self, name: &str, port: u16) -> Result<Vec<SocketAddr>> {
        let unresolved = || {
            AppError::new(
                ErrorCode::Upstream,
                format!("cannot resolve the host name '{name}'"),
            )
            .with_details(json!({ "reason": "dns_failed" }))
        };
        let mut addrs = self.resolver.resolve(name, port).await.map_err(|e| {
            tracing::debug!("resolving {name} failed: {e}");
            unresolved()
        })?;
        addrs.sort();
        addrs.dedup();
        if addrs.is_empty() {
            return Err(unresolved());
        }
        Ok(addrs)
    }

    /// GETs `url`, following at most [`MAX_REDIRECTS`] redirects, each hop
    /// checked before it is connected to. The answer is the first one that
    /// is not a redirect.
    pub async fn get(&self, url: &Url, timeout: Duration) -> Result<reqwest::Response> {
        let plain = Outgoing::default();
        let mut current = url.clone();
        for hop in 0..=self.max_redirects {
            let addrs = self.check_hop(&current, hop > 0).await?;
            let response = self
                .connector
                .get(Hop {
                    url: &current,
                    addrs: &addrs,
                    timeout,
                    request: &plain,
                })
                .await?;
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok());
            let (true, Some(location)) = (response.status().is_redirection(), location) else {
                return Ok(response);
            };
            current = current.join(location).map_err(|_| {
                AppError::new(
                    ErrorCode::Upstream,
                    format!("{} redirected to an invalid URL", host_of(&current)),
                )
                .with_details(json!({ "reason": "bad_redirect" }))
            })?;
        }
        Err(AppError::new(
            ErrorCode::Upstream,
            format!("{url} redirected more than {} times", self.max_redirects),
        )
        .with_details(json!({ "reason": "too_many_redirects" })))
    }
}

impl NetGuard {
    /// Sends `request` to `url`, checked like any hop. A redirect is handed
    /// back as it is, never followed: a request that carries a key or a body
    /// is not repeated to wherever an answer points.
    pub async fn send(
        &self,
        url: &Url,
        request: &Outgoing,
        timeout: Duration,
    ) -> Result<reqwest::Response> {
        let addrs = self.check_hop(url, false).await?;
        self.connector
            .get(Hop {
                url,
                addrs: &addrs,
                timeout,
                request,
            })
            .await
    }
}

fn host_of(url: &Url) -> String {
    url.host_str().unwrap_or("the page").to_owned()
}

/// The refusal: names the host as given and the address class, never the
/// resolved address (it can describe the user's own network).
fn refused(host: &str, class: AddressClass, redirected: bool) -> AppError {
    let subject = if redirected {
        format!("the page redirected to '{host}', which is")
    } else {
        format!("'{host}' is")
    };
    let hint = if class.is_local() {
        "; agents reach only public internet addresses unless local network access is allowed for them"
    } else {
        "; agents never fetch such addresses"
    };
    AppError::new(
        ErrorCode::Forbidden,
        format!("{subject} {}{hint}", class.describe()),
    )
    .with_details(json!({
        "reason": class.reason(),
        "addressClass": class.as_str(),
        "redirect": redirected,
    }))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[tokio::test]
    async fn net_literal_addresses_are_checked_without_resolving() {
        let guard = NetGuard::system(false);
        for (url, reason) in [
            ("http://127.0.0.1:1/", "loopback_address"),
            ("http://[::ffff:7f00:1]/", "loopback_address"),
            ("http://2130706433/", "loopback_address"),
            ("http://0x7f.1/", "loopback_address"),
            ("https://10.0.0.1/", "private_address"),
            (
                "http://169.254.169.254/latest/meta-data/",
                "metadata_address",
            ),
            ("http://[fe80::1]/", "link_local_address"),
            ("http://0.0.0.0:8080/", "unspecified_address"),
            ("http://metadata.google.internal/", "metadata_address"),
        ] {
            let err = guard.check(&Url::parse(url).unwrap()).await.unwrap_err();
            assert_eq!(err.code, ErrorCode::Forbidden, "{url}");
            assert_eq!(err.details.unwrap()["reason"], reason, "{url}");
        }
        let err = guard
            .check(&Url::parse("ftp://example.com/").unwrap())
            .await
            .unwrap_err();
        assert_eq!(err.details.unwrap()["reason"], "scheme_not_allowed");
    }

    #[tokio::test]
    async fn net_local_access_still_refuses_metadata() {
        let guard = NetGuard::system(true);
        let url = Url::parse("http://127.0.0.1:9/").unwrap();
        assert_eq!(guard.check(&url).await.unwrap().len(), 1);
        let url = Url::parse("http://169.254.169.254/").unwrap();
        assert_eq!(
            guard.check(&url).await.unwrap_err().details.unwrap()["reason"],
            "metadata_address"
        );
    }
}
