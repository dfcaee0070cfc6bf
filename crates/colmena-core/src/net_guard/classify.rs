//! Which class an IP address (or a well-known host name) belongs to.
//!
//! Why a table of our own rather than `Ipv4Addr::is_private` and friends:
//! the standard library leaves out most of what matters here (CGNAT,
//! benchmarking, IPv4 addresses written as IPv6, NAT64, 6to4, unique-local
//! IPv6 on stable) and treats nothing as a cloud metadata address. An
//! attacker picks whichever spelling is missing, so every spelling of a
//! local address is folded back onto its IPv4 or IPv6 class here, once.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not on the public internet. `None` from [`classify`]
/// means public.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddressClass {
    /// 127.0.0.0/8, ::1: this computer.
    Loopback,
    /// 169.254.0.0/16, fe80::/10.
    LinkLocal,
    /// 10/8, 172.16/12, 192.168/16, 100.64/10 (CGNAT), fc00::/7, fec0::/10.
    Private,
    /// Cloud instance metadata (169.254.169.254, fd00:ec2::254, …): it hands
    /// out credentials to whoever asks from inside the machine.
    Metadata,
    /// 0.0.0.0/8, ::.
    Unspecified,
    /// 255.255.255.255.
    Broadcast,
    /// 224.0.0.0/4, ff00::/8.
    Multicast,
    /// 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20.
    Documentation,
    /// 198.18.0.0/15, 2001:2::/48.
    Benchmark,
    /// Reserved, deprecated or not globally routed (240/4, 192.0.0/24,
    /// Teredo, IPv6 outside 2000::/3, …).
    Reserved,
}

impl AddressClass {
    /// The class as written in `details.addressClass`.
    pub fn as_str(self) -> &'static str {
        match self {
            AddressClass::Loopback => "loopback",
            AddressClass::LinkLocal => "link_local",
            AddressClass::Private => "private",
            AddressClass::Metadata => "metadata",
            AddressClass::Unspecified => "unspecified",
            AddressClass::Broadcast => "broadcast",
            AddressClass::Multicast => "multicast",
            AddressClass::Documentation => "documentation",
            AddressClass::Benchmark => "benchmark",
            AddressClass::Reserved => "reserved",
        }
    }

    /// The stable `details.reason` of a refusal (`private_address`, …).
    pub fn reason(self) -> &'static str {
        match self {
            AddressClass::Loopback => "loopback_address",
            AddressClass::LinkLocal => "link_local_address",
            AddressClass::Private => "private_address",
            AddressClass::Metadata => "metadata_address",
            AddressClass::Unspecified => "unspecified_address",
            AddressClass::Broadcast => "broadcast_address",
            AddressClass::Multicast => "multicast_address",
            AddressClass::Documentation => "documentation_address",
            AddressClass::Benchmark => "benchmark_address",
            AddressClass::Reserved => "reserved_address",
        }
    }

    /// The class for a person: "a private network address".
    pub fn describe(self) -> &'static str {
        match self {
            AddressClass::Loopback => "a loopback address (this computer)",
            AddressClass::LinkLocal => "a link-local address",
            AddressClass::Private => "a private network address",
            AddressClass::Metadata => "a cloud metadata address",
            AddressClass::Unspecified => "an unspecified address",
            AddressClass::Broadcast => "a broadcast address",
            AddressClass::Multicast => "a multicast address",
            AddressClass::Documentation => "a documentation-only address",
            AddressClass::Benchmark => "a benchmarking address",
            AddressClass::Reserved => "a reserved address",
        }
    }

    /// Whether granting an agent local network access opens this class.
    /// Metadata never opens (it is a credential store, not a service a
    /// person runs), nor do classes that cannot hold an HTTP server.
    /// Benchmarking addresses open because "fake-IP" proxies hand them out.
    pub fn is_local(self) -> bool {
        matches!(
            self,
            AddressClass::Loopback
                | AddressClass::LinkLocal
                | AddressClass::Private
                | AddressClass::Benchmark
        )
    }
}

/// Host names that are metadata services whatever they resolve to.
const METADATA_NAMES: [&str; 5] = [
    "metadata.google.internal",
    "metadata.goog",
    "metadata",
    "instance-data",
    "instance-data.ec2.internal",
];

