//! A desktop on a team's bus (issue 17): its own workspace, the team's bus a
//! real server on loopback. Joining checks the token is the named author's
//! and keeps it sealed; mail written while the bus is down waits in the
//! outbox and leaves in order, once, when it is back; what the bus refuses
//! is marked failed and does not hold up the rest; urgent mail there
//! becomes a notice here.

#![allow(clippy::unwrap_used)]

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use colmena_core::inbox::{self, Caller, InboxQuery, SendMessage};
use colmena_core::team_bus::{self as team, OutboxState, TeamBusConnect, outbox};
use colmena_core::{Ctx, ErrorCode};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// The team's bus: a workspace served on loopback, stoppable and
/// restartable on the same port.
struct TeamBus {
    _dir: tempfile::TempDir,
    ctx: Ctx,
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
}

impl TeamBus {
    async fn start() -> TeamBus {
        let (dir, ctx) = common::workspace().await;
        let mut bus = TeamBus {
            _dir: dir,
            ctx,
            addr: "127.0.0.1:0".parse().unwrap(),
            stop: None,
        };
        bus.up().await;
        bus
    }

    async fn up(&mut self) {
        let listener = colmena_server::http::bind(self.addr, false).await.unwrap();
        self.addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(colmena_server::http::serve(
            self.ctx.clone(),
            listener,
            async {
                let _ = stopped.await;
            },
        ));
        self.stop = Some(stop);
    }

    async fn down(&mut self) {
        let _ = self.stop.take().unwrap().send(());
        // Until the port answers no more (a hang guard, not a timing claim).
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if tokio::net::TcpStream::connect(self.addr).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the team bus did not stop");
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.addr.port())
    }

    async fn bodies_for(&self, author: &str) -> Vec<String> {
        let query = InboxQuery {
            peek: Some(true),
            unread_only: Some(false),
            limit: Some(500),
            ..InboxQuery::default()
        };
        inbox::messages::inbox(&self.ctx, &Caller::cli(&self.ctx, None), author, query)
            .await
            .unwrap()
            .into_iter()
            .map(|m| m.body)
            .collect()
    }
}

fn text(body: &str) -> SendMessage {
    SendMessage {
        body: body.into(),
        ..SendMessage::default()
    }
}

async fn joined() -> (TeamBus, tempfile::TempDir, Ctx, String, String) {
    let bus = TeamBus::start().await;
    let (ana, token) = common::author(&bus.ctx, "Ana").await;
    let (beto, _) = common::author(&bus.ctx, "Beto").await;
    let (dir, desk) = common::workspace().await;
    team::connect(
        &desk,
        TeamBusConnect {
            url: bus.url(),
            author_id: ana.clone(),
            token,
            ca_pem: None,
        },
    )
    .await
    .unwrap();
    (bus, dir, desk, ana, beto)
}

#[tokio::test]
async fn joining_checks_the_token_is_the_authors_and_keeps_it_sealed() {
    let bus = TeamBus::start().await;
    let (ana, ana_token) = common::author(&bus.ctx, "Ana").await;
    let (_beto, beto_token) = common::author(&bus.ctx, "Beto").await;
    let (_dir, desk) = common::workspace().await;
    let join = |author: &str, token: &str| TeamBusConnect {
        url: bus.url(),
        author_id: author.into(),
        token: token.into(),
        ca_pem: None,
    };
    // Beto's token for Ana's inbox, a made-up token: refused, nothing kept.
    let e = team::connect(&desk, join(&ana, &beto_token))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Forbidden);
    let e = team::connect(&desk, join(&ana, "colmena_nope"))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Unauthorized);
    assert!(team::status(&desk).await.unwrap().is_none());
    // The right one: kept, masked, and the clear token nowhere in what the
    // window is told nor in the store file.
    let link = team::connect(&desk, join(&ana, &ana_token)).await.unwrap();
    assert!(link.reachable);
    assert_eq!(link.author_id, ana);
    let shown = serde_json::to_string(&link).unwrap();
    assert!(!shown.contains(&ana_token), "{shown}");
    let secret_part = &ana_token[ana_token.len() - 20..];
    for file in std::fs::read_dir(desk.data_dir()).unwrap() {
        let path = file.unwrap().path();
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !bytes
                    .windows(secret_part.len())
                    .any(|w| w == secret_part.as_bytes()),
                "the clear token is in {}",
                path.display()
            );
        }
    }
    // Plain HTTP to another machine is refused before anything is sent.
    let e = team::connect(
        &desk,
        TeamBusConnect {
            url: "http://bus.team.example:7878".into(),
            ..join(&ana, &ana_token)
        },
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::Validation);
    assert_eq!(team::disconnect(&desk).await.unwrap(), 0);
    assert!(team::status(&desk).await.unwrap().is_none());
}

