//! The server's VAPID identity (RFC 8292): one P-256 key pair that signs every push request, so that a push
//! service accepts messages for a subscription only from the server whose public key the page subscribed with.
//! From the settings (`VAPID_PRIVATE_KEY` with `VAPID_PUBLIC_KEY`), or generated once and kept in the database
//! (`vapid_keys`, migration 0019), so that every node and every restart signs with the same key.

use std::fmt;

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD as B64};
use ring::{
    rand::SystemRandom,
    signature::{self, EcdsaKeyPair, KeyPair},
};

use crate::store::{Store, StoreError};

/// How long a signed token is good for: RFC 8292 allows at most 24 hours; 12 leaves room for clock skew.
pub const TOKEN_LIFETIME_SECS: u64 = 12 * 3600;

/// The key pair, and the public key as the page's `applicationServerKey` (base64url of the uncompressed point).
pub struct VapidKey {
    pair: EcdsaKeyPair,
    public_b64: String,
    /// The operator's contact (`VAPID_SUBJECT`), the token's `sub` when set.
    subject: Option<String>,
}

impl fmt::Debug for VapidKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VapidKey")
            .field("public", &self.public_b64)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum VapidError {
    #[error("VAPID_PRIVATE_KEY and VAPID_PUBLIC_KEY must be set together")]
    OnlyOne,
    #[error("the VAPID key is not base64url")]
    NotBase64,
    #[error(
        "the VAPID keys are not a P-256 key pair (32-byte private scalar, 65-byte public point, matching)"
    )]
    NotAPair,
    #[error("VAPID_SUBJECT must be a mailto: or https: URL")]
    BadSubject,
    #[error("the stored VAPID key cannot be read: {0}")]
    Stored(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl VapidKey {
    /// The key pair of the settings: base64url of the raw private scalar and of the public point, as
    /// `web-push generate-vapid-keys` prints them. The two must match.
    pub fn from_settings(private: &str, public: &str, subject: Option<&str>) -> Result<VapidKey, VapidError> {
        let private = B64.decode(private.trim()).map_err(|_| VapidError::NotBase64)?;
        let public = B64.decode(public.trim()).map_err(|_| VapidError::NotBase64)?;
        let pair = EcdsaKeyPair::from_private_key_and_public_key(
            &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            &private,
            &public,
            &SystemRandom::new(),
        )
        .map_err(|_| VapidError::NotAPair)?;
        VapidKey::new(pair, subject)
    }

    fn from_pkcs8(pkcs8: &[u8], subject: Option<&str>) -> Result<VapidKey, VapidError> {
        let pair = EcdsaKeyPair::from_pkcs8(
            &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            pkcs8,
            &SystemRandom::new(),
        )
        .map_err(|e| VapidError::Stored(e.to_string()))?;
        VapidKey::new(pair, subject)
    }

    fn new(pair: EcdsaKeyPair, subject: Option<&str>) -> Result<VapidKey, VapidError> {
        let subject = subject.map(str::trim);
        if let Some(subject) = subject {
            let scheme_ok = subject
                .strip_prefix("mailto:")
                .or_else(|| subject.strip_prefix("https://"))
                .is_some_and(|rest| !rest.is_empty() && !rest.chars().any(char::is_whitespace));
            if !scheme_ok {
                return Err(VapidError::BadSubject);
            }
        }
        let public_b64 = B64.encode(pair.public_key().as_ref());
        Ok(VapidKey {
            pair,
            public_b64,
            subject: subject.map(str::to_owned),
        })
    }

    /// The key of the settings when both are given, else the one in the database, generated and stored by the
    /// first node that asks (a concurrent first start of two nodes keeps one of the two).
    pub async fn load(
        private: Option<&str>,
        public: Option<&str>,
        subject: Option<&str>,
        store: &Store,
        now: rules::Millis,
    ) -> Result<VapidKey, VapidError> {
        match (private, public) {
            (Some(private), Some(public)) => VapidKey::from_settings(private, public, subject),
            (None, None) => {
                let fresh = EcdsaKeyPair::generate_pkcs8(
                    &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
                    &SystemRandom::new(),
                )
                .map_err(|_| VapidError::Stored("the random generator failed".into()))?;
                let stored = store
                    .vapid_key_or_insert(&B64.encode(fresh.as_ref()), now)
                    .await?;
                let pkcs8 = B64
                    .decode(stored)
                    .map_err(|_| VapidError::Stored("not base64url".into()))?;
                VapidKey::from_pkcs8(&pkcs8, subject)
            }
            _ => Err(VapidError::OnlyOne),
        }
    }

    /// The public key, base64url: the page's `applicationServerKey`.
    pub fn public_key(&self) -> &str {
        &self.public_b64
    }

    /// The `Authorization` header's value for a push to `endpoint`'s origin (`aud`), good until
    /// `now_secs + TOKEN_LIFETIME_SECS`: `vapid t=<JWT ES256>, k=<public key>`.
    pub fn authorization(&self, origin: &str, now_secs: u64) -> String {
        let header = B64.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let mut claims = serde_json::json!({
            "aud": origin,
            "exp": now_secs + TOKEN_LIFETIME_SECS,
        });
        if let Some(subject) = &self.subject {
            claims["sub"] = subject.as_str().into();
        }
        let claims = B64.encode(claims.to_string());
        let signing_input = format!("{header}.{claims}");
        let signature = self
            .pair
            .sign(&SystemRandom::new(), signing_input.as_bytes())
            .expect("ECDSA signing with the system's random generator");
        format!(
            "vapid t={signing_input}.{}, k={}",
            B64.encode(signature.as_ref()),
            self.public_b64
        )
    }
}

/// `GET /api/push/key`: `{"publicKey": "<base64url>"}`, the page's `applicationServerKey`.
pub(crate) async fn public_key(
    axum::extract::State(state): axum::extract::State<super::RouteState>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    axum::Json(serde_json::json!({ "publicKey": state.push_key.public_key() })).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (String, String) {
        // A key pair made with ring, its scalar cut from ring's PKCS#8 template (the 32 bytes after the
        // `04 20` octet-string header that follows the version).
        let doc =
            EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
                .unwrap();
        let bytes = doc.as_ref();
        let at = bytes
            .windows(5)
            .position(|w| w == [0x02, 0x01, 0x01, 0x04, 0x20])
            .unwrap()
            + 5;
        let pair = EcdsaKeyPair::from_pkcs8(
            &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            bytes,
            &SystemRandom::new(),
        )
        .unwrap();
        (
            B64.encode(&bytes[at..at + 32]),
            B64.encode(pair.public_key().as_ref()),
        )
    }

    #[test]
    fn settings_must_be_a_matching_pair_and_a_subject() {
        let (private, public) = pair();
        let key = VapidKey::from_settings(&private, &public, Some("mailto:ops@example.org")).unwrap();
        assert_eq!(key.public_key(), public);
        let (_, other) = pair();
        assert!(matches!(
            VapidKey::from_settings(&private, &other, Some("mailto:ops@example.org")),
            Err(VapidError::NotAPair)
        ));
        assert!(matches!(
            VapidKey::from_settings(&private, &public, Some("ops@example.org")),
            Err(VapidError::BadSubject)
        ));
        assert!(matches!(
            VapidKey::from_settings("*", &public, Some("https://example.org")),
            Err(VapidError::NotBase64)
        ));
    }

    #[test]
    fn the_token_verifies_with_the_public_key() {
        let (private, public) = pair();
        let key = VapidKey::from_settings(&private, &public, Some("https://games.example.org")).unwrap();
        let header = key.authorization("https://push.example.net", 1_000);
        let (t, k) = header
            .strip_prefix("vapid t=")
            .unwrap()
            .split_once(", k=")
            .unwrap();
        assert_eq!(k, public);
        let (input, sig) = t.rsplit_once('.').unwrap();
        signature::UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, B64.decode(k).unwrap())
            .verify(input.as_bytes(), &B64.decode(sig).unwrap())
            .unwrap();
        let claims: serde_json::Value =
            serde_json::from_slice(&B64.decode(input.split_once('.').unwrap().1).unwrap()).unwrap();
        assert_eq!(claims["aud"], "https://push.example.net");
        assert_eq!(claims["exp"], 1_000 + TOKEN_LIFETIME_SECS);
        assert_eq!(claims["sub"], "https://games.example.org");
    }
}
