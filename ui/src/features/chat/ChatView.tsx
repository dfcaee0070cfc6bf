// Chat: conversations on the left, the open one on the right. "New chat"
// talks to the open conversation's agent (else the first one); its "▾"
// chooses another. The filter box also searches what was said: from two
// characters, conversations whose messages hold the words are listed too,
// with the line that matched. The chat's run lives here, above the open
// conversation, so an edited message's answer streams into its new branch.

import { useState } from "react";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { ChevronDown, GitBranch, MessageSquare, Plus } from "lucide-react";

import { runtimeApi, type ApiError, type Conversation } from "../../api";
import { useDates } from "../../app/dates";
import { useRoute } from "../../app/route";
import { shortcutTitle, useShortcutAction } from "../../app/shortcutsHooks";
import { errorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { ListFilter, matches } from "../../components/ListFilter";
import { ListItem } from "../../components/ListItem";
import { Menu } from "../../components/Menu";
import { EmptyState } from "../../components/EmptyState";
import { Spinner } from "../../components/Spinner";
import { useDebounced } from "../../components/useDebounced";
import { useAgentName } from "../catalog/agentName";
import { agentsQuery } from "../catalog/queries";
import { conversationsQuery, runtimeKeys } from "../runs/queries";
import { ChatThread } from "./ChatThread";
import { useChat } from "./useChat";

/** The shortest filter that also searches the messages. */
const SEARCH_FROM = 2;

export function ChatView() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [route, navigate] = useRoute();
  const agentName = useAgentName();
  const allAgents = useQuery(agentsQuery).data ?? [];
  const agents = allAgents.filter((a) => a.enabled);
  const conversations = useQuery(conversationsQuery);
  const list = conversations.data ?? [];
  const current = list.find((c) => c.id === decodeURIComponent(route.section ?? "")) ?? (route.section ? undefined : list[0]);
  const [filter, setFilter] = useState("");
  const chat = useChat();
  const chosen = agents.find((a) => a.id === current?.agentId)?.id ?? agents[0]?.id ?? "";
  const names = Object.fromEntries(allAgents.map((a) => [a.id, agentName(a)]));
  const open = (id: string) => navigate("chat", encodeURIComponent(id));

  const start = useMutation<Conversation, ApiError, string>({
    mutationFn: (agentId) => runtimeApi.createConversation(agentId),
    onSuccess: (c) => {
      void client.invalidateQueries({ queryKey: runtimeKeys.conversations });
      open(c.id);
    },
  });
  const query = useDebounced(filter.trim(), 250);
  const found = useQuery({
    queryKey: [...runtimeKeys.conversations, "search", query],
    queryFn: () => runtimeApi.searchConversations(query),
    enabled: query.length >= SEARCH_FROM,
    placeholderData: keepPreviousData,
  });
  const snippets = new Map((query.length >= SEARCH_FROM ? (found.data ?? []) : []).map((h) => [h.conversation.id, h.snippet]));
  const shown = filter.trim() ? list.filter((c) => matches(filter, c.title ?? t("chat.untitled"), c.agentId && names[c.agentId], c.agentId) || snippets.has(c.id)) : list;
  useShortcutAction("new", () => chosen && !start.isPending && start.mutate(chosen));
  const { when, exact } = useDates();

  return (
    <div className="page page-wide page-chat">
      <header className="view-head">
        <h1>{t("chat.title")}</h1>
        <p className="muted">{t("chat.subtitle")}</p>
      </header>
      <div className="split">
        <aside className="list-pane">
          <div className="new-chat">
            <Button
              variant="primary"
              size="sm"
              icon={<Plus size={15} />}
              disabled={!chosen}
              busy={start.isPending}
              onClick={() => start.mutate(chosen)}
              title={chosen ? shortcutTitle(t("chat.newWith", { agent: names[chosen] }), "new") : undefined}
              data-testid="new-chat"
            >
              {t("chat.new")}
            </Button>
            {agents.length > 0 && (
              <Menu
                label={t("chat.chooseAgent")}
                icon={<ChevronDown size={16} />}
                testId="new-chat-menu"
                actions={agents.map((a) => ({
                  label: t("chat.newWith", { agent: agentName(a) }),
                  onSelect: () => start.mutate(a.id),
                  testId: `new-chat-with-${a.id}`,
                }))}
              />
            )}
          </div>
          {start.error && <Banner tone="danger">{errorText(t, start.error)}</Banner>}
          {list.length > 0 && <ListFilter value={filter} onChange={setFilter} label={t("chat.search")} shown={shown.length} total={list.length} testId="conversations-filter" />}
          {conversations.isPending && <Spinner />}
          <ul className="item-list" aria-label={t("chat.conversations")}>
            {shown.map((c) => (
              <ListItem
                key={c.id}
                active={c.id === current?.id}
                icon={c.forkedFrom ? <GitBranch size={15} /> : <MessageSquare size={15} />}
                title={c.title ?? t("chat.untitled")}
                sub={
                  <>
                    {(c.agentId && names[c.agentId]) ?? c.agentId ?? "—"}
                    {c.lastRun?.status === "interrupted" && <span className="badge badge-warning">{t("chat.interrupted")}</span>}
                    {" · "}
                    <time title={exact(c.lastMessageAt ?? c.createdAt)}>{when(c.lastMessageAt ?? c.createdAt)}</time>
                    {snippets.get(c.id) && (
                      <span className="conversation-hit" data-testid="conversation-hit">
                        {snippets.get(c.id)}
                      </span>
                    )}
                  </>
                }
                onSelect={() => open(c.id)}
                testId={`conversation-${c.peer}`}
              />
            ))}
          </ul>
        </aside>
        <div className="detail-pane">
          {current ? (
            <ChatThread
              key={current.id}
              conversation={current}
              names={names}
              chat={chat}
              forkedFromTitle={list.find((c) => c.id === current.forkedFrom)?.title ?? null}
              onOpen={open}
              onGone={() => navigate("chat")}
            />
          ) : (
            !conversations.isPending && (
              <EmptyState
                icon={<MessageSquare size={22} />}
                title={t("chat.empty.title")}
                body={agents.length ? t("chat.empty.body") : t("chat.empty.noAgents")}
              />
            )
          )}
        </div>
      </div>
    </div>
  );
}
