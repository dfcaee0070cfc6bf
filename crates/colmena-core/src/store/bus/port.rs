//! The bus store port (issue 34): what the bus service (`inbox/`), the
//! role runner (`roles/`) and the rest of the house need from wherever the
//! bus's rows live — this workspace's SQLite file ([`super::sqlite`]) or a
//! PostgreSQL database that replicas share ([`super::postgres`]).
//!
//! Why a port: the rules of the bus (who may send as whom and in what
//! order, the body and id checks, the effects after a send) are written
//! once, above it, in `inbox/`; each store only keeps rows, and does in
//! one transaction what must be atomic there (a send with its client-id
//! replay, its reply check, its inbox cap and its urgent wake-up; a claim
//! of a wake-up). The house's other ports are built the same way
//! (`mcp_servers/port.rs`, `net_guard`'s connector): a `BoxFuture` trait
//! object in `Ctx`, installed by the composition root (`workspace/open.rs`).
//!
//! The refusals both stores word the same way are in [`super::errors`];
//! the client-id fingerprint both compare is in [`super::replay`].

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;

use super::rows::{Author, Message, Priority};
use crate::error::Result;
use crate::risk::Risk;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The bus settings a store keeps (each a number, with its default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// The most unread messages one inbox holds.
    MaxUnread,
    /// Seconds between two wake-ups of one role, at least.
    MinWakeSeconds,
    /// Wake-ups with mail one role may have in an hour.
    WakesPerHour,
    /// Wake-ups with mail one role may have in a day.
    WakesPerDay,
}

impl Setting {
    /// Its key, the same in both stores.
    pub const fn key(self) -> &'static str {
        match self {
            Setting::MaxUnread => "bus_max_unread",
            Setting::MinWakeSeconds => "bus_min_wake_seconds",
            Setting::WakesPerHour => "bus_wake_budget_per_hour",
            Setting::WakesPerDay => "bus_wake_budget_per_day",
        }
    }

    /// What it is when nobody set it.
    pub const fn default_value(self) -> u32 {
        match self {
            Setting::MaxUnread => 10_000,
            Setting::MinWakeSeconds => 60,
            Setting::WakesPerHour => 30,
            Setting::WakesPerDay => 200,
        }
    }
}

/// A send the bus service checked: the sender may act as `from`, both
/// authors exist (or `to` is missing and `reply_to` says so), the body and
/// the ids are well formed.
pub struct SendRow {
    pub from: String,
    pub to: String,
    pub body: String,
    pub priority: Priority,
    pub reply_to: Option<String>,
    pub message_id: Option<String>,
}

/// A person who is to have an author: its user id (the author's id too),
/// its name, and the hash of a token nobody knows (a person rotates it to
/// see one).
pub struct Person {
    pub user: String,
    pub name: String,
    pub hash: Vec<u8>,
}

/// What a send came to.
#[derive(Debug)]
pub enum Sent {
    /// Delivered now (`true`), or already held under its message id
    /// (`false`: a retry).
    Message(Message, bool),
    /// This author does not exist (the sender is looked for first, then the
    /// recipient): nothing was sent.
    NoAuthor(String),
}

/// A new role's row, checked against the workspace (its agent, skills and
/// command) by `inbox::authors`.
pub struct RoleRow {
    pub id: String,
    pub name: String,
    pub agent: Option<String>,
    pub hash: Vec<u8>,
    pub interval: Option<u32>,
    pub next_wake_at: Option<DateTime<Utc>>,
    pub instructions: String,
    /// The wake command as its column holds it (`rows::command_column`).
    pub command: Option<String>,
    pub timeout: Option<u32>,
    pub unattended: Vec<Risk>,
    pub skills: Vec<String>,
}

/// How a role is woken, replaced; its instructions, skills and grants when
/// given (`None`: kept).
pub struct RoleUpdateRow {
    pub agent: Option<String>,
    pub interval: Option<u32>,
    pub next_wake_at: Option<DateTime<Utc>>,
    pub command: Option<String>,
    pub timeout: Option<u32>,
    pub instructions: Option<String>,
    pub skills: Option<Vec<String>>,
    pub unattended: Option<Vec<Risk>>,
}

/// How an inbox is read.
pub struct InboxRead {
    pub author: String,
    pub since: Option<DateTime<Utc>>,
    pub unread_only: bool,
    /// Look without marking read.
    pub peek: bool,
    pub limit: u32,
}

