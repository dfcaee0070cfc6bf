//! Who acts: one type for every door (ARCHITECTURE "one `Caller`").
//!
//! A [`Caller`] is built once per door and passed as `&Caller` to every
//! core function that needs to know on whose behalf it runs:
//!
//! | door | user | bus author | client |
//! |---|---|---|---|
//! | the desktop window | the owner | any (local) | `ui` |
//! | the `colmena` CLI | `--user`, else the owner | any (local) | `cli` |
//! | HTTP with a bearer token | the token author's user | the token's author | `http` |
//! | MCP (stdio or HTTP) | the token author's user | the token's author | from `clientInfo` |
//! | an agent run woken as a role | the run's user | the role | `agent` |
//!
//! The local doors (window, CLI) run on the workspace's own machine with
//! its files, so they may act as any author they name. A token door acts
//! only as the author whose token it presented: no argument changes that
//! (SPEC 0.1: "never as an identity named in a request parameter").
//!
//! Who acts is typed ([`Actor`]): a person, a role, or an agent run — never
//! a string read back with a prefix.
//!
//! A role's author has no user of its own. Over a token door it is a role
//! with no person ([`Actor::Role`] with `user: None`), so a role's token
//! reaches none of the people's canvases, memories or runs — those
//! operations refuse it with a clear `forbidden` (see [`Caller::person`]);
//! the bus is what a role's token is for. A role woken by Colmena's own
//! scheduler runs for the owner, as before.
//!
//! An agent run's tools get an [`Actor::Run`]: it has no place on the bus,
//! so it can never stand for "local, any author" — the bus tools work only
//! for a woken role.
//!
//! Whose memories a caller reads and writes ([`Caller::memory_owner`],
//! issue 15) follows the same table, with one change: a woken role's run —
//! and every run it delegates to — keeps the role's own memories, under the
//! scope `@<role id>`, not its owner's. The scope comes only from how the
//! caller was built; nothing a model or a token door's client sends names
//! it, and a person's id never begins with `@`
//! ([`crate::users::check_user`]). A person browses a role's memories
//! through [`crate::memory::role_caller`] (the local doors only).

use serde::{Deserialize, Serialize};

use crate::ctx::Ctx;
use crate::error::{AppError, ErrorCode, Result};

/// How a role's own memory and conversation scope begins: no person's id
/// does (`users::check_user`).
pub(crate) const ROLE_OWN_SCOPE: &str = "@";

/// The memory and conversation scope of a role: its own, not its owner's.
pub fn role_scope(author: &str) -> String {
    format!("{ROLE_OWN_SCOPE}{author}")
}

/// The operations a role's token may use: the bus, nothing else.
pub const BUS_OPERATIONS: [&str; 6] = [
    "send_message",
    "read_inbox",
    "list_sent",
    "search_messages",
    "read_thread",
    "mark_unread",
];

/// Who asked, as the seed names clients (`ui`, `claude-code`, …; MCP
/// clients by their declared name), plus the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum Client {
    Ui,
    Cli,
    /// The REST API with a bearer token.
    Http,
    /// An agent run (a woken role's tools).
    Agent,
    ClaudeCode,
    Cursor,
    ClaudeDesktop,
    Cline,
    OtherMcp,
}

impl Client {
    pub fn as_str(self) -> &'static str {
        match self {
            Client::Ui => "ui",
            Client::Cli => "cli",
            Client::Http => "http",
            Client::Agent => "agent",
            Client::ClaudeCode => "claude-code",
            Client::Cursor => "cursor",
            Client::ClaudeDesktop => "claude-desktop",
            Client::Cline => "cline",
            Client::OtherMcp => "other-mcp",
        }
    }

    /// The client an MCP peer is, from the name it declared.
    pub fn from_mcp_name(name: &str) -> Client {
        let name = name.to_ascii_lowercase();
        if name.contains("claude-code") || name.contains("claude code") {
            Client::ClaudeCode
        } else if name.contains("cursor") {
            Client::Cursor
        } else if name.contains("claude") {
            Client::ClaudeDesktop
        } else if name.contains("cline") {
            Client::Cline
        } else {
            Client::OtherMcp
        }
    }

    pub(crate) fn parse(text: &str) -> Client {
        match text {
            "ui" => Client::Ui,
            "cli" => Client::Cli,
            "http" => Client::Http,
            "agent" => Client::Agent,
            "claude-code" => Client::ClaudeCode,
            "cursor" => Client::Cursor,
            "claude-desktop" => Client::ClaudeDesktop,
            "cline" => Client::Cline,
            _ => Client::OtherMcp,
        }
    }
}

