//! Notifications (issue 47). On this branch only the channels' senders; the outbox, the worker, subscriptions and
//! the webhook channel are branch i47-outbox's, which owns this file and the shared types (`types.rs` here is a
//! stand-in for them until the two branches meet).

mod types;

pub mod ece;
pub mod email;
pub mod http_post;
pub mod unsubscribe;
pub mod vapid;
pub mod webpush;

pub use types::{Endpoint, Notification, NotificationKind, SendError};
