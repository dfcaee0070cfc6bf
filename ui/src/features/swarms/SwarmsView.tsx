import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { ReactFlowProvider } from "@xyflow/react";
import { Network, Plus } from "lucide-react";

import type { ActivationPlan, Swarm } from "../../api";
import { useRoute } from "../../app/route";
import { Button } from "../../components/Button";
import { ListItem } from "../../components/ListItem";
import { EmptyState } from "../../components/EmptyState";
import { Spinner } from "../../components/Spinner";
import { useAgentName } from "../catalog/agentName";
import { agentsQuery } from "../catalog/queries";
import { swarmsQuery } from "../runs/queries";
import type { MemberStatus } from "../runs/runState";
import { useRun } from "../runs/useRun";
import { SwarmBuilder } from "./SwarmBuilder";
import { SwarmRunSection } from "./SwarmRunSection";

/** Swarms: the list on the left; the builder and the run on the right. */
export function SwarmsView() {
  const { t } = useTranslation();
  const [route, navigate] = useRoute();
  const swarms = useQuery(swarmsQuery);
  const list = swarms.data ?? [];
  const selected = route.section;
  const current = selected === "new" ? undefined : list.find((s) => s.id === selected) ?? (selected === null ? list[0] : undefined);
  const mode = selected === "new" ? "new" : current ? "edit" : "none";
  const strategyLabel = (s: Swarm) => t(`swarms.strategies.${s.strategy}`);

  return (
    <div className="page page-wide">
      <header className="view-head">
        <h1>{t("swarms.title")}</h1>
        <p className="muted">{t("swarms.subtitle")}</p>
      </header>
      <div className="split">
        <aside className="list-pane">
          <Button variant="primary" icon={<Plus size={16} />} onClick={() => navigate("swarms", "new")} data-testid="new-swarm">
            {t("swarms.new")}
          </Button>
          {swarms.isPending && <Spinner />}
          <ul className="item-list" aria-label={t("swarms.title")}>
            {list.map((swarm) => (
              <ListItem
                key={swarm.id}
                active={swarm.id === current?.id && mode === "edit"}
                off={!swarm.enabled}
                icon={<Network size={15} />}
                title={swarm.name}
                sub={
                  swarm.enabled
                    ? t("swarms.summary", { strategy: strategyLabel(swarm), count: swarm.members.length })
                    : t("common.disabled")
                }
                onSelect={() => navigate("swarms", swarm.id)}
                testId={`swarm-${swarm.id}`}
              />
            ))}
          </ul>
        </aside>
        <div className="detail-pane">
          {mode === "none" && !swarms.isPending && (
            <EmptyState
              icon={<Network size={22} />}
              title={t("swarms.empty.title")}
              body={t("swarms.empty.body")}
              action={
                <Button variant="primary" icon={<Plus size={16} />} onClick={() => navigate("swarms", "new")}>
                  {t("swarms.new")}
                </Button>
              }
            />
          )}
          {mode === "new" && <SwarmDetail key="new" onSelect={(id) => navigate("swarms", id)} />}
          {mode === "edit" && current && <SwarmDetail key={current.id} swarm={current} onSelect={(id) => navigate("swarms", id)} />}
        </div>
      </div>
    </div>
  );
}

function SwarmDetail({ swarm, onSelect }: { swarm?: Swarm; onSelect(id: string | null): void }) {
  const run = useRun();
  const agentName = useAgentName();
  const agents = useQuery(agentsQuery).data ?? [];
  const names = Object.fromEntries(agents.map((a) => [a.id, agentName(a)]));
  const [pending, setPending] = useState<ActivationPlan | null>(() => (swarm ? takePendingAfterCreate(swarm.id) : null));
  const [unsaved, setUnsaved] = useState(false);
  const statuses: Record<string, MemberStatus> = Object.fromEntries(run.view.members.map((m) => [m.agentId, m.status]));

  return (
    <div className="swarm-detail">
      <ReactFlowProvider>
        <SwarmBuilder
          swarm={swarm}
          pending={pending}
          statuses={statuses}
          onSaved={(saved) => {
            setPending(saved.pendingActivation);
            if (!swarm) {
              pendingAfterCreate.set(saved.swarm.id, saved.pendingActivation);
              onSelect(saved.swarm.id);
            }
          }}
          onActivated={(saved) => setPending(saved.pendingActivation)}
          onDeleted={() => onSelect(null)}
          onDirtyChange={setUnsaved}
        />
      </ReactFlowProvider>
      {swarm && <SwarmRunSection swarm={swarm} run={run} names={names} unsaved={unsaved} />}
    </div>
  );
}

/** A new swarm's pending activation, handed to its detail once it is selected. */
const pendingAfterCreate = new Map<string, ActivationPlan>();

function takePendingAfterCreate(id: string): ActivationPlan | null {
  const plan = pendingAfterCreate.get(id) ?? null;
  pendingAfterCreate.delete(id);
  return plan;
}
