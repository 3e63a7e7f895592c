//! Clients behind trusted reverse proxies (`--trusted-proxies`): the address a connection's per-address limits
//! count is the client's, read from `X-Forwarded-For`, when the connection comes from a proxy the server trusts,
//! and [`limit_key`] groups addresses that one client holds together (an IPv6 /64) under one key.

use std::net::{IpAddr, Ipv6Addr};

/// The key every per-address limit counts a client under: an IPv4 address as itself (also when seen through an
/// IPv6 socket as `::ffff:a.b.c.d`), an IPv6 address as its /64 network (the low 64 bits zeroed). One
/// subscriber or host is routinely given a whole /64, so counting each IPv6 address alone would let one client
/// open 2^64 times the allowance. Idempotent: the key of a key is itself.
pub fn limit_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !u128::from(u64::MAX))),
        },
    }
}

/// One trusted address or network: an address and how many leading bits of it must match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Net {
    addr: IpAddr,
    prefix: u8,
}

impl Net {
    fn parse(text: &str) -> Result<Net, String> {
        let (addr, prefix) = match text.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (text, None),
        };
        let addr: IpAddr = addr
            .parse()
            .map_err(|_| format!("`{text}` is not an IP address or a network such as 10.0.0.0/8"))?;
        let bits = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => bits,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= bits)
                .ok_or_else(|| format!("`{text}`: the prefix length must be 0 to {bits}"))?,
        };
        Ok(Net { addr, prefix })
    }

    fn contains(&self, ip: IpAddr) -> bool {
        // An IPv4 client seen through an IPv6 socket (::ffff:a.b.c.d) is that IPv4 address.
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        match (self.addr, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(self.prefix)).unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX.checked_shl(128 - u32::from(self.prefix)).unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

/// The reverse proxies whose `X-Forwarded-For` the server believes (none by default).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<Net>);

impl TrustedProxies {
    /// A comma-separated list of addresses and networks (`127.0.0.1,10.0.0.0/8,::1`); empty for none.
    pub fn parse(text: &str) -> Result<TrustedProxies, String> {
        text.split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(Net::parse)
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(ip))
    }

    /// The client's address of a connection from `peer` carrying these `X-Forwarded-For` header values: `peer`
    /// itself unless it is a trusted proxy; otherwise, reading the list from its right end (the hop nearest the
    /// server), the first address that is not a trusted proxy. When every listed address is trusted, the
    /// leftmost; when an entry is not an address (or there is none), the last trusted hop before it. A client
    /// cannot choose its address by sending the header itself: what it writes is left of what the proxies
    /// append, and only what trusted proxies appended is believed.
    pub fn client_ip<'a>(&self, peer: IpAddr, forwarded_for: impl IntoIterator<Item = &'a str>) -> IpAddr {
        if !self.trusts(peer) {
            return peer;
        }
        let hops: Vec<&str> = forwarded_for.into_iter().flat_map(|v| v.split(',')).collect();
        let mut client = peer;
        for hop in hops.iter().rev() {
            let Ok(ip) = hop.trim().parse::<IpAddr>() else {
                return client;
            };
            client = ip;
            if !self.trusts(ip) {
                return ip;
            }
        }
        client
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn ipv6_addresses_count_by_their_64_network_and_mapped_ipv4_as_ipv4() {
        // One /64: one key, whatever the interface bits.
        let key = limit_key(ip("2001:db8:1:2::1"));
        assert_eq!(key, ip("2001:db8:1:2::"));
        for same in [
            "2001:db8:1:2::",
            "2001:db8:1:2:ffff:ffff:ffff:ffff",
            "2001:db8:1:2:dead:beef:0:7",
        ] {
            assert_eq!(limit_key(ip(same)), key, "{same}");
        }
        // The next /64, and another network: other keys.
        assert_ne!(limit_key(ip("2001:db8:1:3::1")), key);
        assert_ne!(limit_key(ip("2001:db9:1:2::1")), key);
        // IPv4, and IPv4 seen through an IPv6 socket: the IPv4 address itself, never grouped.
        assert_eq!(limit_key(ip("192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(limit_key(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));
        assert_ne!(limit_key(ip("192.0.2.7")), limit_key(ip("192.0.2.8")));
        // Loopback ::1 is the network ::/64; a key's key is itself.
        assert_eq!(limit_key(ip("::1")), ip("::"));
        for any in ["2001:db8:1:2::1", "::ffff:10.0.0.1", "10.0.0.1", "::1"] {
            assert_eq!(limit_key(limit_key(ip(any))), limit_key(ip(any)), "{any}");
        }
    }

    #[test]
    fn addresses_and_networks_are_parsed_and_matched() {
        let trusted = TrustedProxies::parse("127.0.0.1, 10.0.0.0/8,fd00::/8").unwrap();
        for yes in ["127.0.0.1", "10.1.2.3", "fd12::1", "::ffff:10.9.9.9"] {
            assert!(trusted.trusts(ip(yes)), "{yes}");
        }
        for no in ["127.0.0.2", "11.0.0.1", "fe80::1", "::1"] {
            assert!(!trusted.trusts(ip(no)), "{no}");
        }
        assert!(TrustedProxies::parse("0.0.0.0/0").unwrap().trusts(ip("8.8.8.8")));
        assert_eq!(TrustedProxies::parse(" ").unwrap(), TrustedProxies::default());
        for bad in ["localhost", "10.0.0.0/33", "::/129", "10.0.0.0/x"] {
            assert!(TrustedProxies::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_client_is_the_last_untrusted_address_and_only_trusted_peers_are_believed() {
        let trusted = TrustedProxies::parse("127.0.0.1,10.0.0.0/8").unwrap();
        let lb = ip("127.0.0.1");
        // A connection not from a proxy: its own address, whatever it claims.
        assert_eq!(
            trusted.client_ip(ip("192.0.2.7"), ["198.51.100.1"]),
            ip("192.0.2.7")
        );
        assert_eq!(TrustedProxies::default().client_ip(lb, ["198.51.100.1"]), lb);
        // Through the balancer.
        assert_eq!(trusted.client_ip(lb, ["198.51.100.1"]), ip("198.51.100.1"));
        // A client that forged an entry: the balancer appended the real one, to the right.
        assert_eq!(
            trusted.client_ip(lb, ["6.6.6.6, 198.51.100.1"]),
            ip("198.51.100.1")
        );
        assert_eq!(
            trusted.client_ip(lb, ["6.6.6.6", "198.51.100.1"]),
            ip("198.51.100.1")
        );
        // Through two trusted proxies.
        assert_eq!(
            trusted.client_ip(lb, ["198.51.100.1, 10.0.0.5"]),
            ip("198.51.100.1")
        );
        // Every hop trusted: the leftmost. No header, or garbage: the last trusted hop.
        assert_eq!(trusted.client_ip(lb, ["10.0.0.9, 10.0.0.5"]), ip("10.0.0.9"));
        assert_eq!(trusted.client_ip(lb, []), lb);
        assert_eq!(trusted.client_ip(lb, ["unknown"]), lb);
        assert_eq!(
            trusted.client_ip(lb, ["198.51.100.1, junk, 10.0.0.5"]),
            ip("10.0.0.5")
        );
    }
}
