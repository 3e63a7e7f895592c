//! Web Push message encryption (RFC 8291, with the `aes128gcm` content coding of RFC 8188): the payload is
//! encrypted for the browser's subscription key (`p256dh`) and authentication secret (`auth`), in one record.

use ring::{aead, agreement, hkdf, rand::SecureRandom};

/// The record size written in the header: one record holds the whole payload.
pub const RECORD_SIZE: u32 = 4096;
/// The header: salt (16), record size (4), key id length (1), the sender's public key (65).
pub const HEADER_LEN: usize = 16 + 4 + 1 + 65;
/// The most plaintext one record holds: the record size less the padding delimiter and the AEAD tag. Push
/// services take 4096 bytes of body at least, so the payload must also fit `4096 - HEADER_LEN - 17` (3993).
pub const MAX_PLAINTEXT: usize = 4096 - HEADER_LEN - 1 - 16;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EceError {
    #[error("the subscription's p256dh is not an uncompressed P-256 point")]
    BadPublicKey,
    #[error("the subscription's auth secret is not 16 bytes")]
    BadAuth,
    #[error("the payload is {0} bytes, more than {MAX_PLAINTEXT}")]
    TooLong(usize),
    #[error("the random generator failed")]
    Random,
}

/// Encrypts `plaintext` for a subscription: a fresh sender key pair and salt each time.
pub fn encrypt(
    ua_public: &[u8],
    auth: &[u8],
    plaintext: &[u8],
    rng: &dyn SecureRandom,
) -> Result<Vec<u8>, EceError> {
    let mut salt = [0u8; 16];
    rng.fill(&mut salt).map_err(|_| EceError::Random)?;
    let private =
        agreement::EphemeralPrivateKey::generate(&agreement::ECDH_P256, rng).map_err(|_| EceError::Random)?;
    let as_public = private.compute_public_key().map_err(|_| EceError::Random)?;
    let peer = agreement::UnparsedPublicKey::new(&agreement::ECDH_P256, ua_public);
    let secret =
        agreement::agree_ephemeral(private, &peer, |s| s.to_vec()).map_err(|_| EceError::BadPublicKey)?;
    encrypt_with(&secret, as_public.as_ref(), &salt, ua_public, auth, plaintext)
}

/// The deterministic part of [`encrypt`], given the ECDH secret, the sender's public key and the salt (public
/// for the test vectors of RFC 8291, Appendix A).
pub fn encrypt_with(
    ecdh_secret: &[u8],
    as_public: &[u8],
    salt: &[u8; 16],
    ua_public: &[u8],
    auth: &[u8],
    plaintext: &[u8],
) -> Result<Vec<u8>, EceError> {
    if ua_public.len() != 65 || ua_public[0] != 4 || as_public.len() != 65 {
        return Err(EceError::BadPublicKey);
    }
    if auth.len() != 16 {
        return Err(EceError::BadAuth);
    }
    if plaintext.len() > MAX_PLAINTEXT {
        return Err(EceError::TooLong(plaintext.len()));
    }
    // RFC 8291 section 3.4: the input keying material from the ECDH secret, keyed by the auth secret.
    let prk_key = hkdf::Salt::new(hkdf::HKDF_SHA256, auth).extract(ecdh_secret);
    let mut key_info = Vec::with_capacity(14 + 130);
    key_info.extend_from_slice(b"WebPush: info\0");
    key_info.extend_from_slice(ua_public);
    key_info.extend_from_slice(as_public);
    let ikm: [u8; 32] = expand(&prk_key, &key_info);
    // RFC 8188 section 2.2: the content key and nonce.
    let prk = hkdf::Salt::new(hkdf::HKDF_SHA256, salt).extract(&ikm);
    let cek: [u8; 16] = expand(&prk, b"Content-Encoding: aes128gcm\0");
    let nonce: [u8; 12] = expand(&prk, b"Content-Encoding: nonce\0");

    let mut body = Vec::with_capacity(HEADER_LEN + plaintext.len() + 17);
    body.extend_from_slice(salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(65);
    body.extend_from_slice(as_public);
    let mut record = Vec::with_capacity(plaintext.len() + 17);
    record.extend_from_slice(plaintext);
    // The last (and only) record's padding delimiter.
    record.push(2);
    let key = aead::LessSafeKey::new(
        aead::UnboundKey::new(&aead::AES_128_GCM, &cek).expect("a 16-byte AES-128 key"),
    );
    key.seal_in_place_append_tag(
        aead::Nonce::assume_unique_for_key(nonce),
        aead::Aad::empty(),
        &mut record,
    )
    .expect("a record far below AES-GCM's limit");
    body.extend_from_slice(&record);
    Ok(body)
}

/// A length for `ring`'s HKDF-Expand.
struct Len(usize);

impl hkdf::KeyType for Len {
    fn len(&self) -> usize {
        self.0
    }
}

fn expand<const N: usize>(prk: &hkdf::Prk, info: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    prk.expand(&[info], Len(N))
        .and_then(|okm| okm.fill(&mut out))
        .expect("HKDF-SHA256 expands to at most 255 * 32 bytes");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD as B64};

    // RFC 8291, Appendix A: the sender's key pair and salt are given, with the ECDH secret they make.
    const UA_PUBLIC: &str =
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
    const AS_PUBLIC: &str =
        "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
    const ECDH_SECRET: &str = "kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs";
    const AUTH: &str = "BTBZMqHH6r4Tts7J_aSIgg";
    const SALT: &str = "DGv6ra1nlYgDCS1FRnbzlw";
    const BODY: &str = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN";

    fn b(s: &str) -> Vec<u8> {
        B64.decode(s).unwrap()
    }

    #[test]
    fn the_rfc_8291_example_encrypts_to_its_body() {
        let salt: [u8; 16] = b(SALT).try_into().unwrap();
        let body = encrypt_with(
            &b(ECDH_SECRET),
            &b(AS_PUBLIC),
            &salt,
            &b(UA_PUBLIC),
            &b(AUTH),
            b"When I grow up, I want to be a watermelon",
        )
        .unwrap();
        assert_eq!(B64.encode(body), BODY);
    }

    #[test]
    fn bad_keys_and_long_payloads_are_refused() {
        let rng = ring::rand::SystemRandom::new();
        assert_eq!(
            encrypt(&[4; 33], &b(AUTH), b"x", &rng),
            Err(EceError::BadPublicKey)
        );
        assert_eq!(
            encrypt(&b(UA_PUBLIC), &[0; 8], b"x", &rng),
            Err(EceError::BadAuth)
        );
        // A point that is not on the curve fails the key agreement.
        assert_eq!(
            encrypt(&[4; 65], &b(AUTH), b"x", &rng),
            Err(EceError::BadPublicKey)
        );
        let long = vec![b'x'; MAX_PLAINTEXT + 1];
        assert_eq!(
            encrypt(&b(UA_PUBLIC), &b(AUTH), &long, &rng),
            Err(EceError::TooLong(MAX_PLAINTEXT + 1))
        );
        let fits = vec![b'x'; MAX_PLAINTEXT];
        assert_eq!(encrypt(&b(UA_PUBLIC), &b(AUTH), &fits, &rng).unwrap().len(), 4096);
    }
}
