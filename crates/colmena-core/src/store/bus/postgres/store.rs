//! The bus store port over a PostgreSQL bus: [`PgStore`] is one replica's
//! view of the shared database — the bus itself ([`PgBus`]) and this
//! workspace's owner, whose author the rows call "me" (`is_owner`).

use std::sync::{Arc, Weak};

use chrono::{DateTime, SecondsFormat, Utc};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::{FALLBACK_TICK, PgBus, authors, messages, wakes};
use crate::error::{AppError, Result};
use crate::risk::Risk;
use crate::store::bus::port::{
    BoxFuture, BusStore, InboxRead, Person, RoleRow, RoleUpdateRow, Scheduled, SendRow, Sent,
    Setting, TokenOwner,
};
use crate::store::bus::{Author, Message};

/// A PostgreSQL bus as one workspace (replica) sees it.
pub struct PgStore {
    bus: Arc<PgBus>,
    owner: String,
}

impl PgStore {
    pub fn new(bus: Arc<PgBus>, owner: &str) -> PgStore {
        PgStore {
            bus,
            owner: owner.to_owned(),
        }
    }

    async fn number(&self, setting: Setting) -> Result<u32> {
        self.bus
            .setting(setting.key(), setting.default_value())
            .await
    }
}

/// The mark a claim must find: `next_wake_at` to the microsecond
/// (PostgreSQL's precision), read back exactly.
fn mark_of(at: Option<DateTime<Utc>>) -> Option<String> {
    at.map(|t| t.to_rfc3339_opts(SecondsFormat::Micros, true))
}

fn mark_time(mark: Option<&str>) -> Result<Option<DateTime<Utc>>> {
    mark.map(|m| {
        DateTime::parse_from_rfc3339(m)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| AppError::internal(format!("a wake-up mark is not a time: {e}")))
    })
    .transpose()
}

impl BusStore for PgStore {
    fn name(&self) -> String {
        format!("postgres (schema {})", self.bus.schema())
    }

    fn is_shared(&self) -> bool {
        true
    }

