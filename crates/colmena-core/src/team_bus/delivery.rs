//! The desktop's errand runner for the team bus (issue 17): takes the
//! outbox to the bus as soon as something is written ([`ring`]), and again
//! while the link is down (a pause that grows from 1 to 30 s); and looks at
//! the person's inbox there every [`LOOK_EVERY`], so urgent mail is
//! announced (a desktop notification) and the window knows whether the bus
//! can be reached. Runs until `stop`; on no team bus it only waits.

use std::collections::HashSet;
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::outbox;
use crate::ctx::{Ctx, Notice, NoticeTopic};
use crate::inbox::messages::{InboxQuery, Priority};

/// How often the person's inbox on the team bus is looked at.
pub const LOOK_EVERY: Duration = Duration::from_secs(15);
const FIRST_PAUSE: Duration = Duration::from_secs(1);
const LONGEST_PAUSE: Duration = Duration::from_secs(30);

/// Rung when mail is written to the outbox or a team bus is joined: the
/// runner goes at once. A ring while it is busy is kept for its next wait,
/// so none is lost. (Only this process writes its outbox.)
static BELL: Notify = Notify::const_new();

/// Tells the runner there is something to do.
pub(crate) fn ring() {
    BELL.notify_one();
}

/// Runs deliveries and looks until `stop`.
pub async fn run(ctx: Ctx, stop: CancellationToken) {
    let mut pause = FIRST_PAUSE;
    let mut announced = Announced::default();
    let mut next_look = tokio::time::Instant::now();
    loop {
        // Look before delivering: the first look learns what was already
        // there (not news), before anything this runner sends can be
        // answered.
        if tokio::time::Instant::now() >= next_look {
            announced.look(&ctx).await;
            next_look = tokio::time::Instant::now() + LOOK_EVERY;
        }
        let waiting = deliver(&ctx).await.unwrap_or(0);
        if waiting > 0 {
            // The link failed on waiting mail: try again after a pause that
            // grows while it stays down, whatever is written meanwhile.
            let this = pause;
            pause = (pause * 2).min(LONGEST_PAUSE);
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(this) => {}
            }
        } else {
            pause = FIRST_PAUSE;
            let until_look = next_look.saturating_duration_since(tokio::time::Instant::now());
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(until_look) => {}
                () = BELL.notified() => {}
            }
        }
    }
}

/// One pass; how many entries still wait (None: no team bus or an error).
async fn deliver(ctx: &Ctx) -> Option<u32> {
    super::status(ctx).await.ok().flatten()?;
    match outbox::deliver(ctx).await {
        Ok(pass) => Some(pass.waiting),
        Err(e) => {
            tracing::warn!("the outbox could not be delivered: {}", e.message);
            None
        }
    }
}

/// Urgent mail already announced (by id), so each is announced once.
#[derive(Default)]
struct Announced {
    seen: HashSet<String>,
    primed: bool,
}

impl Announced {
    async fn look(&mut self, ctx: &Ctx) {
        if !matches!(super::status(ctx).await, Ok(Some(_))) {
            self.primed = false;
            self.seen.clear();
            return;
        }
        let query = InboxQuery {
            peek: Some(true),
            unread_only: Some(true),
            limit: Some(100),
            ..InboxQuery::default()
        };
        let Ok(unread) = super::inbox(ctx, query).await else {
            return;
        };
        for message in unread {
            if message.priority != Priority::Urgent || !self.seen.insert(message.id.clone()) {
                continue;
            }
            // What was there when the app started is not news.
            if self.primed {
                ctx.notify(Notice {
                    title: format!("Urgent: {}", message.from),
                    body: message.body.chars().take(240).collect(),
                    urgent: true,
                    from: None,
                    topic: Some(NoticeTopic::UrgentMail {
                        sender: message.from.clone(),
                    }),
                });
            }
        }
        self.primed = true;
    }
}
