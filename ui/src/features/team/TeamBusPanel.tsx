import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Inbox, Network, Send, Trash2, Zap } from "lucide-react";

import { teamBusApi, type ApiError, type OutboxEntry, type TeamBusLink } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { EmptyState } from "../../components/EmptyState";
import { Field } from "../../components/Field";
import { Spinner } from "../../components/Spinner";
import { errorText, fieldErrorText } from "../../app/errorText";
import { useDates } from "../../app/dates";
import { outboxQuery, teamAuthorsQuery, teamInboxQuery, teamKeys } from "./queries";

/** The person's side of a team's bus, in the Inbox view (issue 17): what
 * they write (it leaves through the outbox, in order, once), the outbox
 * with where each message stands, and their inbox there. While the link is
 * down the banner says so and the outbox keeps the mail. */
export function TeamBusPanel({ link }: { link: TeamBusLink }) {
  const { t } = useTranslation();
  const dates = useDates();
  return (
    <div className="team-panel" data-testid="team-panel">
      <header className="author-head">
        <div>
          <h2>
            <Network size={18} aria-hidden="true" /> {t("teamBus.entry")}
          </h2>
          <p className="muted small">{t("teamBus.connected", { url: link.url, author: link.authorId })}</p>
        </div>
      </header>
      {!link.reachable && (
        <Banner tone="warning">
          <span data-testid="team-link-down">{t("teamBus.panel.linkDown", { time: link.lastErrorAt ? dates.fromNow(link.lastErrorAt) : "" })}</span>
        </Banner>
      )}
      <TeamCompose me={link.authorId} />
      <Outbox />
      <TeamInbox />
    </div>
  );
}

/** Writing to the team: "To" is picked from the bus's directory (typed
 * only while the directory has never been read, the link being down). */
function TeamCompose({ me }: { me: string }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const directory = useQuery(teamAuthorsQuery);
  const others = (directory.data ?? []).filter((a) => a.id !== me);
  const [to, setTo] = useState("");
  const [body, setBody] = useState("");
  const [urgent, setUrgent] = useState(false);
  const send = useMutation<OutboxEntry, ApiError>({
    mutationFn: () => teamBusApi.send(to, { body, priority: urgent ? "urgent" : "normal", reply_to: null, message_id: null }),
    onSuccess: () => {
      setBody("");
      setUrgent(false);
      void client.invalidateQueries({ queryKey: teamKeys.outbox });
    },
  });
  const problems = send.error?.fieldProblems() ?? {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate();
  };
  return (
    <form className="card form team-compose" onSubmit={submit}>
      <h3>{t("teamBus.panel.compose")}</h3>
      {send.error && Object.keys(problems).length === 0 && <Banner tone="danger">{errorText(t, send.error)}</Banner>}
      <Field
        id="team-to"
        label={t("teamBus.panel.to")}
        hint={directory.data ? undefined : t("teamBus.panel.toTyped")}
        error={fieldErrorText(t, problems.to, send.error)}
      >
        {directory.data ? (
          <select id="team-to" className="input" value={to} onChange={(e) => setTo(e.target.value)} data-testid="team-to">
            <option value="" disabled>
              {t("teamBus.panel.chooseTo")}
            </option>
            {others.map((a) => (
              <option key={a.id} value={a.id}>
                {a.kind === "role" ? t("teamBus.panel.roleEntry", { name: a.name }) : a.name}
              </option>
            ))}
          </select>
        ) : (
          <input id="team-to" className="input" value={to} onChange={(e) => setTo(e.target.value)} data-testid="team-to" />
        )}
      </Field>
      <Field id="team-body" label={t("teamBus.panel.body")} error={fieldErrorText(t, problems.body, send.error)}>
        <textarea id="team-body" className="input textarea" rows={3} value={body} onChange={(e) => setBody(e.target.value)} data-testid="team-body" />
      </Field>
      <div className="form-actions">
        <label className="checkbox">
          <input type="checkbox" checked={urgent} onChange={(e) => setUrgent(e.target.checked)} data-testid="team-urgent" />
          {t("teamBus.panel.urgent")}
        </label>
        <span className="spacer" />
        <Button type="submit" variant="primary" icon={<Send size={16} />} busy={send.isPending} disabled={!to.trim() || !body.trim()} data-testid="team-send">
          {t("teamBus.panel.send")}
        </Button>
      </div>
    </form>
  );
}