    fn authors(&self) -> BoxFuture<'_, Result<Vec<Author>>> {
        Box::pin(authors::list(&self.bus, &self.owner))
    }

    fn author<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Author>>> {
        Box::pin(authors::find(&self.bus, &self.owner, id))
    }

    fn author_exists<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        Box::pin(authors::exists(&self.bus, id))
    }

    fn author_by_id_or_name<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Author>>> {
        Box::pin(authors::find_by_id_or_name(&self.bus, &self.owner, key))
    }

    fn ensure_people(&self, people: Vec<Person>) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            for person in people {
                authors::ensure_user(&self.bus, &person.user, &person.name, &person.hash).await?;
            }
            Ok(())
        })
    }

    fn create_role(&self, role: RoleRow) -> BoxFuture<'_, Result<Author>> {
        Box::pin(async move { authors::create(&self.bus, &self.owner, &role).await })
    }

    fn update_role<'a>(
        &'a self,
        id: &'a str,
        change: RoleUpdateRow,
    ) -> BoxFuture<'a, Result<Author>> {
        Box::pin(async move { authors::update(&self.bus, &self.owner, id, &change).await })
    }

    fn set_unattended<'a>(&'a self, id: &'a str, risks: &'a [Risk]) -> BoxFuture<'a, Result<()>> {
        Box::pin(authors::set_unattended(&self.bus, id, risks))
    }

    fn rotate_token<'a>(&'a self, id: &'a str, hash: &'a [u8]) -> BoxFuture<'a, Result<Author>> {
        Box::pin(authors::rotate_token(&self.bus, &self.owner, id, hash))
    }

    fn rename_person<'a>(&'a self, user: &'a str, name: &'a str) -> BoxFuture<'a, Result<Author>> {
        Box::pin(authors::rename_person(&self.bus, &self.owner, user, name))
    }

    fn remove_role<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<()>> {
        Box::pin(authors::remove(&self.bus, &self.owner, id))
    }

    fn token_owner<'a>(&'a self, hash: &'a [u8]) -> BoxFuture<'a, Result<Option<TokenOwner>>> {
        Box::pin(authors::by_token_hash(&self.bus, hash))
    }

    fn send(&self, send: SendRow) -> BoxFuture<'_, Result<Sent>> {
        Box::pin(async move {
            for author in [&send.from, &send.to] {
                if !authors::exists(&self.bus, author).await? {
                    return Ok(Sent::NoAuthor(author.clone()));
                }
            }
            let max_unread = self.number(Setting::MaxUnread).await?;
            let min_wake = self.number(Setting::MinWakeSeconds).await?;
            let (message, new) = messages::send(&self.bus, max_unread, min_wake, &send).await?;
            Ok(Sent::Message(message, new))
        })
    }

    fn check_answer<'a>(
        &'a self,
        from: &'a str,
        to: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(messages::check_answer(&self.bus, from, to, id))
    }

    fn inbox(&self, read: InboxRead) -> BoxFuture<'_, Result<Vec<Message>>> {
        Box::pin(async move {
            messages::inbox(
                &self.bus,
                &read.author,
                read.since,
                read.unread_only,
                read.peek,
                read.limit,
            )
            .await
        })
    }

    fn set_read<'a>(
        &'a self,
        author: &'a str,
        ids: &'a [String],
        read: bool,
    ) -> BoxFuture<'a, Result<u32>> {
        Box::pin(messages::set_read(&self.bus, author, ids, read))
    }

    fn thread<'a>(
        &'a self,
        me: &'a str,
        id: &'a str,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<Message>>> {
        Box::pin(messages::thread(&self.bus, me, id, limit))
    }

    fn conversation<'a>(
        &'a self,
        me: &'a str,
        with: &'a str,
        before: Option<&'a str>,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<Message>>> {
        Box::pin(messages::conversation(&self.bus, me, with, before, limit))
    }

    fn sent<'a>(
        &'a self,
        author: &'a str,
        since: Option<DateTime<Utc>>,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<Message>>> {
        Box::pin(messages::sent(&self.bus, author, since, limit))
    }

    fn delete<'a>(&'a self, as_author: &'a str, id: &'a str) -> BoxFuture<'a, Result<()>> {
        Box::pin(messages::delete(&self.bus, as_author, id))
    }

    fn urgent_for_people_after(
        &self,
        after_seq: i64,
    ) -> BoxFuture<'_, Result<(Vec<Message>, i64)>> {
        Box::pin(messages::urgent_for_people_after(&self.bus, after_seq))
    }

    fn search<'a>(
        &'a self,
        author: &'a str,
        text: &'a str,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<Message>>> {
        Box::pin(messages::search(&self.bus, author, text, limit))
    }

    fn catch_up(&self) -> BoxFuture<'_, Result<usize>> {
        // Each message is indexed (`words`) in the transaction that sends it.
        Box::pin(async { Ok(0) })
    }

    fn sent_since<'a>(
        &'a self,
        author: &'a str,
        since: DateTime<Utc>,
    ) -> BoxFuture<'a, Result<Vec<String>>> {
        Box::pin(messages::sent_since(&self.bus, author, since))
    }

    fn setting(&self, setting: Setting) -> BoxFuture<'_, Result<u32>> {
        Box::pin(self.number(setting))
    }

    fn set_setting(&self, setting: Setting, value: u32) -> BoxFuture<'_, Result<()>> {
        Box::pin(self.bus.set_setting(setting.key(), value))
    }

    fn schedule(&self) -> BoxFuture<'_, Result<Vec<Scheduled>>> {
        Box::pin(async move {
            let roles = wakes::schedule(&self.bus).await?;
            Ok(roles
                .into_iter()
                .map(|role| Scheduled {
                    // Due then, or when another replica's hold on it ends.
                    due: match (role.next_wake_at, role.waking_until) {
                        (Some(at), Some(until)) => Some(at.max(until)),
                        (at, _) => at,
                    },
                    mark: mark_of(role.next_wake_at),
                    id: role.id,
                })
                .collect())
        })
    }

    fn claim<'a>(
        &'a self,
        id: &'a str,
        mark: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<Author>>> {
        Box::pin(async move {
            let seen = mark_time(mark)?;
            let min_wake = self.number(Setting::MinWakeSeconds).await?;
            wakes::claim(&self.bus, &self.owner, id, seen, min_wake).await
        })
    }

    fn renew_every(&self) -> Option<std::time::Duration> {
        Some(wakes::RENEW_EVERY)
    }

    fn renew<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<()>> {
        Box::pin(wakes::renew(&self.bus, id))
    }

    fn release<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<()>> {
        Box::pin(wakes::release(&self.bus, id))
    }

    fn make_due<'a>(&'a self, ids: &'a [String]) -> BoxFuture<'a, Result<usize>> {
        Box::pin(wakes::make_due(&self.bus, ids))
    }

    fn defer<'a>(&'a self, id: &'a str, until: DateTime<Utc>) -> BoxFuture<'a, Result<()>> {
        Box::pin(wakes::defer(&self.bus, id, until))
    }

    fn record_wake<'a>(
        &'a self,
        id: &'a str,
        failure: Option<&'a str>,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(wakes::record(&self.bus, id, failure))
    }

    fn issue_wake_token<'a>(
        &'a self,
        author: &'a str,
        hash: &'a [u8],
        seconds: u32,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(wakes::issue_token(&self.bus, author, hash, seconds))
    }

    fn revoke_wake_token<'a>(&'a self, hash: &'a [u8]) -> BoxFuture<'a, Result<()>> {
        Box::pin(wakes::revoke_token(&self.bus, hash))
    }

    fn listen(&self, bell: Weak<Notify>, stop: CancellationToken) -> std::time::Duration {
        // Urgent mail sent through any replica rings this one.
        self.bus.listen(bell, stop);
        FALLBACK_TICK
    }
}
