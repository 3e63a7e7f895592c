//! Secrets and identifiers drawn from the operating system's random generator: match seeds, seat tokens, join
//! codes and match ids. Seat tokens are stored and compared only as SHA-256 hashes, in constant time.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

fn os_random<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).expect("the operating system's random generator is available");
    bytes
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
    out
}

/// A match seed. Never sent to a player.
pub fn seed() -> u64 {
    u64::from_le_bytes(os_random())
}

/// A seed for the server's own choices (bots, turn timer), which need no secrecy but must not be predictable
/// from the match seed.
pub fn bot_seed() -> u64 {
    u64::from_le_bytes(os_random())
}

/// [`bot_seed`], except in a scripted run whose every match is dealt from `match_seed` (tests and documentation
/// runs, `Config::match_seed`): the bots and stand-ins then choose alike at every run too.
pub fn bot_seed_for(match_seed: Option<u64>) -> u64 {
    match match_seed {
        Some(seed) => seed ^ 0x5eed_b075_5eed_b075,
        None => bot_seed(),
    }
}

/// A seat token: 256 random bits as 64 hex digits. Given to the client once; the server keeps its hash.
pub fn seat_token() -> String {
    hex(&os_random::<32>())
}

/// The hex SHA-256 of a seat token, as stored.
pub fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// The key under which an email address's unsubscribe tokens and endpoints are found: `email:` and the hex SHA-256
/// of the address, trimmed and in lower case, so that no table holds the address for it.
pub fn email_address_key(address: &str) -> String {
    format!("email:{}", token_hash(&address.trim().to_lowercase()))
}

/// Whether `token` hashes to `stored_hash`, compared in constant time: `subtle::ConstantTimeEq` (crate `subtle`,
/// https://docs.rs/subtle) compares every byte without branching on the data. Only the lengths may differ in
/// time, and both sides are always 64-digit SHA-256 hashes, so they never do.
pub fn token_matches(token: &str, stored_hash: &str) -> bool {
    token_hash(token).as_bytes().ct_eq(stored_hash.as_bytes()).into()
}

/// A match id: 128 random bits as 32 hex digits.
pub fn match_id() -> String {
    hex(&os_random::<16>())
}

/// Letters and digits that cannot be mistaken for one another (no 0/O, 1/I/L).
pub const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
/// A join code's characters: 16 of 31, 79.3 bits, so that guessing at the look-up limits finds nothing
/// (docs/reliability.md gives the arithmetic). Shown in groups of [`CODE_GROUP`] joined by dashes.
pub const CODE_LENGTH: usize = 16;
pub const CODE_GROUP: usize = 4;
/// The length of the codes given before issue 42: lobbies stored with one are still found by it.
pub const OLD_CODE_LENGTH: usize = 6;

/// A join code, drawn uniformly from [`CODE_ALPHABET`]: easy to read aloud and type, hard to guess.
pub fn join_code() -> String {
    // 256 is not a multiple of the alphabet's size; redraw the few biased bytes.
    let limit = 256 - 256 % CODE_ALPHABET.len();
    let mut code = String::with_capacity(CODE_LENGTH);
    while code.len() < CODE_LENGTH {
        for b in os_random::<CODE_LENGTH>() {
            if (b as usize) < limit && code.len() < CODE_LENGTH {
                code.push(CODE_ALPHABET[b as usize % CODE_ALPHABET.len()] as char);
            }
        }
    }
    code
}

/// A join code as typed by a person: case, spaces and dashes do not matter (`abcd-efgh-...` is `ABCDEFGH...`).
pub fn normalise_code(code: &str) -> String {
    code.chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// Whether a normalised code has the shape of one the server gives (or gave): only a lobby with such a code is
/// looked for in the database.
pub fn is_code_shaped(code: &str) -> bool {
    matches!(code.len(), CODE_LENGTH | OLD_CODE_LENGTH) && code.bytes().all(|b| CODE_ALPHABET.contains(&b))
}

/// A join code in groups of [`CODE_GROUP`] joined by dashes, as people read it (`ABCD-EFGH-JKMN-PQRS`); an old
/// six-character code stays whole.
pub fn grouped_code(code: &str) -> String {
    if code.len() != CODE_LENGTH {
        return code.to_string();
    }
    code.as_bytes()
        .chunks(CODE_GROUP)
        .map(|g| std::str::from_utf8(g).expect("codes are ASCII"))
        .collect::<Vec<_>>()
        .join("-")
}

/// The watch token of a finished lobby's replay link: HMAC-SHA256 keyed by the lobby's seat-token hashes (secrets
/// the server keeps and never sends), over its code, as 32 hex digits (128 bits). It needs no storage, is the
/// same on every node and after a restart, and cannot be computed from anything a client sees.
pub fn watch_token<'a>(code: &str, seat_token_hashes: impl IntoIterator<Item = &'a str>) -> String {
    use hmac::{KeyInit, Mac};
    let mut key = Sha256::new();
    for hash in seat_token_hashes {
        key.update(hash.as_bytes());
        key.update(b"\n");
    }
    let mut mac = hmac::Hmac::<Sha256>::new_from_slice(&key.finalize()).expect("HMAC takes any key length");
    mac.update(b"tabletop watch ");
    mac.update(code.as_bytes());
    hex(&mac.finalize().into_bytes()[..16])
}

