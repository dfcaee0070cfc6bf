//! Bus set-up shared by the tests: authors (people's stand-ins and roles
//! played by an agent) and messages sent as the window sends them.

use colmena_core::Ctx;
use colmena_core::ids::AgentId;
use colmena_core::inbox::{self, Caller, NewAuthor, SendMessage};

/// A new author called `name`; with `agent`, a role that agent plays,
/// woken every `minutes` (60 when not given).
pub async fn author(ctx: &Ctx, name: &str, agent: Option<&AgentId>) -> inbox::AuthorWithToken {
    inbox::authors::create(
        ctx,
        NewAuthor {
            name: name.into(),
            agent_id: agent.map(ToString::to_string),
            wake_interval_minutes: agent.map(|_| 60),
            ..Default::default()
        },
    )
    .await
    .unwrap()
}

/// Sends `body` from `from` to `to` (author ids) with `priority`.
pub async fn send(ctx: &Ctx, from: &str, to: &str, body: &str, priority: &str) -> inbox::Message {
    inbox::messages::send(
        ctx,
        &Caller::ui(ctx),
        from,
        to,
        SendMessage {
            body: body.into(),
            priority: Some(priority.into()),
            reply_to: None,
            message_id: None,
        },
    )
    .await
    .unwrap()
}
