//! The rmcp transport between the endpoint and rmcp's loop: typed messages
//! in through a channel, typed messages out through [`outbound::route`].

use std::convert::Infallible;
use std::future::{Future, ready};
use std::sync::Arc;

use rmcp::model::ClientJsonRpcMessage;
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc::{UnboundedReceiver, WeakUnboundedSender};

use crate::outbound;
use crate::pending::Pending;

/// rmcp's side of the bridge, owned by rmcp's loop.
pub(crate) struct BridgeTransport {
    /// From the endpoint; closed when the endpoint is dropped.
    pub(crate) inbound: UnboundedReceiver<ClientJsonRpcMessage>,
    /// The same channel, for the refusals of server-to-client requests.
    /// Weak, so that it does not keep the channel open after the endpoint
    /// is dropped.
    pub(crate) loopback: WeakUnboundedSender<ClientJsonRpcMessage>,
    pub(crate) pending: Arc<Pending>,
}

impl Transport<RoleServer> for BridgeTransport {
    // Routing cannot fail: a reply or outlet whose session is gone simply
    // discards the message.
    type Error = Infallible;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        outbound::route(item, &self.pending, &self.loopback);
        ready(Ok(()))
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        self.inbound.recv()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        ready(Ok(()))
    }
}
