import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import type { TFunction } from "i18next";
import { AlarmClock, Bot, Brain, History, Inbox, KeyRound, Network, Pencil, PenSquare, Plus, Trash2, User, WifiOff } from "lucide-react";

import { inboxApi, type ApiError, type Author, type AuthorWithToken } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { Dialog } from "../../components/Dialog";
import { filterList, ListFilter } from "../../components/ListFilter";
import { ListItem } from "../../components/ListItem";
import { Spinner } from "../../components/Spinner";
import { Tabs } from "../../components/Tabs";
import { useDates } from "../../app/dates";
import { errorText } from "../../app/errorText";
import { authorName, useNames } from "../../app/names";
import { useRoute } from "../../app/route";
import { CopyId } from "../../components/CopyId";
import { ComposeDialog } from "./ComposeDialog";
import { InboxSearchBox, InboxSearchResults } from "./InboxSearch";
import { MessageList } from "./MessageList";
import { RoleDialog, TokenPanel } from "./RoleDialog";
import { RoleMemories, RoleScopeFacts } from "./RoleMemories";
import { RoleWakeHistory } from "./RoleWakeHistory";
import { ThreadView } from "./ThreadView";
import { WakeCommandLine } from "./WakeCommandFields";
import { authorsQuery, inboxKeys } from "./queries";
import { TeamBusPanel } from "../team/TeamBusPanel";
import { teamStatusQuery } from "../team/queries";
import { wakeInterval } from "./interval";

type Tab = "inbox" | "sent" | "wakes" | "memories";

/** A role's own tabs (issue 15): its wake-ups, and its memories. */
function roleTabs(t: TFunction, author: Author) {
  if (author.kind === "user") return [];
  return [
    { id: "wakes", label: t("rolePage.tabs.wakes"), icon: History },
    { id: "memories", label: t("rolePage.tabs.memories"), icon: Brain },
  ];
}

/** The bus for the person (SPEC B5): every author with its unread count,
 * each inbox and what each sent, compose, and the roles' wake-ups. Mail
 * arrives live: the view refetches when the backend commits messages. */