/// Whose token a hash is: the author's id and the hash as stored.
pub type TokenOwner = (String, Vec<u8>);

/// A role that can be woken: when it is due, and the mark its claim must
/// still find (the store's own text for its `next_wake_at`, compared
/// exactly: another scheduler that claimed it first moved it).
pub struct Scheduled {
    pub id: String,
    pub mark: Option<String>,
    pub due: Option<DateTime<Utc>>,
}

/// Where the bus's rows live. Every method is one short unit of work in the
/// store; what it refuses is said in its doc.
pub trait BusStore: Send + Sync + 'static {
    /// `sqlite`, or `postgres` and its schema (the doctor, the logs).
    fn name(&self) -> String;

    /// Whether other replicas share this bus: its rows are not in this
    /// workspace's store, so what this replica keeps of a role (its
    /// wake-ups, its cut-off runs, its jobs) points at a mirrored row, and
    /// this machine's drop folders are not read.
    fn is_shared(&self) -> bool;

    // ---- authors ----

    /// Every author: the owner's first, then people, then roles by name.
    fn authors(&self) -> BoxFuture<'_, Result<Vec<Author>>>;
    /// The author with this id, if any.
    fn author<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Author>>>;
    /// Whether an author has this id (the cheap check of hot paths).
    fn author_exists<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>>;
    /// The author by id or, case-insensitively, by name.
    fn author_by_id_or_name<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Author>>>;
    /// Gives each of `people` an author unless it has one; one whose id or
    /// name a role holds is skipped with a warning.
    fn ensure_people(&self, people: Vec<Person>) -> BoxFuture<'_, Result<()>>;
    /// Registers a role; `conflict` (`duplicate_name`) when its id or name
    /// is taken.
    fn create_role(&self, role: RoleRow) -> BoxFuture<'_, Result<Author>>;
    /// Changes a role (the service refused people before).
    fn update_role<'a>(
        &'a self,
        id: &'a str,
        change: RoleUpdateRow,
    ) -> BoxFuture<'a, Result<Author>>;
    /// Replaces what the role's unattended wake-ups may do.
    fn set_unattended<'a>(&'a self, id: &'a str, risks: &'a [Risk]) -> BoxFuture<'a, Result<()>>;
    /// A new token hash; `not_found` for no such author.
    fn rotate_token<'a>(&'a self, id: &'a str, hash: &'a [u8]) -> BoxFuture<'a, Result<Author>>;
    /// Renames a person's author (what others see on the bus); `conflict`
    /// (`duplicate_name`) when another author has the name.
    fn rename_person<'a>(&'a self, user: &'a str, name: &'a str) -> BoxFuture<'a, Result<Author>>;
    /// Removes a role, its inbox and its message ids (the service refused
    /// people before).
    fn remove_role<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<()>>;
    /// The author whose token, or live wake command token, hashes to
    /// `hash`, with the stored hash (compared in constant time above).
    fn token_owner<'a>(&'a self, hash: &'a [u8]) -> BoxFuture<'a, Result<Option<TokenOwner>>>;

    // ---- messages ----

    /// Sends in one transaction: an author that does not exist sends
    /// nothing ([`Sent::NoAuthor`]); a message id already used answers the
    /// message held (`false`) or `conflict` for other mail; an answer must
    /// be in a conversation of `from` with `to`; a full inbox is
    /// `rate_limited`; urgent mail moves a role's next wake-up forward, no
    /// sooner than the minimum interval after its last one.
    fn send(&self, send: SendRow) -> BoxFuture<'_, Result<Sent>>;
    /// Whether `from` may answer message `id` with mail to `to`, as
    /// [`BusStore::send`] checks it, without sending.
    fn check_answer<'a>(
        &'a self,
        from: &'a str,
        to: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<()>>;
    /// An inbox, oldest first; unless `peek`, marked read in the same
    /// transaction that selects it.
    fn inbox(&self, read: InboxRead) -> BoxFuture<'_, Result<Vec<Message>>>;
    /// Sets or clears `read_at` on those of `ids` in `author`'s inbox that
    /// are not that way already; how many changed.
    fn set_read<'a>(
        &'a self,
        author: &'a str,
        ids: &'a [String],
        read: bool,
    ) -> BoxFuture<'a, Result<u32>>;
    /// The thread of message `id` as `me` sees it, oldest first, its latest
    /// `limit`; `not_found` for a message `me` neither sent nor received.
    fn thread<'a>(
        &'a self,
        me: &'a str,
        id: &'a str,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<Message>>>;
    /// The mail between `me` and `with`, newest first, before message
    /// `before` (`not_found`, field `before`, when it is not theirs).
    fn conversation<'a>(
        &'a self,
        me: &'a str,
        with: &'a str,
        before: Option<&'a str>,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<Message>>>;
    /// What `author` sent after `since`, oldest first.
    fn sent<'a>(
        &'a self,
        author: &'a str,
        since: Option<DateTime<Utc>>,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<Message>>>;
    /// Deletes a message: `not_found`, or `forbidden` unless `as_author`
    /// sent it.
    fn delete<'a>(&'a self, as_author: &'a str, id: &'a str) -> BoxFuture<'a, Result<()>>;
    /// Unread urgent mail to people committed after `after_seq`, and the
    /// highest seq seen.
    fn urgent_for_people_after(&self, after_seq: i64)
    -> BoxFuture<'_, Result<(Vec<Message>, i64)>>;
    /// The messages `author` sent or received matching `text`, best first.
    fn search<'a>(
        &'a self,
        author: &'a str,
        text: &'a str,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<Message>>>;
    /// Brings the search index up to date; how many messages it added (a
    /// store that indexes as it commits adds none here).
    fn catch_up(&self) -> BoxFuture<'_, Result<usize>>;
    /// The ids of what `author` sent at or after `since`, oldest first (a
    /// wake-up's answers).
    fn sent_since<'a>(
        &'a self,
        author: &'a str,
        since: DateTime<Utc>,
    ) -> BoxFuture<'a, Result<Vec<String>>>;

    // ---- settings ----

    /// A setting, or its default.
    fn setting(&self, setting: Setting) -> BoxFuture<'_, Result<u32>>;
    fn set_setting(&self, setting: Setting, value: u32) -> BoxFuture<'_, Result<()>>;

    // ---- wake-ups ----

    /// Roles that can be woken, with when each is due.
    fn schedule(&self) -> BoxFuture<'_, Result<Vec<Scheduled>>>;
    /// Claims `id`'s wake-up if it still carries `mark` and nobody else
    /// holds it: moves its next wake-up one interval on and answers the
    /// role; too soon after its last wake-up it is deferred to the end of
    /// the minimum interval instead (`None`).
    fn claim<'a>(
        &'a self,
        id: &'a str,
        mark: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<Author>>>;
    /// How often a running wake-up renews its hold on the role, when the
    /// store holds claims for a time (replicas); `None` when a claim needs
    /// no renewal.
    fn renew_every(&self) -> Option<std::time::Duration>;
    /// Extends the hold a claim took on `id` (see [`BusStore::renew_every`]).
    fn renew<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<()>>;
    /// Ends the hold a claim took on `id` and rings every scheduler.
    fn release<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<()>>;
    /// Makes `ids` due now; how many changed.
    fn make_due<'a>(&'a self, ids: &'a [String]) -> BoxFuture<'a, Result<usize>>;
    /// Moves `id`'s next wake-up to `until`.
    fn defer<'a>(&'a self, id: &'a str, until: DateTime<Utc>) -> BoxFuture<'a, Result<()>>;
    /// Keeps why `id`'s last wake-up failed (or that it did not).
    fn record_wake<'a>(
        &'a self,
        id: &'a str,
        failure: Option<&'a str>,
    ) -> BoxFuture<'a, Result<()>>;
    /// Keeps a wake command's token hash for `seconds`; sweeps expired ones.
    fn issue_wake_token<'a>(
        &'a self,
        author: &'a str,
        hash: &'a [u8],
        seconds: u32,
    ) -> BoxFuture<'a, Result<()>>;
    fn revoke_wake_token<'a>(&'a self, hash: &'a [u8]) -> BoxFuture<'a, Result<()>>;
    /// Rings `bell` whenever another process makes a role due (until
    /// `stop`), and says how long the scheduler may sleep between looks.
    /// In one process's store the send rings the bell itself.
    fn listen(
        &self,
        bell: std::sync::Weak<tokio::sync::Notify>,
        stop: CancellationToken,
    ) -> std::time::Duration;
}

/// The bus store a workspace holds.
pub type Bus = Arc<dyn BusStore>;