/// The class of a host name known without resolving it (metadata names).
pub fn classify_name(host: &str) -> Option<AddressClass> {
    let name = host.trim_end_matches('.').to_ascii_lowercase();
    METADATA_NAMES
        .contains(&name.as_str())
        .then_some(AddressClass::Metadata)
}

/// The class of `ip`, or `None` for a public address.
pub fn classify(ip: IpAddr) -> Option<AddressClass> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn in_v4(ip: u32, net: [u8; 4], bits: u32) -> bool {
    let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
    ip & mask == u32::from_be_bytes(net) & mask
}

fn classify_v4(ip: Ipv4Addr) -> Option<AddressClass> {
    use AddressClass::*;
    let n = u32::from(ip);
    const METADATA: [[u8; 4]; 3] = [
        [169, 254, 169, 254],
        [169, 254, 170, 2],
        [100, 100, 100, 200],
    ];
    const TABLE: [([u8; 4], u32, AddressClass); 16] = [
        ([0, 0, 0, 0], 8, Unspecified),
        ([255, 255, 255, 255], 32, Broadcast),
        ([127, 0, 0, 0], 8, Loopback),
        ([10, 0, 0, 0], 8, Private),
        ([172, 16, 0, 0], 12, Private),
        ([192, 168, 0, 0], 16, Private),
        ([100, 64, 0, 0], 10, Private),
        ([169, 254, 0, 0], 16, LinkLocal),
        ([192, 0, 0, 0], 24, Reserved),
        ([192, 0, 2, 0], 24, Documentation),
        ([198, 51, 100, 0], 24, Documentation),
        ([203, 0, 113, 0], 24, Documentation),
        ([198, 18, 0, 0], 15, Benchmark),
        ([192, 88, 99, 0], 24, Reserved),
        ([224, 0, 0, 0], 4, Multicast),
        ([240, 0, 0, 0], 4, Reserved),
    ];
    if METADATA.contains(&ip.octets()) {
        return Some(Metadata);
    }
    TABLE
        .iter()
        .find(|(net, bits, _)| in_v4(n, *net, *bits))
        .map(|(_, _, class)| *class)
}

fn embedded_v4(hi: u16, lo: u16) -> Ipv4Addr {
    Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo))
}