/// Whether `token` is `expected` (a watch token), compared in constant time.
pub fn watch_token_matches(token: &str, expected: &str) -> bool {
    token.len() == expected.len() && bool::from(token.as_bytes().ct_eq(expected.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_256_bits_and_only_their_hash_matches() {
        let token = seat_token();
        assert_eq!(token.len(), 64);
        assert_ne!(token, seat_token());
        let hash = token_hash(&token);
        assert_ne!(hash, token);
        assert!(token_matches(&token, &hash));
        assert!(!token_matches(&seat_token(), &hash));
        assert!(!token_matches(&token, &hash[..63]));
        // Known answer: SHA-256 of the empty string.
        assert_eq!(
            token_hash(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    /// The constant-time comparison gives the right answer for equal hashes, hashes differing in the first, a
    /// middle or the last digit, and hashes of another length.
    #[test]
    fn the_constant_time_compare_answers_like_equality() {
        let token = seat_token();
        let hash = token_hash(&token);
        assert!(token_matches(&token, &hash));
        for at in [0, 31, 63] {
            let mut other = hash.clone().into_bytes();
            other[at] = if other[at] == b'0' { b'1' } else { b'0' };
            let other = String::from_utf8(other).unwrap();
            assert!(!token_matches(&token, &other), "differs at {at}");
        }
        assert!(!token_matches(&token, ""));
        assert!(!token_matches(&token, &format!("{hash}0")));
        assert!(!token_matches(&hash, &hash), "the hash itself is not a token");
    }

    /// Seat tokens and match ids come from the OS generator: every one distinct, and each of their bits set
    /// about half the time over many draws (a constant, a counter or a clock would fail this). 300 draws: a bit
    /// falls outside 30%..70% with probability about 1e-12 for a fair generator.
    #[test]
    fn seat_tokens_and_match_ids_are_uniformly_random() {
        fn bits(hex: &str) -> Vec<bool> {
            hex.bytes()
                .flat_map(|d| {
                    let v = (d as char).to_digit(16).expect("hex");
                    (0..4).map(move |i| v >> i & 1 == 1)
                })
                .collect()
        }
        for (what, make, width) in [
            ("seat token", seat_token as fn() -> String, 256),
            ("match id", match_id as fn() -> String, 128),
        ] {
            let draws: Vec<String> = (0..300).map(|_| make()).collect();
            let distinct: std::collections::BTreeSet<&String> = draws.iter().collect();
            assert_eq!(distinct.len(), draws.len(), "{what}s repeat");
            let mut ones = vec![0u32; width];
            for d in &draws {
                let b = bits(d);
                assert_eq!(b.len(), width, "{what} has {width} bits");
                for (i, set) in b.into_iter().enumerate() {
                    ones[i] += u32::from(set);
                }
            }
            for (i, n) in ones.iter().enumerate() {
                assert!((90..=210).contains(n), "{what} bit {i} set {n} times in 300");
            }
        }
    }

    /// Codes are 16 characters of the 31-letter alphabet, every character used about equally (a bias would shrink
    /// the space the docs count on); case, spaces and dashes are ignored; old 6-character codes keep their shape.
    #[test]
    fn join_codes_are_long_unambiguous_and_uniform() {
        assert_eq!(CODE_LENGTH, 16);
        assert_eq!(CODE_ALPHABET.len(), 31);
        // 31^16 > 7e23: the space docs/reliability.md counts on.
        assert!((CODE_ALPHABET.len() as f64).powi(CODE_LENGTH as i32) > 7.0e23);
        let mut counts = [0u32; 256];
        for _ in 0..2000 {
            let code = join_code();
            assert_eq!(code.len(), CODE_LENGTH);
            assert!(code.bytes().all(|b| CODE_ALPHABET.contains(&b)), "{code}");
            assert!(is_code_shaped(&code));
            let grouped = grouped_code(&code);
            assert_eq!(grouped.len(), 19, "{grouped}");
            assert_eq!(normalise_code(&format!(" {} ", grouped.to_lowercase())), code);
            assert_eq!(normalise_code(&code.to_lowercase()), code);
            for b in code.bytes() {
                counts[b as usize] += 1;
            }
        }
        // 32,000 characters, about 1,032 of each: a fair draw stays within 800..1,270 (7 standard deviations).
        for &b in CODE_ALPHABET {
            assert!(
                (800..1270).contains(&counts[b as usize]),
                "{} drawn {} times",
                b as char,
                counts[b as usize]
            );
        }
        for ambiguous in b"0O1IL" {
            assert!(!CODE_ALPHABET.contains(ambiguous));
        }
        assert!(is_code_shaped("ABCDEF"), "an old code is still looked for");
        assert_eq!(grouped_code("ABCDEF"), "ABCDEF");
        for not_a_code in ["", "ABCDE", "ABCDEFG", "ABCDEFGHJKMNPQR0", "ABCDEFGHJKMNPQRSTU"] {
            assert!(!is_code_shaped(not_a_code), "{not_a_code}");
        }
    }

    /// A watch token is 128 bits, fixed for a lobby's seats, and changes with the code or any seat's hash.
    #[test]
    fn watch_tokens_depend_on_the_code_and_every_seat() {
        let (a, b) = (token_hash(&seat_token()), token_hash(&seat_token()));
        let token = watch_token("ABCD", [a.as_str(), b.as_str()]);
        assert_eq!(token.len(), 32);
        assert_eq!(token, watch_token("ABCD", [a.as_str(), b.as_str()]));
        assert!(watch_token_matches(&token, &token));
        assert_ne!(token, watch_token("ABCE", [a.as_str(), b.as_str()]));
        assert_ne!(token, watch_token("ABCD", [a.as_str()]));
        assert_ne!(token, watch_token("ABCD", [b.as_str(), a.as_str()]));
        assert!(!watch_token_matches(&token[..31], &token));
        assert!(!watch_token_matches("", &token));
    }
}
