// The app-wide stack of tool calls waiting for the person, for runs no view
// is showing: a swarm started from another view, a run started by the CLI,
// or one that waited across a restart. Shown over every view until decided.

import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { useAgentName } from "../catalog/agentName";
import { agentsQuery } from "../catalog/queries";
import { ApprovalCard } from "./ApprovalCard";
import { approvalsQuery } from "./queries";
import { useWatchedRuns } from "./watched";

export function PendingApprovals() {
  const { t } = useTranslation();
  const watched = useWatchedRuns();
  const agentName = useAgentName();
  const agents = useQuery(agentsQuery).data ?? [];
  const nameOf = (id: string) => {
    const agent = agents.find((a) => a.id === id);
    return agent ? agentName(agent) : id;
  };
  const pending = (useQuery(approvalsQuery).data ?? []).filter((a) => !watched.has(a.runId));
  if (pending.length === 0) return null;
  return (
    <aside className="approval-stack" aria-label={t("approvals.waiting", { count: pending.length })} data-testid="pending-approvals">
      <p className="approval-stack-title">{t("approvals.waiting", { count: pending.length })}</p>
      {pending.slice(0, 3).map((approval) => (
        <ApprovalCard key={approval.id} approval={approval} agentName={nameOf(approval.agentId)} />
      ))}
    </aside>
  );
}