fn classify_v6(ip: Ipv6Addr) -> Option<AddressClass> {
    use AddressClass::*;
    let s = ip.segments();
    if ip.is_unspecified() {
        return Some(Unspecified);
    }
    if ip.is_loopback() {
        return Some(Loopback);
    }
    if s == [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254] {
        return Some(Metadata);
    }
    // ::ffff:a.b.c.d (mapped) is the IPv4 address itself.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4);
    }
    // ::a.b.c.d (compatible, deprecated) and ::ffff:0:a.b.c.d (translated):
    // never public, and local when the IPv4 address is.
    if s[..6] == [0; 6] || s[..6] == [0, 0, 0, 0, 0xffff, 0] {
        return classify_v4(embedded_v4(s[6], s[7])).or(Some(Reserved));
    }
    // 64:ff9b::/96: NAT64 reaches the embedded IPv4 address.
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return classify_v4(embedded_v4(s[6], s[7]));
    }
    // 2002::/16: 6to4 reaches the embedded IPv4 address.
    if s[0] == 0x2002 {
        return classify_v4(embedded_v4(s[1], s[2]));
    }
    let first = s[0];
    let class = if s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1 {
        Private // 64:ff9b:1::/48, local-use NAT64
    } else if (s[0], s[1]) == (0x2001, 0x0db8) || (s[0] == 0x3fff && s[1] < 0x1000) {
        Documentation
    } else if (s[0], s[1], s[2]) == (0x2001, 0x0002, 0) {
        Benchmark
    } else if s[0] == 0x2001 && s[1] < 0x0200 {
        Reserved // 2001::/23, IETF assignments including Teredo
    } else if first & 0xfe00 == 0xfc00 || first & 0xffc0 == 0xfec0 {
        Private
    } else if first & 0xffc0 == 0xfe80 {
        LinkLocal
    } else if first & 0xff00 == 0xff00 {
        Multicast
    } else if first & 0xe000 != 0x2000 {
        Reserved // outside global unicast 2000::/3 (100::/64 discard, …)
    } else {
        return None;
    };
    Some(class)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::AddressClass::*;
    use super::*;

    #[test]
    fn net_classifier_table() {
        let table: &[(&str, Option<AddressClass>)] = &[
            ("127.0.0.1", Some(Loopback)),
            ("127.255.255.254", Some(Loopback)),
            ("::1", Some(Loopback)),
            ("::ffff:127.0.0.1", Some(Loopback)),
            ("::127.0.0.1", Some(Loopback)),
            ("::ffff:0:127.0.0.1", Some(Loopback)),
            ("64:ff9b::7f00:1", Some(Loopback)),
            ("2002:7f00:1::", Some(Loopback)),
            ("10.0.0.1", Some(Private)),
            ("172.16.0.1", Some(Private)),
            ("172.31.255.255", Some(Private)),
            ("172.32.0.1", None),
            ("192.168.1.1", Some(Private)),
            ("100.64.0.1", Some(Private)),
            ("100.127.255.255", Some(Private)),
            ("100.128.0.1", None),
            ("fc00::1", Some(Private)),
            ("fd12:3456::1", Some(Private)),
            ("fec0::1", Some(Private)),
            ("::ffff:10.0.0.1", Some(Private)),
            ("::ffff:192.168.0.10", Some(Private)),
            ("64:ff9b:1::1", Some(Private)),
            ("169.254.0.1", Some(LinkLocal)),
            ("fe80::1", Some(LinkLocal)),
            ("febf::1", Some(LinkLocal)),
            ("169.254.169.254", Some(Metadata)),
            ("169.254.170.2", Some(Metadata)),
            ("100.100.100.200", Some(Metadata)),
            ("fd00:ec2::254", Some(Metadata)),
            ("::ffff:169.254.169.254", Some(Metadata)),
            ("0.0.0.0", Some(Unspecified)),
            ("0.1.2.3", Some(Unspecified)),
            ("::", Some(Unspecified)),
            ("255.255.255.255", Some(Broadcast)),
            ("224.0.0.1", Some(Multicast)),
            ("239.255.255.250", Some(Multicast)),
            ("ff02::1", Some(Multicast)),
            ("192.0.2.1", Some(Documentation)),
            ("198.51.100.7", Some(Documentation)),
            ("203.0.113.9", Some(Documentation)),
            ("2001:db8::1", Some(Documentation)),
            ("3fff::1", Some(Documentation)),
            ("3fff:1000::1", None),
            ("198.18.0.1", Some(Benchmark)),
            ("198.19.255.255", Some(Benchmark)),
            ("2001:2::1", Some(Benchmark)),
            ("240.0.0.1", Some(Reserved)),
            ("192.0.0.8", Some(Reserved)),
            ("2001::1", Some(Reserved)),
            ("100::1", Some(Reserved)),
            ("::8.8.8.8", Some(Reserved)),
            ("8.8.8.8", None),
            ("1.1.1.1", None),
            ("93.184.216.34", None),
            ("2606:4700:4700::1111", None),
            ("2a00:1450:4001::200e", None),
            ("::ffff:8.8.8.8", None),
            ("64:ff9b::808:808", None),
        ];
        for (text, expected) in table {
            let ip: IpAddr = text.parse().unwrap();
            assert_eq!(classify(ip), *expected, "{text}");
        }
    }

    #[test]
    fn net_metadata_names_are_known_without_resolving() {
        for name in [
            "metadata.google.internal",
            "METADATA.google.internal.",
            "metadata",
            "instance-data.ec2.internal",
        ] {
            assert_eq!(classify_name(name), Some(Metadata), "{name}");
        }
        assert_eq!(classify_name("example.com"), None);
        assert_eq!(classify_name("metadata.example.com"), None);
    }

    #[test]
    fn net_local_access_opens_only_local_classes() {
        assert!(Loopback.is_local() && Private.is_local() && LinkLocal.is_local());
        assert!(!Metadata.is_local());
        assert!(!Multicast.is_local() && !Unspecified.is_local());
        assert_eq!(Private.reason(), "private_address");
    }
}
