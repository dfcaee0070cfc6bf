//! The bus (SPEC B1–B8, seed 003): long-lived roles and people talk through
//! messages instead of markdown notes dropped in a folder.
//!
//! - [`authors`]: identities with bearer tokens (only a hash is stored);
//! - [`messages`]: send, read (marking read unless peeking), sent, delete;
//! - [`wakes`]: the scheduler that wakes each role every N minutes, and at
//!   once on urgent mail, running its agent over its unread inbox;
//! - [`remote`]: a client of another machine's bus (a team's), whose sends
//!   are retried with one message id until acknowledged;
//! - [`team`]: this desktop on a team's bus: its settings, the outbox its
//!   mail leaves through, and the errand runner that delivers it;
//! - [`drop_folder`]: markdown notes written into a role's `inbox/` folder
//!   become messages (the pre-bus way keeps working).
//!
//! Who may do what is decided here, once, from a [`Caller`]: HTTP and MCP
//! clients are the author whose token they present; the desktop app and the
//! CLI run on the workspace's own machine with its files, and act for any
//! author they name.

pub mod authors;
pub mod client_ids;
pub mod drop_folder;
pub mod local_server;
pub mod messages;
pub mod role_config;
pub mod search;
pub(crate) mod token;
pub mod wake_timing;

use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use crate::ctx::{Change, Ctx, Notice, NoticeTopic};

pub use crate::store::bus::time::parse_since;
pub use crate::store::bus::{Author, AuthorKind, Message, Priority};
pub use authors::{AuthorUpdate, AuthorWithToken, NewAuthor};
pub use messages::{InboxQuery, MessageReceipt, SendMessage, SentQuery};

pub use crate::caller::Caller;

/// Turns urgent mail to people into notices (desktop notifications, B6),
/// whichever process committed it, until `stop`. Mail already there when
/// it starts is not announced again.
pub async fn announce_urgent_mail(ctx: Ctx, stop: CancellationToken) {
    let mut changes = ctx.subscribe();
    let mut seen = match messages::urgent_for_people_after(&ctx, i64::MAX).await {
        Ok((_, top)) => top,
        Err(e) => {
            tracing::warn!("urgent mail will not be announced: {}", e.message);
            return;
        }
    };
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            change = changes.recv() => match change {
                Ok(Change::Messages) | Err(RecvError::Lagged(_)) => {}
                Ok(_) => continue,
                Err(RecvError::Closed) => return,
            },
        }
        match messages::urgent_for_people_after(&ctx, seen).await {
            Ok((urgent, top)) => {
                seen = top;
                for m in urgent {
                    let sender = authors::get(&ctx, &m.from)
                        .await
                        .map_or_else(|_| m.from.clone(), |a| a.name);
                    ctx.notify(Notice {
                        title: format!("Urgent: {sender}"),
                        body: m.body.chars().take(240).collect(),
                        urgent: true,
                        from: None,
                        topic: Some(NoticeTopic::UrgentMail { sender }),
                    });
                }
            }
            Err(e) => tracing::warn!("could not look for urgent mail: {}", e.message),
        }
    }
}
