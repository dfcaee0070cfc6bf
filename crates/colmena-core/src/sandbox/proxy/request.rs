//! The first request a program sends its proxy, read: where it wants to go
//! and, for a plain HTTP request, the same request as the server must see
//! it. Only two forms exist (RFC 9110 §9.3.6 and RFC 9112 §3.2.2):
//! `CONNECT host:port` (a tunnel: https, git, anything over TCP) and a
//! request whose target is a full `http://` URL. Nothing else is guessed at.

use url::Url;

/// The most a request head may hold before the proxy gives up on it.
pub(super) const MAX_HEAD: usize = 16 * 1024;

/// What a program asked its proxy for.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Request {
    /// `CONNECT host:port`: bytes both ways once connected. `url` is
    /// `http://host:port/`, the form the address check reads.
    Tunnel { url: Url },
    /// A plain HTTP request for `url`; `head` is the same request as the
    /// server must get it (origin-form target, no `Proxy-*` fields, and
    /// `Connection: close`).
    Forward { url: Url, head: Vec<u8> },
}

/// Why a head is refused: the text the program gets with a 400.
pub(super) type Refusal = &'static str;

/// Where the head ends (the index after its blank line), when it has.
pub(super) fn head_end(bytes: &[u8]) -> Option<usize> {
    bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|at| at + 4)
}

/// Reads a whole head (ending in its blank line).
pub(super) fn parse(head: &[u8]) -> Result<Request, Refusal> {
    let text = std::str::from_utf8(head).map_err(|_| "the request head is not UTF-8")?;
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap_or_default();
    let mut parts = first.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("the request line is not 'METHOD TARGET HTTP/1.x'");
    };
    if !version.starts_with("HTTP/1.") || method.is_empty() {
        return Err("the request line is not 'METHOD TARGET HTTP/1.x'");
    }
    if method.eq_ignore_ascii_case("CONNECT") {
        return tunnel(target);
    }
    let url = Url::parse(target).map_err(
        |_| "a proxy request names a full URL (http://host/path); https goes through CONNECT",
    )?;
    if url.scheme() != "http" {
        return Err("only http:// URLs are forwarded as they are; https goes through CONNECT");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("a URL with a user name or password is not forwarded");
    }
    let mut origin_form = url.path().to_owned();
    if let Some(query) = url.query() {
        origin_form.push('?');
        origin_form.push_str(query);
    }
    let mut rewritten = format!("{method} {origin_form} {version}\r\n");
    for line in lines.filter(|line| !line.is_empty()) {
        let name = line
            .split(':')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if !name.starts_with("proxy-") && name != "connection" && name != "keep-alive" {
            rewritten.push_str(line);
            rewritten.push_str("\r\n");
        }
    }
    // One request per connection: bytes after this head are passed through
    // as they are, so a second request on a kept-alive connection would
    // reach this server with its own URL and proxy fields.
    rewritten.push_str("Connection: close\r\n\r\n");
    Ok(Request::Forward {
        url,
        head: rewritten.into_bytes(),
    })
}

/// The value of the head's `Proxy-Authorization` field, when it has one
/// (the loopback door's key, `loopback.rs`).
pub(super) fn proxy_authorization(head: &[u8]) -> Option<&[u8]> {
    head.split(|&b| b == b'\n').skip(1).find_map(|line| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let colon = line.iter().position(|&b| b == b':')?;
        let (name, value) = line.split_at(colon);
        name.eq_ignore_ascii_case(b"proxy-authorization")
            .then(|| value[1..].trim_ascii())
    })
}

/// `host:port` of a `CONNECT`, with the port written out.
fn tunnel(authority: &str) -> Result<Request, Refusal> {
    let refused = "CONNECT needs host:port";
    let (_, port) = authority.rsplit_once(':').ok_or(refused)?;
    if authority.contains(['@', '/', '?', '#']) || port.parse::<u16>().is_err() {
        return Err(refused);
    }
    let url = Url::parse(&format!("http://{authority}/")).map_err(|_| refused)?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err(refused);
    }
    Ok(Request::Tunnel { url })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_connect_names_host_and_port() {
        let Request::Tunnel { url } = parse(b"CONNECT example.org:443 HTTP/1.1\r\n\r\n").unwrap()
        else {
            panic!("not a tunnel")
        };
        assert_eq!(url.host_str(), Some("example.org"));
        assert_eq!(url.port_or_known_default(), Some(443));
        let Request::Tunnel { url } = parse(b"CONNECT [::1]:22 HTTP/1.1\r\n\r\n").unwrap() else {
            panic!("not a tunnel")
        };
        assert_eq!(url.port_or_known_default(), Some(22));
    }

    #[test]
    fn a_forward_reaches_the_server_in_origin_form_without_proxy_fields_for_one_request() {
        let head = b"GET http://example.org:8080/a/b?c=1 HTTP/1.1\r\nHost: example.org:8080\r\n\
                     Proxy-Authorization: Basic eA==\r\nProxy-Connection: keep-alive\r\nAccept: */*\r\n\
                     connection: Keep-Alive\r\nKeep-Alive: timeout=5\r\n\r\n";
        let Request::Forward { url, head } = parse(head).unwrap() else {
            panic!("not a forward")
        };
        assert_eq!(url.as_str(), "http://example.org:8080/a/b?c=1");
        assert_eq!(
            String::from_utf8(head).unwrap(),
            "GET /a/b?c=1 HTTP/1.1\r\nHost: example.org:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n"
        );
    }

    #[test]
    fn the_proxy_authorization_is_read_from_the_fields_only() {
        let head = b"CONNECT a.test:443 HTTP/1.1\r\nHost: a.test\r\n\
                     proxy-AUTHORIZATION:  Basic Y29sbWVuYTp4  \r\n\r\n";
        assert_eq!(proxy_authorization(head), Some(&b"Basic Y29sbWVuYTp4"[..]));
        let none = b"GET http://a.test/Proxy-Authorization:x HTTP/1.1\r\nX: Proxy-Authorization: y\r\n\r\n";
        assert_eq!(proxy_authorization(none), None);
    }

    #[test]
    fn anything_else_is_refused_with_a_reason() {
        for head in [
            &b"GET /relative HTTP/1.1\r\n\r\n"[..],
            b"GET https://example.org/ HTTP/1.1\r\n\r\n",
            b"GET ftp://example.org/ HTTP/1.1\r\n\r\n",
            b"GET http://user:pw@example.org/ HTTP/1.1\r\n\r\n",
            b"CONNECT example.org HTTP/1.1\r\n\r\n",
            b"CONNECT user@example.org:443 HTTP/1.1\r\n\r\n",
            b"CONNECT :443 HTTP/1.1\r\n\r\n",
            b"CONNECT example.org:99999 HTTP/1.1\r\n\r\n",
            b"SSH-2.0-OpenSSH_9.2\r\n\r\n",
            b"GET http://example.org/ SPDY/3\r\n\r\n",
            b"\xff\xfe\r\n\r\n",
        ] {
            assert!(parse(head).is_err(), "{}", String::from_utf8_lossy(head));
        }
    }

    #[test]
    fn the_head_ends_at_its_blank_line() {
        assert_eq!(head_end(b"GET / HTTP/1.1\r\n\r\nbody"), Some(18));
        assert_eq!(head_end(b"GET / HTTP/1.1\r\n"), None);
    }
}