#[tokio::test]
async fn mail_written_while_the_team_bus_is_down_leaves_in_order_once_when_it_is_back() {
    let (mut bus, _dir, desk, ana, beto) = joined().await;
    bus.down().await;
    for i in 1..=12 {
        let entry = outbox::send(&desk, &beto, text(&format!("mensaje {i}")))
            .await
            .unwrap();
        assert_eq!(entry.state, OutboxState::Waiting);
    }
    // The link is down: nothing leaves, and the desktop knows it.
    let pass = outbox::deliver(&desk).await.unwrap();
    assert_eq!((pass.delivered, pass.waiting), (0, 12));
    let link = team::status(&desk).await.unwrap().unwrap();
    assert!(!link.reachable);
    assert_eq!(link.waiting, 12);
    assert!(link.last_error.is_some());
    // Back: everything leaves, in the order it was written, each once.
    bus.up().await;
    let pass = outbox::deliver(&desk).await.unwrap();
    assert_eq!((pass.delivered, pass.waiting), (12, 0));
    let expected: Vec<String> = (1..=12).map(|i| format!("mensaje {i}")).collect();
    assert_eq!(bus.bodies_for(&beto).await, expected);
    let entries = outbox::list(&desk).await.unwrap();
    assert!(
        entries
            .iter()
            .all(|e| e.state == OutboxState::Sent && e.sent_id.is_some())
    );
    let link = team::status(&desk).await.unwrap().unwrap();
    assert!(link.reachable);
    assert_eq!(link.waiting, 0);
    // The team bus says Ana sent them.
    let sent = inbox::messages::sent(
        &bus.ctx,
        &Caller::cli(&bus.ctx, None),
        &ana,
        inbox::SentQuery::default(),
    )
    .await
    .unwrap();
    assert_eq!(sent.len(), 12);
}

#[tokio::test]
async fn a_message_the_team_bus_refuses_is_marked_and_the_rest_still_leave() {
    let (bus, _dir, desk, _ana, beto) = joined().await;
    outbox::send(&desk, &beto, text("uno")).await.unwrap();
    outbox::send(&desk, "nobody-here", text("a nadie"))
        .await
        .unwrap();
    outbox::send(&desk, &beto, text("tres")).await.unwrap();
    let pass = outbox::deliver(&desk).await.unwrap();
    assert_eq!((pass.delivered, pass.failed, pass.waiting), (2, 1, 0));
    assert_eq!(bus.bodies_for(&beto).await, ["uno", "tres"]);
    let entries = outbox::list(&desk).await.unwrap();
    let refused = entries.iter().find(|e| e.to == "nobody-here").unwrap();
    assert_eq!(refused.state, OutboxState::Failed);
    assert!(
        refused.error.as_deref().unwrap().contains("nobody-here"),
        "{refused:?}"
    );
    // It can be discarded; what was sent cannot.
    outbox::discard(&desk, refused.seq).await.unwrap();
    let sent = entries
        .iter()
        .find(|e| e.state == OutboxState::Sent)
        .unwrap();
    assert_eq!(
        outbox::discard(&desk, sent.seq).await.unwrap_err().code,
        ErrorCode::NotFound
    );
    // Bad input is refused before it is written.
    let e = outbox::send(&desk, &beto, text("  ")).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::Validation);
    let e = outbox::send(&desk, "", text("hola")).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::Validation);
}

#[tokio::test]
async fn the_desktop_delivers_on_its_own_and_announces_urgent_mail_from_the_team() {
    let (bus, _dir, desk, ana, beto) = joined().await;
    let mut notices = desk.notices();
    let stop = CancellationToken::new();
    tokio::spawn(team::delivery::run(desk.clone(), stop.clone()));
    // Written here: it leaves without anyone asking.
    outbox::send(&desk, &beto, text("sale solo")).await.unwrap();
    // A hang guard, not a timing claim.
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if bus.bodies_for(&beto).await == ["sale solo"] {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(bus.bodies_for(&beto).await, ["sale solo"]);
    // Urgent mail to Ana on the team bus: a notice here, on the next look.
    inbox::messages::send(
        &bus.ctx,
        &Caller::cli(&bus.ctx, None),
        &beto,
        &ana,
        SendMessage {
            body: "¡ahora!".into(),
            priority: Some("urgent".into()),
            ..SendMessage::default()
        },
    )
    .await
    .unwrap();
    // On the next look; the minute on top is a hang guard.
    let notice = tokio::time::timeout(
        team::delivery::LOOK_EVERY + Duration::from_secs(60),
        notices.recv(),
    )
    .await
    .expect("no notice of the team's urgent mail")
    .unwrap();
    assert!(notice.urgent);
    assert_eq!(notice.body, "¡ahora!");
    stop.cancel();
    // The person's inbox there, read from here.
    let mail = team::inbox(&desk, InboxQuery::default()).await.unwrap();
    assert_eq!(mail.len(), 1);
    // Its directory too: the "To" picker lists who is on that bus.
    let names: Vec<String> = team::authors(&desk)
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.name)
        .collect();
    assert!(names.len() >= 2, "{names:?}");
}

#[tokio::test]
async fn attack_waiting_mail_never_leaves_as_another_author_or_to_another_bus() {
    let (mut bus, _dir, desk, _ana, beto) = joined().await;
    // Beto's own token, as if the person switched identities.
    let beto_token = inbox::authors::rotate_token(&bus.ctx, &beto)
        .await
        .unwrap()
        .token;
    bus.down().await;
    outbox::send(&desk, &beto, text("escrito como Ana"))
        .await
        .unwrap();
    bus.up().await;
    let as_beto = TeamBusConnect {
        url: bus.url(),
        author_id: beto.clone(),
        token: beto_token,
        ca_pem: None,
    };
    let e = team::connect(&desk, as_beto).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    assert_eq!(e.details.unwrap()["reason"], "outbox_waiting");
    // Still Ana's: it leaves as Ana.
    outbox::deliver(&desk).await.unwrap();
    let mail = inbox::messages::inbox(
        &bus.ctx,
        &Caller::cli(&bus.ctx, None),
        &beto,
        InboxQuery {
            peek: Some(true),
            ..InboxQuery::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(mail.len(), 1);
    assert_eq!(
        mail[0].from,
        team::status(&desk).await.unwrap().unwrap().author_id
    );
}
