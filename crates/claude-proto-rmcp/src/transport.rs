//! The rmcp transport between the endpoint and rmcp's loop: typed messages
//! in through a channel, typed messages out through [`outbound::route`].

use std::convert::Infallible;
use std::future::{Future, ready};
use std::sync::Arc;

use rmcp::model::ClientJsonRpcMessage;
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc::{Receiver, UnboundedReceiver, WeakUnboundedSender};

use crate::outbound;
use crate::pending::Pending;

/// rmcp's side of the bridge, owned by rmcp's loop.
pub(crate) struct BridgeTransport {
    /// From the endpoint (bounded); closed when the endpoint is dropped.
    pub(crate) inbound: Receiver<ClientJsonRpcMessage>,
    /// The answers to the server's own requests (the CLI's, or refusals
    /// written here). Unbounded, as there are no more of them than requests
    /// the server made, and one must never be lost: a tool waits for it.
    pub(crate) answers: UnboundedReceiver<ClientJsonRpcMessage>,
    /// Where those answers are sent from. Weak, so that it does not keep
    /// the channel open after the endpoint is dropped.
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

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        tokio::select! {
            // Answers first: a tool is waiting for each.
            biased;
            Some(answer) = self.answers.recv() => Some(answer),
            // Ends when the endpoint is dropped.
            message = self.inbound.recv() => message,
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        ready(Ok(()))
    }
}