export function InboxView() {
  const { t } = useTranslation();
  const authors = useQuery(authorsQuery);
  const team = useQuery(teamStatusQuery).data ?? null;
  const [selected, setSelected] = useState<string | null>(null);
  // The team bus's entry, above this computer's authors (issue 17).
  const [teamOpen, setTeamOpen] = useState(false);
  const [tab, setTab] = useState<Tab>("inbox");
  const [filter, setFilter] = useState("");
  const [dialog, setDialog] = useState<"compose" | "role" | "edit" | null>(null);
  // The thread open over the list, and the search shown instead of it.
  const [thread, setThread] = useState<{ id: string; replying: boolean } | null>(null);
  const [search, setSearch] = useState("");
  const [searchFailure, setSearchFailure] = useState<ApiError | null>(null);
  const list = authors.data ?? [];
  const me = list.find((a) => a.isOwner);
  // A link (Activity) names the role in the route.
  const [route] = useRoute();
  const current = list.find((a) => a.id === (selected ?? route.section)) ?? me ?? list[0];
  const shownAuthors = filterList(list, filter, (a) => [authorName(t, a), a.name, a.id, a.agentId]);

  return (
    <div className="page page-wide page-inbox">
      <header className="view-head view-head-row">
        <div>
          <h1>{t("inbox.title")}</h1>
          <p className="muted">{t("inbox.subtitle")}</p>
        </div>
        <div className="head-actions">
          <Button icon={<Plus size={16} />} onClick={() => setDialog("role")} data-testid="new-role">
            {t("inbox.newRole")}
          </Button>
          <Button variant="primary" icon={<PenSquare size={16} />} onClick={() => setDialog("compose")} disabled={list.length < 2} data-testid="compose">
            {t("inbox.compose.open")}
          </Button>
        </div>
      </header>
      {authors.isPending ? (
        <Spinner />
      ) : (
        <div className="split">
          <aside className="list-pane">
            <ListFilter value={filter} onChange={setFilter} label={t("forms.filter.authors")} shown={shownAuthors.length} total={list.length} testId="authors-filter" />
            {team && (
              <ul className="item-list team-entry" aria-label={t("teamBus.entry")}>
                <ListItem
                  active={teamOpen}
                  icon={team.reachable ? <Network size={16} /> : <WifiOff size={16} />}
                  title={
                    <span className="author-line">
                      <span>{t("teamBus.entry")}</span>
                      {team.waiting > 0 && (
                        <span className="unread-count" data-testid="team-waiting-count">
                          {team.waiting}
                        </span>
                      )}
                    </span>
                  }
                  sub={team.url.replace(/^https?:\/\//, "")}
                  onSelect={() => setTeamOpen(true)}
                  testId="team-entry"
                />
              </ul>
            )}
            <ul className="item-list" aria-label={t("inbox.authors")}>
              {shownAuthors.map((a) => (
                <ListItem
                  key={a.id}
                  active={!(team && teamOpen) && a.id === current?.id}
                  icon={a.kind === "user" ? <User size={16} /> : <Bot size={16} />}
                  title={
                    <span className="author-line">
                      <span>{authorName(t, a)}</span>
                      {a.unread > 0 && (
                        <span className="unread-count" data-testid={`unread-${a.id}`}>
                          {a.unread}
                        </span>
                      )}
                    </span>
                  }
                  sub={<AuthorSub author={a} />}
                  onSelect={() => {
                    setSelected(a.id);
                    setTeamOpen(false);
                    setThread(null);
                    setSearch("");
                  }}
                  testId={`author-${a.id}`}
                />
              ))}
            </ul>
          </aside>
          <div className="detail-pane">
            {team && teamOpen ? (
              <TeamBusPanel link={team} />
            ) : current && (
              <>
                <AuthorHeader author={current} onEdit={() => setDialog("edit")} onRemoved={() => setSelected(me?.id ?? null)} />
                <Tabs
                  label={t("inbox.title")}
                  active={tab}
                  onChange={(id) => {
                    setTab(id as Tab);
                    setThread(null);
                    setSearch("");
                  }}
                  tabs={[
                    { id: "inbox", label: t("inbox.tabs.inbox"), icon: Inbox, count: current.unread },
                    { id: "sent", label: t("inbox.tabs.sent") },
                    ...roleTabs(t, current),
                  ]}
                />
                {!current.isOwner && tab === "inbox" && <p className="muted small peek-note">{t("inbox.peekNote", { name: current.name })}</p>}
                {tab === "wakes" && current.kind !== "user" ? (
                  <RoleWakeHistory author={current} />
                ) : tab === "memories" && current.kind !== "user" ? (
                  <RoleMemories author={current} />
                ) : thread ? (
                  <ThreadView
                    key={`${current.id}/${thread.id}`}
                    author={current}
                    authors={list}
                    messageId={thread.id}
                    replying={thread.replying}
                    onBack={() => setThread(null)}
                  />
                ) : (
                  <>
                    <InboxSearchBox
                      key={current.id}
                      author={current}
                      value={search}
                      onSearch={(query) => {
                        setSearch(query);
                        setSearchFailure(null);
                      }}
                    />
                    {searchFailure && <Banner tone="danger">{errorText(t, searchFailure)}</Banner>}
                    {search ? (
                      <InboxSearchResults
                        author={current}
                        authors={list}
                        query={search}
                        onOpen={(id) => setThread({ id, replying: false })}
                        onError={setSearchFailure}
                      />
                    ) : (
                      <MessageList
                        author={current}
                        tab={tab === "sent" ? "sent" : "inbox"}
                        authors={list}
                        onOpen={(id, replying) => setThread({ id, replying })}
                      />
                    )}
                  </>
                )}
              </>
            )}
          </div>
        </div>
      )}
      {dialog === "compose" && (
        <ComposeDialog authors={list} to={current && !current.isOwner ? current.id : undefined} onClose={() => setDialog(null)} />
      )}
      {dialog === "role" && <RoleDialog onClose={() => setDialog(null)} onCreated={(id) => setSelected(id)} />}
      {dialog === "edit" && current && <RoleDialog role={current} onClose={() => setDialog(null)} />}
    </div>
  );
}

function AuthorSub({ author }: { author: Author }) {
  const { t } = useTranslation();
  const dates = useDates();
  if (author.kind === "user") return <>{t("inbox.person")}</>;
  if (!author.agentId && !author.wakeCommand) return <>{t("inbox.outsideRole")}</>;
  return (
    <span data-testid={`next-wake-${author.id}`}>
      {author.nextWakeAt ? (
        <span title={dates.exact(author.nextWakeAt)}>{t("inbox.nextWake", { time: dates.fromNow(author.nextWakeAt) })}</span>
      ) : (
        t("inbox.wakeSoon")
      )}
    </span>
  );
}

function AuthorHeader({ author, onEdit, onRemoved }: { author: Author; onEdit(): void; onRemoved(): void }) {
  const { t } = useTranslation();
  const { when, exact } = useDates();
  const names = useNames();
  const client = useQueryClient();
  const [token, setToken] = useState<AuthorWithToken | null>(null);
  const [confirm, setConfirm] = useState(false);
  const refresh = () => void client.invalidateQueries({ queryKey: inboxKeys.authors });
  const wake = useMutation<Author, ApiError>({ mutationFn: () => inboxApi.wakeAuthor(author.id), onSettled: refresh });
  const rotate = useMutation<AuthorWithToken, ApiError>({ mutationFn: () => inboxApi.rotateAuthorToken(author.id), onSuccess: setToken });
  const remove = useMutation<null, ApiError>({
    mutationFn: () => inboxApi.removeAuthor(author.id),
    onSuccess: () => {
      setConfirm(false);
      onRemoved();
      refresh();
    },
  });
  const failure = wake.error ?? rotate.error ?? remove.error;
  const role = author.kind === "role";
  return (
    <section className="author-head" data-testid="author-head">
      <div className="author-title">
        <h2>{authorName(t, author)}</h2>
        <CopyId id={author.id} testId="copy-author-id" />
      </div>
      {role && (
        <dl className="role-facts">
          {author.wakeCommand ? (
            <>
              <dt>{t("wakeCommand.command")}</dt>
              <dd data-testid="role-command">
                <WakeCommandLine argv={author.wakeCommand} />
              </dd>
            </>
          ) : (
            <>
              <dt>{t("inbox.role.agent")}</dt>
              <dd data-testid="role-agent-name">{author.agentId ? names.agent(author.agentId) : t("inbox.outsideRole")}</dd>
            </>
          )}
          {author.wakeIntervalMinutes && (
            <>
              <dt>{t("schedule.wakes")}</dt>
              <dd>{t(`schedule.every.${wakeInterval(author.wakeIntervalMinutes).unit}`, { count: wakeInterval(author.wakeIntervalMinutes).count })}</dd>
              <dt>{t("inbox.nextWakeLabel")}</dt>
              <dd data-testid="role-next-wake" title={author.nextWakeAt ? exact(author.nextWakeAt) : undefined}>
                {author.nextWakeAt ? when(author.nextWakeAt) : t("inbox.wakeSoon")}
              </dd>
            </>
          )}
          {author.lastWakeAt && (
            <>
              <dt>{t("inbox.lastWake")}</dt>
              <dd title={exact(author.lastWakeAt)}>{when(author.lastWakeAt)}</dd>
            </>
          )}
          <RoleScopeFacts author={author} />
        </dl>
      )}
      {author.lastWakeError && <Banner tone="danger">{t("inbox.wakeFailed", { message: author.lastWakeError })}</Banner>}
      {failure && <Banner tone="danger">{errorText(t, failure)}</Banner>}
      <div className="author-actions">
        {role && (author.agentId || author.wakeCommand) && (
          <Button size="sm" icon={<AlarmClock size={14} />} busy={wake.isPending} onClick={() => wake.mutate()} data-testid="wake-now">
            {t("inbox.wakeNow")}
          </Button>
        )}
        {role && (
          <Button size="sm" icon={<Pencil size={14} />} onClick={onEdit} data-testid="edit-role">
            {t("inbox.role.edit")}
          </Button>
        )}
        <Button size="sm" icon={<KeyRound size={14} />} busy={rotate.isPending} onClick={() => rotate.mutate()} data-testid="rotate-token">
          {t("inbox.token.rotate")}
        </Button>
        {role && (
          <Button size="sm" variant="ghost" icon={<Trash2 size={14} />} onClick={() => setConfirm(true)} data-testid="remove-role">
            {t("common.delete")}
          </Button>
        )}
      </div>
      {token && (
        <Dialog title={t("inbox.token.newTitle", { name: author.name })} onClose={() => setToken(null)} closeLabel={t("common.close")} testId="token-dialog">
          <TokenPanel token={token.token} onDone={() => setToken(null)} />
        </Dialog>
      )}
      {confirm && (
        <ConfirmDialog
          title={t("inbox.role.removeTitle", { name: author.name })}
          body={t("inbox.role.removeBody")}
          busy={remove.isPending}
          onConfirm={() => remove.mutate()}
          onCancel={() => setConfirm(false)}
          confirmTestId="confirm-remove-role"
        />
      )}
    </section>
  );
}
