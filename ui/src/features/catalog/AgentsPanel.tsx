// Agents: the list on the left — the person's own agents, then the catalog
// specialists that are on, then those that are off, with a filter box — and
// the selected one (or a new one) on the right.

import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Bot, Plus, Sparkles } from "lucide-react";

import type { Agent } from "../../api";
import { shortcutTitle, useShortcutAction } from "../../app/shortcutsHooks";
import { Button } from "../../components/Button";
import { filterList, ListFilter } from "../../components/ListFilter";
import { ListItem } from "../../components/ListItem";
import { guardLeave } from "../../components/SaveBar";
import { Spinner } from "../../components/Spinner";
import { useUndo } from "../../components/UndoToast";
import { AgentEditor } from "./AgentEditor";
import { useAgentName } from "./agentName";
import { agentsQuery } from "./queries";

export type AgentGroup = "yours" | "specialistsOn" | "specialistsOff";
const GROUPS: AgentGroup[] = ["yours", "specialistsOn", "specialistsOff"];

/** Which group an agent is listed under. */
export function groupOf(agent: Pick<Agent, "persona" | "enabled">): AgentGroup {
  if (!agent.persona) return "yours";
  return agent.enabled ? "specialistsOn" : "specialistsOff";
}

export function AgentsPanel() {
  const { t } = useTranslation();
  const shownName = useAgentName();
  const agents = useQuery(agentsQuery);
  const [selected, setSelected] = useState<string | "new" | null>(null);
  const [filter, setFilter] = useState("");
  const undo = useUndo();
  const list = (agents.data ?? []).filter((a) => !undo.isHidden(`agent:${a.id}`));
  const current = selected === "new" ? undefined : list.find((a) => a.id === selected) ?? (selected === null ? list[0] : undefined);
  const mode = selected === "new" ? "new" : current ? "edit" : "none";
  const shown = filterList(list, filter, (a) => [shownName(a), a.name, a.id, a.description, ...a.toolPatterns]);

  const select = (id: string | "new") => {
    if (id === selected || (id === current?.id && mode === "edit")) return;
    guardLeave(() => setSelected(id));
  };
  useShortcutAction("new", () => select("new"), "catalog/agents");
  useShortcutAction("open", (id) => id && select(id), "catalog/agents");

  return (
    <div className="split">
      <aside className="list-pane">
        <Button
          variant="primary"
          icon={<Plus size={16} />}
          onClick={() => select("new")}
          title={shortcutTitle(t("agents.new"), "new")}
          data-testid="new-agent"
        >
          {t("agents.new")}
        </Button>
        {list.length > 0 && (
          <ListFilter value={filter} onChange={setFilter} label={t("forms.filter.agents")} shown={shown.length} total={list.length} testId="agents-filter" />
        )}
        {agents.isPending && <Spinner />}
        {filter && shown.length === 0 && <p className="muted small list-empty">{t("forms.filter.none")}</p>}
        {GROUPS.map((group) => {
          const members = shown.filter((a) => groupOf(a) === group);
          if (members.length === 0) return null;
          return (
            <section key={group} className="list-group" aria-labelledby={`agents-group-${group}`} data-testid={`agents-group-${group}`}>
              <h4 className="list-group-title" id={`agents-group-${group}`}>
                {t(`forms.agentGroups.${group}`)}
                <span className="list-group-count">{members.length}</span>
              </h4>
              <ul className="item-list" aria-labelledby={`agents-group-${group}`}>
                {members.map((agent) => (
                  <ListItem
                    key={agent.id}
                    active={agent.id === current?.id && mode === "edit"}
                    off={!agent.enabled}
                    icon={agent.persona ? <Sparkles size={15} /> : <Bot size={15} />}
                    title={shownName(agent)}
                    sub={agent.enabled ? t("agents.toolCount", { count: agent.tools.length }) : t("common.disabled")}
                    onSelect={() => select(agent.id)}
                    testId={`agent-${agent.id}`}
                  />
                ))}
              </ul>
            </section>
          );
        })}
      </aside>
      <div className="detail-pane">
        {mode === "new" && <AgentEditor key="new" onSaved={(a) => setSelected(a.id)} onDeleted={() => setSelected(null)} />}
        {mode === "edit" && current && (
          <AgentEditor
            key={current.id}
            agent={current}
            onSaved={(a) => setSelected(a.id)}
            onDeleted={() => setSelected(null)}
            onRestored={(id) => setSelected(id)}
          />
        )}
      </div>
    </div>
  );
}