function Outbox() {
  const { t } = useTranslation();
  const dates = useDates();
  const nameOf = useTeamName();
  const client = useQueryClient();
  const entries = useQuery(outboxQuery);
  const discard = useMutation<null, ApiError, number>({
    mutationFn: teamBusApi.discard,
    onSuccess: () => void client.invalidateQueries({ queryKey: teamKeys.all }),
  });
  const list = [...(entries.data ?? [])].reverse();
  return (
    <section className="team-section">
      <h3>{t("teamBus.panel.outbox")}</h3>
      {discard.error && <Banner tone="danger">{errorText(t, discard.error)}</Banner>}
      {entries.isPending ? (
        <Spinner />
      ) : list.length === 0 ? (
        <p className="muted small">{t("teamBus.panel.emptyOutbox")}</p>
      ) : (
        <ul className="team-list" data-testid="team-outbox">
          {list.map((entry) => (
            <li key={entry.seq} className={`team-row team-row-${entry.state}`} data-testid={`outbox-${entry.seq}`}>
              <div className="team-row-head">
                <span className={`badge ${entry.state === "sent" ? "badge-accent" : entry.state === "failed" ? "badge-danger" : "badge-warning"}`} data-testid="outbox-state">
                  {t(`teamBus.panel.state.${entry.state}`)}
                </span>
                {entry.priority === "urgent" && <Zap size={14} aria-label={t("teamBus.panel.urgent")} />}
                <span className="muted small">{t("teamBus.panel.toLine", { to: nameOf(entry.to) })}</span>
                <span className="spacer" />
                <span className="muted small" title={dates.exact(entry.sentAt ?? entry.createdAt)}>
                  {dates.fromNow(entry.sentAt ?? entry.createdAt)}
                </span>
                {entry.state !== "sent" && (
                  <Button variant="ghost" size="sm" icon={<Trash2 size={14} />} onClick={() => discard.mutate(entry.seq)} data-testid="outbox-discard">
                    {t("teamBus.panel.discard")}
                  </Button>
                )}
              </div>
              <p className="team-body">{entry.body}</p>
              {entry.state === "failed" && entry.error && <p className="small team-error">{entry.error}</p>}
              {entry.state === "waiting" && entry.attempts > 0 && (
                <p className="muted small" title={entry.error ?? undefined}>
                  {t("teamBus.panel.attempts", { count: entry.attempts })}
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function TeamInbox() {
  const { t } = useTranslation();
  const dates = useDates();
  const nameOf = useTeamName();
  const inbox = useQuery(teamInboxQuery);
  const list = [...(inbox.data ?? [])].reverse();
  return (
    <section className="team-section">
      <h3>{t("teamBus.panel.inbox")}</h3>
      {inbox.error && !inbox.data && <Banner tone="warning">{t("teamBus.panel.inboxFailed", { message: inbox.error.message })}</Banner>}
      {inbox.isPending ? (
        <Spinner />
      ) : list.length === 0 ? (
        !inbox.error && <EmptyState icon={<Inbox size={28} />} title={t("teamBus.panel.emptyInbox")} body="" />
      ) : (
        <ul className="team-list" data-testid="team-inbox">
          {list.map((message) => (
            <li key={message.id} className={message.read_at ? "team-row" : "team-row team-row-unread"} data-testid="team-message">
              <div className="team-row-head">
                {message.priority === "urgent" && <Zap size={14} aria-label={t("teamBus.panel.urgent")} />}
                <span className="small">{t("teamBus.panel.from", { from: nameOf(message.from) })}</span>
                <span className="spacer" />
                <span className="muted small" title={dates.exact(message.created_at)}>
                  {dates.fromNow(message.created_at)}
                </span>
              </div>
              <p className="team-body">{message.body}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** An author of the team bus by name, from its directory (the id while
 * the directory is unread). */
function useTeamName(): (id: string) => string {
  const directory = useQuery(teamAuthorsQuery).data;
  return (id) => directory?.find((a) => a.id === id)?.name ?? id;
}
