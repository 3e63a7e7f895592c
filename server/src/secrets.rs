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

/// A seat token: 256 random bits as 64 hex digits. Given to the client once; the server keeps its hash.
pub fn seat_token() -> String {
    hex(&os_random::<32>())
}

/// The hex SHA-256 of a seat token, as stored.
pub fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
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
pub const CODE_LENGTH: usize = 6;

/// A short join code, easy to read aloud and type.
pub fn join_code() -> String {
    let bytes = os_random::<CODE_LENGTH>();
    // 256 is not a multiple of the alphabet's size; redraw the few biased bytes.
    let mut code = String::with_capacity(CODE_LENGTH);
    let limit = 256 - 256 % CODE_ALPHABET.len();
    let mut pool = bytes.to_vec();
    while code.len() < CODE_LENGTH {
        let b = match pool.pop() {
            Some(b) => b,
            None => {
                pool = os_random::<CODE_LENGTH>().to_vec();
                continue;
            }
        };
        if (b as usize) < limit {
            code.push(CODE_ALPHABET[b as usize % CODE_ALPHABET.len()] as char);
        }
    }
    code
}

/// A join code as typed by a person: case and surrounding spaces do not matter.
pub fn normalise_code(code: &str) -> String {
    code.trim().to_ascii_uppercase()
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

    #[test]
    fn join_codes_use_only_unambiguous_characters() {
        for _ in 0..200 {
            let code = join_code();
            assert_eq!(code.len(), CODE_LENGTH);
            assert!(code.bytes().all(|b| CODE_ALPHABET.contains(&b)), "{code}");
            assert_eq!(normalise_code(&format!(" {} ", code.to_lowercase())), code);
        }
        for ambiguous in b"0O1IL" {
            assert!(!CODE_ALPHABET.contains(ambiguous));
        }
    }
}