/// Who acts: a person, a role, or an agent run — each with what it acts
/// for, typed, never read back out of a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// A person (`user`). Through a local door (window, CLI) it may act as
    /// any bus author (`author: None`); through a token door only as its
    /// own author.
    Person {
        user: String,
        author: Option<String>,
    },
    /// A bus role. Through its token it has no person (`user: None`):
    /// canvases, memories and runs are not its own. Woken by Colmena, its
    /// run acts for `user` (the owner).
    Role { role: String, user: Option<String> },
    /// An agent run that is not a woken role, for `user`, with no place on
    /// the bus. `role`: the role whose wake-up it was delegated from, whose
    /// memories it keeps.
    Run {
        user: String,
        run: String,
        role: Option<String>,
    },
}

/// Who is asking, for whom, and through which client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub actor: Actor,
    /// The client asking, for the activity log (SPEC C8).
    pub client: Client,
}

impl Caller {
    /// The desktop window, acting as the workspace owner.
    pub fn ui(ctx: &Ctx) -> Caller {
        Caller::local(ctx.owner(), Client::Ui)
    }

    /// The `colmena` command line, acting as `user` (default: the owner).
    pub fn cli(ctx: &Ctx, user: Option<&str>) -> Caller {
        Caller::local(user.unwrap_or(ctx.owner()), Client::Cli)
    }

    /// A person at a local door (or Colmena's own work): any author.
    fn local(user: &str, client: Client) -> Caller {
        Caller {
            actor: Actor::Person {
                user: user.to_owned(),
                author: None,
            },
            client,
        }
    }

    /// The workspace's own background work (the bus scheduler): local.
    pub(crate) fn system(ctx: &Ctx) -> Caller {
        Caller::local(ctx.owner(), Client::Agent)
    }

    /// An agent run speaking as the bus role `author`, for `user`.
    pub(crate) fn role_run(author: &str, user: &str) -> Caller {
        Caller {
            actor: Actor::Role {
                role: author.to_owned(),
                user: Some(user.to_owned()),
            },
            client: Client::Agent,
        }
    }

    /// An agent run that is not a woken role: its user, and no bus
    /// identity. `role`: the role whose wake-up it was delegated from, whose
    /// memories it keeps.
    pub(crate) fn agent_run(user: &str, run: &str, role: Option<&str>) -> Caller {
        Caller {
            actor: Actor::Run {
                user: user.to_owned(),
                run: run.to_owned(),
                role: role.map(str::to_owned),
            },
            client: Client::Agent,
        }
    }

    /// Acting as the bus author `id` through `client`: a person's author
    /// for its `user`, a role's (no user) with no person's things.
    pub(crate) fn for_author(id: String, user: Option<String>, client: Client) -> Caller {
        let actor = match user {
            Some(user) => Actor::Person {
                user,
                author: Some(id),
            },
            None => Actor::Role {
                role: id,
                user: None,
            },
        };
        Caller { actor, client }
    }

    /// The person this caller acts for, or `forbidden` for a role's token:
    /// canvases, memories and runs belong to people.
    pub fn person(&self) -> Result<&str> {
        match &self.actor {
            Actor::Person { user, .. }
            | Actor::Run { user, .. }
            | Actor::Role {
                user: Some(user), ..
            } => Ok(user),
            Actor::Role { role, user: None } => Err(AppError::new(
                ErrorCode::Forbidden,
                format!(
                    "'{role}' is a role: canvases, memories and runs belong to people. \
                     Connect this client as a person's author (Settings → Connect AI clients)"
                ),
            )
            .with_details(serde_json::json!({ "reason": "role_has_no_user" }))),
        }
    }

