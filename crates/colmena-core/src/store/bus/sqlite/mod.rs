//! The bus in this workspace's own SQLite file: the default, and what a
//! desktop with no team uses. [`SqliteBus`] implements the bus store port
//! over the workspace's [`Store`] (same file, same one writer), so the
//! bus's rows keep their foreign keys to the workspace's users, agents and
//! skills; its full-text search is a tantivy index of its own
//! ([`search_index`]), caught up when someone searches.

mod authors;
mod client_ids;
mod messages;
pub mod search_index;
mod settings;
mod wakes;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;

use super::port::{
    BoxFuture, BusStore, InboxRead, Person, RoleRow, RoleUpdateRow, Scheduled, SendRow, Sent,
    Setting, TokenOwner,
};
use super::{Author, Message};
use crate::error::Result;
use crate::risk::Risk;
use crate::store::Store;
use search_index::BusIndex;

/// How long the bus scheduler may sleep between looks: drop folders are
/// scanned this often too, and mail sent through another process on this
/// data dir is seen by then at the latest.
const IDLE_TICK: std::time::Duration = std::time::Duration::from_secs(2);

/// The bus in the workspace's SQLite store.
pub struct SqliteBus {
    store: Store,
    data_dir: PathBuf,
    /// The search index, opened on the first search.
    index: OnceLock<Arc<BusIndex>>,
}

impl SqliteBus {
    pub fn new(store: Store, data_dir: PathBuf) -> SqliteBus {
        SqliteBus {
            store,
            data_dir,
            index: OnceLock::new(),
        }
    }

    fn index(&self) -> Result<Arc<BusIndex>> {
        if let Some(index) = self.index.get() {
            return Ok(Arc::clone(index));
        }
        let opened = Arc::new(BusIndex::open(&self.data_dir)?);
        Ok(Arc::clone(self.index.get_or_init(|| opened)))
    }
}

fn owned(text: &str) -> String {
    text.to_owned()
}

impl BusStore for SqliteBus {
    fn name(&self) -> String {
        "sqlite".to_owned()
    }

    fn is_shared(&self) -> bool {
        false
    }

