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

/// Whether `token` hashes to `stored_hash`, compared in constant time.
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