    /// The bus author a token door presented, if this caller came through
    /// one (a person's author or a role's); `None` for the local doors and
    /// for agent runs.
    pub fn token_author(&self) -> Option<&str> {
        match &self.actor {
            Actor::Person { author, .. } => author.as_deref(),
            Actor::Role { role, .. } => Some(role),
            Actor::Run { .. } => None,
        }
    }

    /// Whether this is a person at the workspace's own window or command
    /// line (who may act as any author).
    pub fn is_local_person(&self) -> bool {
        matches!(self.actor, Actor::Person { author: None, .. })
    }

    /// May this caller use the operation `operation` (an MCP tool's name)?
    /// A role's token is for the bus ([`BUS_OPERATIONS`]); everything else
    /// — agents, swarms, canvases, memories, runs, the catalog — belongs to
    /// people and answers it `forbidden`, whichever tool it is, one check
    /// for every tool there is or will be.
    pub fn may_use(&self, operation: &str) -> Result<()> {
        if BUS_OPERATIONS.contains(&operation) {
            return Ok(());
        }
        self.person().map(drop)
    }

    /// Whose memories this caller reads and writes (issue 15): for a woken
    /// role's run and the runs it delegates to, the role's own scope
    /// (`@<author id>`); for every other caller its person. Only the caller
    /// decides it — no tool or request argument names a memory owner.
    pub fn memory_owner(&self) -> Result<String> {
        match &self.actor {
            Actor::Role {
                role,
                user: Some(_),
            }
            | Actor::Run {
                role: Some(role), ..
            } => Ok(role_scope(role)),
            _ => self.person().map(str::to_owned),
        }
    }

    /// Does this caller come through a door that is not the workspace's own
    /// window or command line (MCP, HTTP)?
    pub fn is_remote(&self) -> bool {
        !matches!(self.client, Client::Ui | Client::Cli | Client::Agent)
    }

    /// The same caller through another client.
    pub fn through(mut self, client: Client) -> Caller {
        self.client = client;
        self
    }

    /// The author this caller speaks as on the bus: its own, or for a local
    /// door the workspace owner's. An agent run that is not a woken role
    /// has none (`forbidden`).
    pub fn speaks_as(&self, ctx: &Ctx) -> Result<String> {
        match &self.actor {
            Actor::Person { author, .. } => Ok(author.as_deref().unwrap_or(ctx.owner()).to_owned()),
            Actor::Role { role, .. } => Ok(role.clone()),
            Actor::Run { .. } => Err(not_on_the_bus()),
        }
    }

    /// May this caller act as `author` (send as, read the inbox of)? Asked
    /// before whether `author` exists: to a token, an author that is not
    /// its own answers the same whether it exists or not, so no token
    /// holder can list who is on the bus by trying names.
    pub(crate) fn may_act_as(&self, author: &str) -> Result<()> {
        let me = match &self.actor {
            Actor::Person { author: None, .. } => return Ok(()),
            Actor::Person {
                author: Some(me), ..
            }
            | Actor::Role { role: me, .. } => me,
            Actor::Run { .. } => return Err(not_on_the_bus()),
        };
        if me == author {
            return Ok(());
        }
        Err(AppError::new(
            ErrorCode::Forbidden,
            format!("the token belongs to '{me}', not to '{author}'"),
        )
        .with_details(serde_json::json!({ "reason": "not_your_author", "field": "id" })))
    }
}

/// An agent run that is not a woken role acting on the bus.
fn not_on_the_bus() -> AppError {
    AppError::new(
        ErrorCode::Forbidden,
        "only a woken role's run is on the bus; this agent run is not",
    )
    .with_details(serde_json::json!({ "reason": "not_on_the_bus" }))
}
