import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Bot, Plus, Sparkles } from "lucide-react";

import { Button } from "../../components/Button";
import { ListItem } from "../../components/ListItem";
import { Spinner } from "../../components/Spinner";
import { AgentEditor } from "./AgentEditor";
import { useAgentName } from "./agentName";
import { agentsQuery } from "./queries";

/** Agents: the list on the left, the selected one (or a new one) on the right. */
export function AgentsPanel() {
  const { t } = useTranslation();
  const shownName = useAgentName();
  const agents = useQuery(agentsQuery);
  const [selected, setSelected] = useState<string | "new" | null>(null);
  const list = agents.data ?? [];
  const current = selected === "new" ? undefined : list.find((a) => a.id === selected) ?? (selected === null ? list[0] : undefined);
  const mode = selected === "new" ? "new" : current ? "edit" : "none";

  return (
    <div className="split">
      <aside className="list-pane">
        <Button variant="primary" icon={<Plus size={16} />} onClick={() => setSelected("new")} data-testid="new-agent">
          {t("agents.new")}
        </Button>
        {agents.isPending && <Spinner />}
        <ul className="item-list" aria-label={t("catalog.tabs.agents")}>
          {list.map((agent) => (
            <ListItem
              key={agent.id}
              active={agent.id === current?.id && mode === "edit"}
              off={!agent.enabled}
              icon={agent.persona ? <Sparkles size={15} /> : <Bot size={15} />}
              title={shownName(agent)}
              sub={agent.enabled ? t("agents.toolCount", { count: agent.tools.length }) : t("common.disabled")}
              onSelect={() => setSelected(agent.id)}
              testId={`agent-${agent.id}`}
            />
          ))}
        </ul>
      </aside>
      <div className="detail-pane">
        {mode === "new" && <AgentEditor key="new" onSaved={(a) => setSelected(a.id)} onDeleted={() => setSelected(null)} />}
        {mode === "edit" && current && (
          <AgentEditor key={`${current.id}-${current.updatedAt}`} agent={current} onSaved={(a) => setSelected(a.id)} onDeleted={() => setSelected(null)} />
        )}
      </div>
    </div>
  );
}
