//! The gate every tool call passes, whatever door started the run (chat,
//! swarm, canvas, a role's wake-up, an outside client).

use crate::agents::Agent;
use crate::error::Result;
use crate::llm::ToolCall;
use crate::permissions::approvals::{self, ApprovalStatus, MAX_ARGUMENTS_CHARS, Request};
use crate::permissions::{Rule, permissions_in, risk_of};
use crate::risk::Risk;
use crate::runs::context::{RunContext, RunEvent};

/// What happens to one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    Allow,
    /// Refused; the text says why, for the model and the run's record.
    Deny(String),
    /// A person must decide.
    Ask(Risk),
}

/// Who granted an unattended run what it may do: the woken role (in the
/// Inbox) or the scheduled job that started it (in Cron), by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grantor<'a> {
    Role(&'a str),
    Job(&'a str),
}

/// The gate's decision from the agent's rule, whether someone watches the
/// run, and what the woken role may do unattended.
///
/// With nobody watching, the role's grant is the ceiling: a class other
/// than reading runs only when the role was allowed it for its wake-ups —
/// whatever the agent's own rule (set, perhaps, for the person's chats) and
/// whichever agent the wake-up delegated to. The agent's "deny" always holds.
/// The risk class of a tool, with what the store knows about it. An HTTP
/// endpoint declared with GET reads from the network (`network`); one with
/// POST, PUT, PATCH or DELETE changes something on another system on the
/// person's behalf — files a ticket, posts a message, deletes a record — so
/// it has the class of its own (`act`): neither a grant to read the web nor
/// one to answer mail covers it.
///
/// An MCP server's tool: a stdio server's runs a program on this computer
/// (`run`), whatever it claims; an HTTP server's reaches the network when
/// the server marks it read-only, and otherwise changes another system
/// (`act`).
pub(crate) fn risk_in(conn: &rusqlite::Connection, tool: &str) -> crate::error::Result<Risk> {
    if tool.starts_with("mcp__") {
        return mcp_risk_in(conn, tool);
    }
    Ok(match crate::endpoints::method_in(conn, tool)? {
        Some(method) if method.reads_only() => Risk::Network,
        Some(_) => Risk::Act,
        None => risk_of(tool),
    })
}

fn mcp_risk_in(conn: &rusqlite::Connection, tool: &str) -> crate::error::Result<Risk> {
    use rusqlite::OptionalExtension;
    let found: Option<(String, bool)> = conn
        .query_row(
            "SELECT s.transport, t.mcp_read_only FROM tools t
             JOIN mcp_servers s ON s.id = t.mcp_server_id WHERE t.id = ?1",
            [tool],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    Ok(match found {
        Some((transport, true)) if transport == "http" => Risk::Network,
        Some((transport, false)) if transport == "http" => Risk::Act,
        _ => Risk::Run,
    })
}

#[cfg(test)]
pub(crate) fn judge(
    tool: &str,
    agent: &str,
    rule: Rule,
    attended: bool,
    role: Option<(&str, &[Risk])>,
) -> Verdict {
    let grant = role.map(|(r, risks)| (Grantor::Role(r), risks));
    judge_as(tool, risk_of(tool), agent, rule, attended, grant)
}

/// [`judge`] for a tool whose class is `risk` (an endpoint's, known from
/// its method in the store), with the grant of whoever started the
/// unattended run: a woken role's, or a scheduled job's — the same ceiling.
pub(crate) fn judge_as(
    tool: &str,
    risk: Risk,
    agent: &str,
    rule: Rule,
    attended: bool,
    grant: Option<(Grantor<'_>, &[Risk])>,
) -> Verdict {
    match rule {
        Rule::Deny => Verdict::Deny(format!(
            "{tool} was not run: agent '{agent}' is not allowed to use tools that {}. \
             A person can change that in the agent's permissions.",
            risk.described()
        )),
        Rule::Allow if attended || risk == Risk::Read => Verdict::Allow,
        Rule::Ask if attended => Verdict::Ask(risk),
        Rule::Allow | Rule::Ask => match grant {
            Some((_, allowed)) if allowed.contains(&risk) => Verdict::Allow,
            Some((Grantor::Job(job), _)) => Verdict::Deny(format!(
                "{tool} was not run: this is an unattended run of the scheduled job '{job}', which \
                 may not use tools that {} with nobody watching, and nobody is there to ask. A \
                 person can allow this in the job's settings in Cron.",
                risk.described()
            )),
            Some((Grantor::Role(role), allowed))
                if risk == Risk::Send && allowed.contains(&Risk::Reply) =>
            {
                Verdict::Deny(format!(
                    "{tool} was not run: this unattended wake-up of role '{role}' may only answer \
                     the authors whose mail it was handed, and nobody is there to ask about \
                     anyone else. A person can allow sending to anyone for the role's wake-ups \
                     in the Inbox."
                ))
            }
            Some((Grantor::Role(role), _)) => Verdict::Deny(format!(
                "{tool} was not run: this is an unattended wake-up of role '{role}', which may not \
                 use tools that {} with nobody watching, and nobody is there to ask. A person can \
                 allow this for the role's wake-ups in the Inbox.",
                risk.described()
            )),
            None => Verdict::Deny(format!(
                "{tool} was not run: nobody watches this run, and agent '{agent}' may not use \
                 tools that {} unattended.",
                risk.described()
            )),
        },
    }
}

/// Where the system gives programs no sandbox (Windows), a built-in tool
/// that runs one is decided by a person every time: no rule, no "allow for
/// this run" and no unattended grant lets it run by itself, and the
/// agent's "deny" still holds. The person is told what is not confined.
pub(crate) fn unconfined_verdict(
    tool: &str,
    risk: Risk,
    agent: &str,
    rule: Rule,
    attended: bool,
) -> Verdict {
    match rule {
        Rule::Deny => judge_as(tool, risk, agent, rule, attended, None),
        _ if attended => Verdict::Ask(risk),
        _ => Verdict::Deny(format!(
            "{tool} was not run: {}. So a person decides on every such call, and nobody \
             watches this run.",
            crate::sandbox::UNCONFINED
        )),
    }
}

/// How much a rule holds back: deny over ask over allow.
fn strictness(rule: Rule) -> u8 {
    match rule {
        Rule::Allow => 0,
        Rule::Ask => 1,
        Rule::Deny => 2,
    }
}

/// The verdict for `call` in this run, read fresh from the store (a rule
/// changed mid-run applies to the next call).
async fn check(rc: &RunContext, agent: &Agent, call: &ToolCall) -> Result<Verdict> {
    let (agent_id, author, job, run_id, tool_name, delegators) = (
        agent.id.to_string(),
        rc.wake_role.clone(),
        rc.wake_job.clone(),
        rc.run_id.clone(),
        call.name.clone(),
        rc.delegators.clone(),
    );
    let attended = rc.attended;
    // A woken role's message: to whom, for a grant that lets it only reply.
    let recipient = match (&rc.author, call.name.as_str()) {
        (Some(_), "send_message") => recipient_of(rc, &call.arguments).await?,
        _ => None,
    };
    // A role's grant is the bus's (wherever it lives), read now: a role
    // removed mid-run grants nothing.
    let role_grant = match &author {
        Some(role) => match rc.ctx.bus().author(role).await? {
            Some(found) => found.unattended,
            None => Vec::new(),
        },
        None => Vec::new(),
    };
    rc.ctx
        .store()
        .read(move |conn| {
            let risk = risk_in(conn, &tool_name)?;
            // The strictest rule of this agent and of every agent that
            // handed it the task; a refusal names the agent it comes from.
            let mut rule = permissions_in(conn, &agent_id)?.rule(risk);
            let mut ruled_by = agent_id.clone();
            for delegator in &delegators {
                let theirs = permissions_in(conn, delegator)?.rule(risk);
                if strictness(theirs) > strictness(rule) {
                    (rule, ruled_by) = (theirs, delegator.clone());
                }
            }
            if approvals::unconfined(&tool_name).is_some() {
                return Ok(unconfined_verdict(
                    &tool_name, risk, &ruled_by, rule, attended,
                ));
            }
            if rule == Rule::Ask
                && approvals::allowed_for_run(conn, &run_id, &agent_id, &tool_name)?
            {
                return Ok(Verdict::Allow);
            }
            // A job's grant, read now: revoked in Cron, it bounds the next
            // call. A job deleted mid-run grants nothing.
            if let Some(job) = &job {
                let (name, granted) =
                    crate::cron::grant_of(conn, job)?.unwrap_or_else(|| (job.clone(), Vec::new()));
                let grant = Some((Grantor::Job(&name), granted.as_slice()));
                return Ok(judge_as(&tool_name, risk, &ruled_by, rule, attended, grant));
            }
            let mut unattended = role_grant;
            // "Reply" covers this message when it goes to someone whose
            // mail this wake-up was handed.
            if unattended.contains(&Risk::Reply)
                && risk == Risk::Send
                && let Some(to) = &recipient
                && crate::runs::origin::senders_of(conn, &run_id)?.contains(to)
            {
                unattended.push(Risk::Send);
            }
            let role = author
                .as_deref()
                .map(|r| (Grantor::Role(r), unattended.as_slice()));
            Ok(judge_as(&tool_name, risk, &ruled_by, rule, attended, role))
        })
        .await
}

/// The author id a `send_message` call names, when its arguments name one
/// that exists (otherwise the call fails on its own, whatever the gate says).
async fn recipient_of(rc: &RunContext, arguments: &str) -> Result<Option<String>> {
    let Some(name) = serde_json::from_str::<serde_json::Value>(arguments)
        .ok()
        .and_then(|v| v.get("to_author_name")?.as_str().map(str::to_owned))
    else {
        return Ok(None);
    };
    Ok(crate::inbox::authors::lookup(&rc.ctx, &name)
        .await?
        .map(|a| a.id))
}

/// What the gate finally says about one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Passage {
    Run,
    /// Refused; the text says why, for the model and the run's record.
    Refused(String),
}

/// Whether `call` (made by the model at `step`) may run: the rule's verdict,
/// and where the rule asks, the person's answer.
pub(crate) async fn pass(
    rc: &RunContext,
    agent: &Agent,
    step: u32,
    call: &ToolCall,
) -> Result<Passage> {
    let risk = match check(rc, agent, call).await? {
        Verdict::Allow => return Ok(Passage::Run),
        Verdict::Deny(why) => return Ok(Passage::Refused(why)),
        Verdict::Ask(risk) => risk,
    };
    // The person sees the arguments whole, or the call is refused: a long
    // argument could push what matters out of sight.
    if call.arguments.chars().count() > MAX_ARGUMENTS_CHARS {
        return Ok(Passage::Refused(format!(
            "{} was not run: its arguments are longer than {MAX_ARGUMENTS_CHARS} characters, \
             more than a person can be shown to decide on. Make the call smaller (write long \
             content to a file in steps).",
            call.name
        )));
    }
    if ask(rc, agent, step, call, risk).await? {
        Ok(Passage::Run)
    } else {
        Ok(Passage::Refused(format!(
            "{} was not run: the person denied this call. Do not try it again; say what you \
             could not do, or find another way.",
            call.name
        )))
    }
}

/// Asks a person and waits for the answer: true when allowed.
async fn ask(
    rc: &RunContext,
    agent: &Agent,
    step: u32,
    call: &ToolCall,
    risk: Risk,
) -> Result<bool> {
    let approval = approvals::request(
        &rc.ctx,
        Request {
            run_id: &rc.run_id,
            agent_id: agent.id.as_str(),
            step,
            call_id: &call.id,
            tool: &call.name,
            arguments: &call.arguments,
            risk,
        },
    )
    .await?;
    if approval.status == ApprovalStatus::Pending {
        rc.emit(RunEvent::ApprovalRequested {
            run_id: rc.run_id.clone(),
            approval: approval.clone(),
        });
    }
    let decided = approvals::wait(&rc.ctx, &approval.id, &rc.cancel).await?;
    rc.emit(RunEvent::ApprovalDecided {
        run_id: rc.run_id.clone(),
        approval: decided.clone(),
    });
    Ok(decided.status == ApprovalStatus::Allowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_servers_tool_acts_unless_marked_read_only_and_a_local_ones_runs() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        crate::store::migrations().to_latest(&mut conn).unwrap();
        conn.execute_batch(
            "INSERT INTO mcp_servers (id, name, transport, created_at, updated_at) VALUES
               ('tracker', 'Tracker', 'http', 'now', 'now'), ('shell', 'Shell', 'stdio', 'now', 'now');
             INSERT INTO tools (id, category, description, parameters, source, created_at, updated_at,
                                mcp_server_id, mcp_tool_name, mcp_read_only) VALUES
               ('mcp__tracker__list', 'mcp', 'd', '{}', 'mcp', 'now', 'now', 'tracker', 'list', 1),
               ('mcp__tracker__delete', 'mcp', 'd', '{}', 'mcp', 'now', 'now', 'tracker', 'delete', 0),
               ('mcp__shell__ls', 'mcp', 'd', '{}', 'mcp', 'now', 'now', 'shell', 'ls', 1);",
        )
        .unwrap();
        assert_eq!(risk_in(&conn, "mcp__tracker__list").unwrap(), Risk::Network);
        assert_eq!(risk_in(&conn, "mcp__tracker__delete").unwrap(), Risk::Act);
        assert_eq!(risk_in(&conn, "mcp__shell__ls").unwrap(), Risk::Run);
        assert_eq!(risk_in(&conn, "mcp__gone__x").unwrap(), Risk::Run);
    }

    #[test]
    fn attended_runs_ask_and_unattended_ones_are_refused_unless_the_role_allows_the_class() {
        assert_eq!(
            judge("cli_exec", "eng", Rule::Ask, true, None),
            Verdict::Ask(Risk::Run)
        );
        let refused = judge(
            "cli_exec",
            "eng",
            Rule::Ask,
            false,
            Some(("dev", &[Risk::Send])),
        );
        assert!(
            matches!(&refused, Verdict::Deny(why) if why.contains("unattended") && why.contains("dev")),
            "{refused:?}"
        );
        assert_eq!(
            judge(
                "send_message",
                "eng",
                Rule::Ask,
                false,
                Some(("dev", &[Risk::Send]))
            ),
            Verdict::Allow
        );
        assert!(matches!(
            judge("cli_exec", "eng", Rule::Ask, false, None),
            Verdict::Deny(_)
        ));
    }

    /// Windows: a program without a sandbox is a person's call, every time.
    #[test]
    fn an_unconfined_program_always_asks_and_never_runs_unattended() {
        for rule in [Rule::Allow, Rule::Ask] {
            assert_eq!(
                unconfined_verdict("git_status", Risk::Read, "eng", rule, true),
                Verdict::Ask(Risk::Read),
                "even reading with git asks: git is a program"
            );
            let refused = unconfined_verdict("cli_exec", Risk::Run, "eng", rule, false);
            assert!(
                matches!(&refused, Verdict::Deny(why) if why.contains("read and change every file")),
                "{refused:?}"
            );
        }
        assert!(matches!(
            unconfined_verdict("cli_exec", Risk::Run, "eng", Rule::Deny, true),
            Verdict::Deny(why) if why.contains("not allowed")
        ));
        assert!(approvals::runs_a_program("cli_exec") && approvals::runs_a_program("git_commit"));
        assert!(
            !approvals::runs_a_program("fs_read") && !approvals::runs_a_program("mcp__git__log")
        );
    }

    #[test]
    fn a_jobs_grant_is_the_ceiling_of_its_runs_and_a_refusal_says_where_to_allow() {
        let news: &[Risk] = &[Risk::Network];
        assert_eq!(
            judge_as(
                "web_fetch",
                Risk::Network,
                "a",
                Rule::Ask,
                false,
                Some((Grantor::Job("Morning"), news))
            ),
            Verdict::Allow
        );
        let refused = judge_as(
            "fs_write",
            Risk::Write,
            "a",
            Rule::Allow,
            false,
            Some((Grantor::Job("Morning"), news)),
        );
        assert!(
            matches!(&refused, Verdict::Deny(why) if why.contains("'Morning'") && why.contains("job's settings in Cron")),
            "{refused:?}"
        );
        assert!(matches!(
            judge_as(
                "web_fetch",
                Risk::Network,
                "a",
                Rule::Deny,
                false,
                Some((Grantor::Job("Morning"), news))
            ),
            Verdict::Deny(_)
        ));
    }

    #[test]
    fn unattended_the_roles_grant_bounds_even_an_agent_that_allows() {
        assert_eq!(
            judge("fs_write", "a", Rule::Allow, true, None),
            Verdict::Allow
        );
        // Allowed for the person's chats is not allowed with nobody watching.
        assert!(matches!(
            judge("cli_exec", "a", Rule::Allow, false, Some(("r", &[Risk::Send]))),
            Verdict::Deny(why) if why.contains("unattended")
        ));
        assert!(matches!(
            judge("cli_exec", "a", Rule::Allow, false, None),
            Verdict::Deny(_)
        ));
        assert_eq!(
            judge(
                "cli_exec",
                "a",
                Rule::Allow,
                false,
                Some(("r", &[Risk::Run]))
            ),
            Verdict::Allow
        );
        // Reading needs no grant; "deny" holds whoever watches.
        assert_eq!(
            judge("fs_read", "a", Rule::Allow, false, None),
            Verdict::Allow
        );
        for attended in [true, false] {
            assert!(matches!(
                judge(
                    "fs_write",
                    "a",
                    Rule::Deny,
                    attended,
                    Some(("r", &[Risk::Write]))
                ),
                Verdict::Deny(_)
            ));
        }
    }
}
