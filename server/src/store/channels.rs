//! The notification channels' rows (issue 47, migration 0019): the VAPID key pair and the email unsubscribe
//! tokens (see `notify/vapid.rs`, `notify/unsubscribe.rs`).

use rules::Millis;

use super::{Db, Store, StoreError, classify, to_i64};

/// What using an unsubscribe token did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsubscribed {
    /// The address is switched off now: `seats` are those (lobby code, seat) whose email endpoints to it were
    /// switched off by this use, to be told.
    Now {
        endpoint_id: String,
        language: String,
        seats: Vec<(String, u8)>,
    },
    /// It was already (by this token or another one of its emails).
    Already { language: String },
    /// No such token.
    Unknown,
}

/// The `last_error` of an email endpoint switched off by an unsubscribe link, as its seat sees it.
pub const UNSUBSCRIBED: &str = "unsubscribed";

impl Store {
    /// The stored VAPID key (PKCS#8, base64url), `pkcs8` stored first if there is none yet.
    pub async fn vapid_key_or_insert(&self, pkcs8: &str, now: Millis) -> Result<String, StoreError> {
        on_pool!(self, pool => {
            sqlx::query(
                "INSERT INTO vapid_keys (id, private_pkcs8, created_at) VALUES (1, $1, $2) \
                 ON CONFLICT (id) DO NOTHING",
            )
            .bind(pkcs8)
            .bind(to_i64(now))
            .execute(pool)
            .await
            .map_err(classify)?;
            sqlx::query_scalar("SELECT private_pkcs8 FROM vapid_keys WHERE id = 1")
                .fetch_one(pool)
                .await
                .map_err(classify)
        })
    }

    /// Keeps the hash of an unsubscribe token for an email endpoint.
    pub async fn add_unsubscribe_token(
        &self,
        token_hash: &str,
        endpoint_id: &str,
        language: &str,
        now: Millis,
    ) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::query(
                "INSERT INTO email_unsubscribes (token_hash, endpoint_id, language, created_at) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(token_hash)
            .bind(endpoint_id)
            .bind(language)
            .bind(to_i64(now))
            .execute(pool)
            .await
            .map(drop)
            .map_err(classify)
        })
    }

    /// Uses the token of this hash: its address's every token is marked used and, in the same transaction, every
    /// active email endpoint of that address (any seat) is switched off with [`UNSUBSCRIBED`] and its undelivered
    /// rows deleted. Only the first use of any of the tokens answers [`Unsubscribed::Now`] (one statement decides,
    /// so two uses at once cannot both).
    pub async fn use_unsubscribe_token(
        &self,
        token_hash: &str,
        now: Millis,
    ) -> Result<Unsubscribed, StoreError> {
        let used: Option<Unsubscribed> = on_pool!(self, pool => {
            let mut tx = pool.begin().await.map_err(classify)?;
            let switched: Vec<(String, String)> = sqlx::query_as(
                "UPDATE email_unsubscribes SET used_at = $2 WHERE used_at IS NULL AND endpoint_id = \
                 (SELECT endpoint_id FROM email_unsubscribes WHERE token_hash = $1) \
                 RETURNING endpoint_id, language",
            )
            .bind(token_hash)
            .bind(to_i64(now))
            .fetch_all(&mut *tx)
            .await
            .map_err(classify)?;
            let Some((endpoint_id, language)) = switched.into_iter().next() else {
                return Ok(None);
            };
            // Email endpoints made before migration 0020 get their address's key first.
            let unkeyed: Vec<(i64, String)> = sqlx::query_as(
                "SELECT id, target FROM notify_endpoints WHERE channel = 'email' AND address_key IS NULL",
            )
            .fetch_all(&mut *tx)
            .await
            .map_err(classify)?;
            for (id, target) in unkeyed {
                sqlx::query("UPDATE notify_endpoints SET address_key = $2 WHERE id = $1")
                    .bind(id)
                    .bind(crate::secrets::email_address_key(&target))
                    .execute(&mut *tx)
                    .await
                    .map_err(classify)?;
            }
            let off: Vec<(i64, String, i64)> = sqlx::query_as(
                "UPDATE notify_endpoints SET active = 0, last_error = $2 \
                 WHERE channel = 'email' AND address_key = $1 AND active = 1 RETURNING id, lobby_code, seat",
            )
            .bind(&endpoint_id)
            .bind(UNSUBSCRIBED)
            .fetch_all(&mut *tx)
            .await
            .map_err(classify)?;
            let mut seats = Vec::new();
            for (id, code, seat) in off {
                sqlx::query("DELETE FROM notify_outbox WHERE endpoint_id = $1")
                    .bind(id)
                    .execute(&mut *tx)
                    .await
                    .map_err(classify)?;
                let seat = (code, super::small(seat, "notified seat")?);
                if !seats.contains(&seat) {
                    seats.push(seat);
                }
            }
            tx.commit().await.map_err(classify)?;
            Ok(Some(Unsubscribed::Now { endpoint_id, language, seats }))
        })?;
        if let Some(now) = used {
            return Ok(now);
        }
        Ok(match self.peek_unsubscribe_token(token_hash).await? {
            Some((_, language)) => Unsubscribed::Already { language },
            None => Unsubscribed::Unknown,
        })
    }

    /// Whether the token of this hash is known and already used (by itself or another of its endpoint's), with
    /// the language of its page; changes nothing.
    pub async fn peek_unsubscribe_token(
        &self,
        token_hash: &str,
    ) -> Result<Option<(bool, String)>, StoreError> {
        on_pool!(self, pool => {
            let row: Option<(Option<i64>, String)> =
                sqlx::query_as("SELECT used_at, language FROM email_unsubscribes WHERE token_hash = $1")
                    .bind(token_hash)
                    .fetch_optional(pool)
                    .await
                    .map_err(classify)?;
            Ok(row.map(|(used, language)| (used.is_some(), language)))
        })
    }

    /// Whether an email endpoint was switched off by one of its unsubscribe links.
    pub async fn email_unsubscribed(&self, endpoint_id: &str) -> Result<bool, StoreError> {
        on_pool!(self, pool => {
            let used: Option<String> = sqlx::query_scalar(
                "SELECT endpoint_id FROM email_unsubscribes WHERE endpoint_id = $1 AND used_at IS NOT NULL LIMIT 1",
            )
            .bind(endpoint_id)
            .fetch_optional(pool)
            .await
            .map_err(classify)?;
            Ok(used.is_some())
        })
    }
}