    fn authors(&self) -> BoxFuture<'_, Result<Vec<Author>>> {
        Box::pin(self.store.read(authors::list))
    }

    fn author<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Author>>> {
        let id = owned(id);
        Box::pin(self.store.read(move |conn| authors::find(conn, &id)))
    }

    fn author_exists<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool>> {
        let id = owned(id);
        Box::pin(self.store.read(move |conn| authors::exists(conn, &id)))
    }

    fn author_by_id_or_name<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Author>>> {
        let key = owned(key);
        Box::pin(
            self.store
                .read(move |conn| authors::find_by_id_or_name(conn, &key)),
        )
    }

    fn ensure_people(&self, people: Vec<Person>) -> BoxFuture<'_, Result<()>> {
        Box::pin(
            self.store
                .write(move |tx| authors::ensure_people(tx, &people)),
        )
    }

    fn create_role(&self, role: RoleRow) -> BoxFuture<'_, Result<Author>> {
        Box::pin(self.store.write(move |tx| authors::create_role(tx, &role)))
    }

    fn update_role<'a>(
        &'a self,
        id: &'a str,
        change: RoleUpdateRow,
    ) -> BoxFuture<'a, Result<Author>> {
        let id = owned(id);
        Box::pin(
            self.store
                .write(move |tx| authors::update_role(tx, &id, &change)),
        )
    }

    fn set_unattended<'a>(&'a self, id: &'a str, risks: &'a [Risk]) -> BoxFuture<'a, Result<()>> {
        let (id, risks) = (owned(id), risks.to_vec());
        Box::pin(
            self.store
                .write(move |tx| authors::set_unattended(tx, &id, &risks)),
        )
    }

    fn rotate_token<'a>(&'a self, id: &'a str, hash: &'a [u8]) -> BoxFuture<'a, Result<Author>> {
        let (id, hash) = (owned(id), hash.to_vec());
        Box::pin(
            self.store
                .write(move |tx| authors::rotate_token(tx, &id, &hash)),
        )
    }

    fn rename_person<'a>(&'a self, user: &'a str, name: &'a str) -> BoxFuture<'a, Result<Author>> {
        let (user, name) = (owned(user), owned(name));
        Box::pin(
            self.store
                .write(move |tx| authors::rename_person(tx, &user, &name)),
        )
    }

    fn remove_role<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<()>> {
        let id = owned(id);
        Box::pin(self.store.write(move |tx| authors::remove_role(tx, &id)))
    }

    fn token_owner<'a>(&'a self, hash: &'a [u8]) -> BoxFuture<'a, Result<Option<TokenOwner>>> {
        let hash = hash.to_vec();
        Box::pin(
            self.store
                .read(move |conn| authors::token_owner(conn, &hash)),
        )
    }

    fn send(&self, send: SendRow) -> BoxFuture<'_, Result<Sent>> {
        Box::pin(
            self.store
                .write_grouped(move |conn| messages::send(conn, &send)),
        )
    }

    fn check_answer<'a>(
        &'a self,
        from: &'a str,
        to: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<()>> {
        let (from, to, id) = (owned(from), owned(to), owned(id));
        Box::pin(
            self.store
                .read(move |conn| messages::check_answer(conn, &from, &to, &id)),
        )
    }

    fn inbox(&self, read: InboxRead) -> BoxFuture<'_, Result<Vec<Message>>> {
        if read.peek {
            return Box::pin(
                self.store
                    .read(move |conn| messages::peek_inbox(conn, &read)),
            );
        }
        Box::pin(
            self.store
                .write_grouped(move |conn| messages::read_inbox(conn, &read)),
        )
    }

    fn set_read<'a>(
        &'a self,
        author: &'a str,
        ids: &'a [String],
        read: bool,
    ) -> BoxFuture<'a, Result<u32>> {
        let (author, ids) = (owned(author), ids.to_vec());
        Box::pin(
            self.store
                .write_grouped(move |conn| messages::set_read(conn, &author, &ids, read)),
        )
    }

    fn thread<'a>(
        &'a self,
        me: &'a str,
        id: &'a str,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<Message>>> {
        let (me, id) = (owned(me), owned(id));
        Box::pin(
            self.store
                .read(move |conn| messages::thread(conn, &me, &id, limit)),
        )
    }

    fn conversation<'a>(
        &'a self,
        me: &'a str,
        with: &'a str,
        before: Option<&'a str>,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<Message>>> {
        let (me, with, before) = (owned(me), owned(with), before.map(owned));
        Box::pin(
            self.store.read(move |conn| {
                messages::conversation(conn, &me, &with, before.as_deref(), limit)
            }),
        )
    }

    fn sent<'a>(
        &'a self,
        author: &'a str,
        since: Option<DateTime<Utc>>,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<Message>>> {
        let author = owned(author);
        Box::pin(
            self.store
                .read(move |conn| messages::sent(conn, &author, since, limit)),
        )
    }

    fn delete<'a>(&'a self, as_author: &'a str, id: &'a str) -> BoxFuture<'a, Result<()>> {
        let (as_author, id) = (owned(as_author), owned(id));
        Box::pin(
            self.store
                .write_grouped(move |conn| messages::delete(conn, &as_author, &id)),
        )
    }

    fn urgent_for_people_after(
        &self,
        after_seq: i64,
    ) -> BoxFuture<'_, Result<(Vec<Message>, i64)>> {
        Box::pin(
            self.store
                .read(move |conn| messages::urgent_for_people_after(conn, after_seq)),
        )
    }

    fn search<'a>(
        &'a self,
        author: &'a str,
        text: &'a str,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<Message>>> {
        let (author, text) = (owned(author), owned(text));
        Box::pin(async move {
            let index = self.index()?;
            let limit = limit as usize;
            self.store
                .read(move |conn| {
                    index.catch_up(conn)?;
                    // Some hits may be of deleted mail: ask for a few more.
                    let ids = index.hits(&author, &text, limit * 2 + 16)?;
                    messages::read_hits(conn, &author, ids, limit)
                })
                .await
        })
    }

    fn catch_up(&self) -> BoxFuture<'_, Result<usize>> {
        Box::pin(async move {
            let index = self.index()?;
            self.store.read(move |conn| index.catch_up(conn)).await
        })
    }

    fn sent_since<'a>(
        &'a self,
        author: &'a str,
        since: DateTime<Utc>,
    ) -> BoxFuture<'a, Result<Vec<String>>> {
        let author = owned(author);
        Box::pin(
            self.store
                .read(move |conn| messages::sent_since(conn, &author, since)),
        )
    }

    fn setting(&self, setting: Setting) -> BoxFuture<'_, Result<u32>> {
        Box::pin(
            self.store
                .read(move |conn| settings::read_setting(conn, setting)),
        )
    }

    fn set_setting(&self, setting: Setting, value: u32) -> BoxFuture<'_, Result<()>> {
        Box::pin(
            self.store
                .write(move |tx| settings::write_setting(tx, setting, value)),
        )
    }

    fn schedule(&self) -> BoxFuture<'_, Result<Vec<Scheduled>>> {
        Box::pin(self.store.read(wakes::schedule))
    }

    fn claim<'a>(
        &'a self,
        id: &'a str,
        mark: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<Author>>> {
        let (id, mark) = (owned(id), mark.map(owned));
        Box::pin(
            self.store
                .write(move |tx| wakes::claim(tx, &id, mark.as_deref())),
        )
    }

    fn renew_every(&self) -> Option<std::time::Duration> {
        // A claim moved `next_wake_at` on: nothing is held for a time.
        None
    }

    fn renew<'a>(&'a self, _id: &'a str) -> BoxFuture<'a, Result<()>> {
        // Never asked: `renew_every` is `None`.
        Box::pin(async { Ok(()) })
    }

    fn release<'a>(&'a self, _id: &'a str) -> BoxFuture<'a, Result<()>> {
        // A claim holds nothing to release; the scheduler that woke the
        // role rings its own bell when the wake-up ends.
        Box::pin(async { Ok(()) })
    }

    fn make_due<'a>(&'a self, ids: &'a [String]) -> BoxFuture<'a, Result<usize>> {
        let ids = ids.to_vec();
        Box::pin(self.store.write(move |tx| wakes::make_due(tx, &ids)))
    }

    fn defer<'a>(&'a self, id: &'a str, until: DateTime<Utc>) -> BoxFuture<'a, Result<()>> {
        let id = owned(id);
        Box::pin(self.store.write(move |tx| wakes::defer(tx, &id, until)))
    }

    fn record_wake<'a>(
        &'a self,
        id: &'a str,
        failure: Option<&'a str>,
    ) -> BoxFuture<'a, Result<()>> {
        let (id, failure) = (owned(id), failure.map(owned));
        Box::pin(
            self.store
                .write(move |tx| wakes::record(tx, &id, failure.as_deref())),
        )
    }

    fn issue_wake_token<'a>(
        &'a self,
        author: &'a str,
        hash: &'a [u8],
        seconds: u32,
    ) -> BoxFuture<'a, Result<()>> {
        let (author, hash) = (owned(author), hash.to_vec());
        Box::pin(
            self.store
                .write(move |tx| wakes::issue_token(tx, &author, &hash, seconds)),
        )
    }

    fn revoke_wake_token<'a>(&'a self, hash: &'a [u8]) -> BoxFuture<'a, Result<()>> {
        let hash = hash.to_vec();
        Box::pin(self.store.write(move |tx| wakes::revoke_token(tx, &hash)))
    }

    fn listen(
        &self,
        _bell: std::sync::Weak<tokio::sync::Notify>,
        _stop: CancellationToken,
    ) -> std::time::Duration {
        // A send through this process rings the bell itself; one through
        // another process on this data dir reaches it as a store change.
        IDLE_TICK
    }
}
