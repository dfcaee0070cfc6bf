import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { MessageSquare, Plus } from "lucide-react";

import { runtimeApi, type ApiError, type Conversation } from "../../api";
import { useDates } from "../../app/dates";
import { useRoute } from "../../app/route";
import { shortcutTitle, useShortcutAction } from "../../app/shortcutsHooks";
import { errorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { filterList, ListFilter } from "../../components/ListFilter";
import { ListItem } from "../../components/ListItem";
import { EmptyState } from "../../components/EmptyState";
import { Spinner } from "../../components/Spinner";
import { useAgentName } from "../catalog/agentName";
import { agentsQuery } from "../catalog/queries";
import { conversationsQuery, runtimeKeys } from "../runs/queries";
import { ChatThread } from "./ChatThread";

/** Chat: conversations on the left, the open one on the right. */
export function ChatView() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [route, navigate] = useRoute();
  const agentName = useAgentName();
  const agents = (useQuery(agentsQuery).data ?? []).filter((a) => a.enabled);
  const conversations = useQuery(conversationsQuery);
  const list = conversations.data ?? [];
  const current = list.find((c) => c.id === decodeURIComponent(route.section ?? "")) ?? (route.section ? undefined : list[0]);
  const [agentId, setAgentId] = useState("");
  const [filter, setFilter] = useState("");
  const chosen = agentId || agents[0]?.id || "";
  const names = Object.fromEntries((useQuery(agentsQuery).data ?? []).map((a) => [a.id, agentName(a)]));

  const start = useMutation<Conversation, ApiError>({
    mutationFn: () => runtimeApi.createConversation(chosen),
    onSuccess: (c) => {
      void client.invalidateQueries({ queryKey: runtimeKeys.conversations });
      navigate("chat", encodeURIComponent(c.id));
    },
  });
  const shown = filterList(list, filter, (c) => [c.title ?? t("chat.untitled"), c.agentId && names[c.agentId], c.agentId]);
  useShortcutAction("new", () => chosen && !start.isPending && start.mutate());
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
            <select className="input input-sm" aria-label={t("chat.agent")} value={chosen} onChange={(e) => setAgentId(e.target.value)} data-testid="chat-agent">
              {agents.map((a) => (
                <option key={a.id} value={a.id}>
                  {agentName(a)}
                </option>
              ))}
            </select>
            <Button variant="primary" size="sm" icon={<Plus size={15} />} disabled={!chosen} busy={start.isPending} onClick={() => start.mutate()} title={shortcutTitle(t("chat.new"), "new")} data-testid="new-chat">
              {t("chat.new")}
            </Button>
          </div>
          {start.error && <Banner tone="danger">{errorText(t, start.error)}</Banner>}
          {list.length > 0 && <ListFilter value={filter} onChange={setFilter} label={t("forms.filter.conversations")} shown={shown.length} total={list.length} testId="conversations-filter" />}
          {conversations.isPending && <Spinner />}
          <ul className="item-list" aria-label={t("chat.conversations")}>
            {shown.map((c) => (
              <ListItem
                key={c.id}
                active={c.id === current?.id}
                icon={<MessageSquare size={15} />}
                title={c.title ?? t("chat.untitled")}
                sub={
                  <>
                    {(c.agentId && names[c.agentId]) ?? c.agentId ?? "—"}
                    {c.lastRun?.status === "interrupted" && <span className="badge badge-warning">{t("chat.interrupted")}</span>}
                    {" · "}
                    <time title={exact(c.lastMessageAt ?? c.createdAt)}>{when(c.lastMessageAt ?? c.createdAt)}</time>
                  </>
                }
                onSelect={() => navigate("chat", encodeURIComponent(c.id))}
                testId={`conversation-${c.peer}`}
              />
            ))}
          </ul>
        </aside>
        <div className="detail-pane">
          {current ? (
            <ChatThread key={current.id} conversation={current} names={names} onGone={() => navigate("chat")} />
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
