// One swarm's page. Swarms run first: a saved swarm that can run opens on
// its Run tab (the input, Run, and the graph lighting up as it works); the
// builder is the other tab. The draft lives here, so switching tabs never
// loses an edit, and the Run tab can say that runs use the saved swarm.

import { useMemo, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { ReactFlowProvider } from "@xyflow/react";
import { Hammer, Play } from "lucide-react";

import { runtimeApi, type ActivationPlan, type ApiError, type Swarm } from "../../api";
import { errorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { CopyId } from "../../components/CopyId";
import { Switch } from "../../components/Switch";
import { Tabs } from "../../components/Tabs";
import { useAgentName } from "../catalog/agentName";
import { agentsQuery } from "../catalog/queries";
import { runtimeKeys } from "../runs/queries";
import { useRun } from "../runs/useRun";
import { EMPTY_DRAFT, draftFrom, problemsOf, sameDraft, type SwarmDraft } from "./draft";
import { PendingActivation, pendingKey } from "./PendingActivation";
import { SwarmBuilder } from "./SwarmBuilder";
import { SwarmRunSection } from "./SwarmRunSection";

type TabId = "run" | "build";

export function SwarmDetail({ swarm, onSelect }: { swarm?: Swarm; onSelect(id: string | null): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const run = useRun();
  const agentName = useAgentName();
  const agentsList = useQuery(agentsQuery);
  const names = useMemo(() => Object.fromEntries((agentsList.data ?? []).map((a) => [a.id, agentName(a)])), [agentsList.data, agentName]);
  const known = useMemo(() => (agentsList.data ? new Set(agentsList.data.map((a) => a.id)) : null), [agentsList.data]);

  const saved = useMemo(() => (swarm ? draftFrom(swarm) : EMPTY_DRAFT), [swarm]);
  const [draft, setDraft] = useState<SwarmDraft>(saved);
  // The saved swarm changed (a save, or another process): an untouched draft follows it.
  const [base, setBase] = useState(saved);
  if (base !== saved) {
    setBase(saved);
    if (sameDraft(draft, base)) setDraft(saved);
  }
  const dirty = swarm ? !sameDraft(draft, saved) : true;
  const savedProblems = swarm ? problemsOf(saved, known).filter((p) => p.field === "members") : [];
  const [chosen, setChosen] = useState<TabId | null>(null);
  const tab: TabId = !swarm ? "build" : (chosen ?? (savedProblems.length === 0 ? "run" : "build"));

  const toggle = useMutation<Swarm, ApiError, boolean>({
    mutationFn: (enabled) => runtimeApi.setSwarmEnabled(swarm?.id ?? "", enabled),
    onSettled: () => void client.invalidateQueries({ queryKey: runtimeKeys.swarms }),
  });

  return (
    <div className="swarm-detail">
      <header className="swarm-head">
        <div className="swarm-title">
          <h2 title={swarm ? t("swarms.idTooltip", { id: swarm.id }) : undefined} data-testid="swarm-title">
            {swarm ? swarm.name : t("swarms.newTitle")}
          </h2>
          {swarm && (
            <p className="muted small">
              {t("swarms.summary", { strategy: t(`swarms.strategies.${swarm.strategy}`), count: swarm.members.length })}
              {swarm.description && ` · ${swarm.description}`}
            </p>
          )}
        </div>
        {swarm && (
          <div className="swarm-head-actions">
            <CopyId id={swarm.id} testId="copy-swarm-id" />
            <Switch
              checked={swarm.enabled}
              disabled={toggle.isPending}
              label={t("swarms.toggle", { name: swarm.name })}
              testId="swarm-enabled"
              onChange={(enabled) => toggle.mutate(enabled)}
            />
          </div>
        )}
      </header>
      {toggle.error && <Banner tone="danger" testId="swarm-toggle-error">{errorText(t, toggle.error)}</Banner>}
      {swarm && <PendingActivation swarm={swarm} names={names} />}
      {swarm && (
        <Tabs<TabId>
          label={swarm.name}
          active={tab}
          onChange={setChosen}
          tabs={[
            { id: "run", label: t("swarms.tabs.run"), icon: Play },
            { id: "build", label: dirty ? t("swarms.tabs.buildUnsaved") : t("swarms.tabs.build"), icon: Hammer },
          ]}
        />
      )}
      {swarm && tab === "run" && (
        <ReactFlowProvider>
          <SwarmRunSection
            swarm={swarm}
            saved={saved}
            problems={savedProblems}
            run={run}
            names={names}
            unsaved={dirty}
            onEdit={() => setChosen("build")}
          />
        </ReactFlowProvider>
      )}
      {tab === "build" && (
        <ReactFlowProvider>
          <SwarmBuilder
            swarm={swarm}
            draft={draft}
            setDraft={setDraft}
            dirty={dirty}
            names={names}
            onSaved={(result) => {
              client.setQueryData<ActivationPlan>(pendingKey(result.swarm.members.map((m) => m.agentId)), result.pendingActivation);
              setDraft(draftFrom(result.swarm));
              if (!swarm) onSelect(result.swarm.id);
            }}
            onDeleted={() => onSelect(null)}
          />
        </ReactFlowProvider>
      )}
    </div>
  );
}
