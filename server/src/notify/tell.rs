//! Telling a seat that its endpoints changed (one was switched off by the worker, or by an email's unsubscribe
//! link), wherever its table is served. The node that made the change tells the table itself if it serves it;
//! otherwise, in cluster mode, it says so to every node over NATS (`Forwarder::publish_endpoints_changed`), and
//! the node that serves the table tells it ([`Teller::listen`]). The table reads the seat's endpoints from the
//! store (the change is committed first) and pushes `notify_changed` to the seat's connection, if any, local or
//! relayed. If NATS is down the news is lost, not the change: the page's next `notify_list` shows it.

use std::sync::Arc;

use tokio::sync::{oneshot, watch};

use crate::cluster::forward::Forwarder;
use crate::hub::Hub;
use crate::table::{Command, NotifyOp};

/// Tells seats of changes to their endpoints (see the module's comment).
#[derive(Clone, Debug)]
pub struct Teller {
    hub: Hub,
    /// Cluster mode: the other nodes are told through it.
    forwarder: Option<Arc<Forwarder>>,
}

impl Teller {
    pub fn new(hub: Hub, forwarder: Option<Arc<Forwarder>>) -> Teller {
        Teller { hub, forwarder }
    }

    /// Tells seat `seat` of table `code` that its endpoints changed: here if this node serves the table, else
    /// through the other nodes.
    pub async fn endpoints_changed(&self, code: &str, seat: u8) {
        if tell_here(&self.hub, code, seat) {
            return;
        }
        if let Some(forwarder) = &self.forwarder {
            forwarder.publish_endpoints_changed(code, seat).await;
        }
    }

    /// Cluster mode: hears the other nodes' news of changed endpoints until `stop`, and tells the tables served
    /// here.
    pub fn listen(&self, stop: watch::Receiver<bool>) {
        if let Some(forwarder) = &self.forwarder {
            let hub = self.hub.clone();
            let heard = move |code: &str, seat: u8| {
                tell_here(&hub, code, seat);
            };
            tokio::spawn(forwarder.clone().listen_endpoints_changed(heard, stop));
        }
    }
}

/// Tells the table `code`, if this node serves it now, that an endpoint of `seat` changed; whether it does.
fn tell_here(hub: &Hub, code: &str, seat: u8) -> bool {
    let Some(table) = hub.loaded(code) else {
        return false;
    };
    let (reply, _) = oneshot::channel();
    let _ = table.tx.try_send(Command::Notify {
        conn_id: 0,
        op: NotifyOp::Changed(seat),
        reply,
    });
    true
}
