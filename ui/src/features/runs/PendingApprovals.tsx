// The app-wide stack of tool calls waiting for the person, for runs no view
// is showing: a swarm started from another view, a run started by the CLI,
// or one that waited across a restart. Shown over every view until decided.
// Each card says which run asks — the swarm or agent by name and when it
// started — since no view around it does; the run's id is one click away.

import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import type { Approval } from "../../api";
import { useDates } from "../../app/dates";
import { useNames } from "../../app/names";
import { CopyId } from "../../components/CopyId";
import { ApprovalCard } from "./ApprovalCard";
import { approvalsQuery, runDetailQuery } from "./queries";
import { useWatchedRuns } from "./watched";

export function PendingApprovals() {
  const { t } = useTranslation();
  const watched = useWatchedRuns();
  const names = useNames();
  const pending = (useQuery(approvalsQuery).data ?? []).filter((a) => !watched.has(a.runId));
  if (pending.length === 0) return null;
  return (
    <aside className="approval-stack" aria-label={t("approvals.waiting", { count: pending.length })} data-testid="pending-approvals">
      <p className="approval-stack-title">{t("approvals.waiting", { count: pending.length })}</p>
      {pending.slice(0, 3).map((approval) => (
        <ApprovalCard key={approval.id} approval={approval} agentName={names.agent(approval.agentId)} origin={<RunOrigin approval={approval} />} />
      ))}
    </aside>
  );
}

/** "Run of Research team, started 14:05": the top run the call belongs to
 * (a delegated agent's run is named by the run that started it). */
function RunOrigin({ approval }: { approval: Approval }) {
  const { t } = useTranslation();
  const names = useNames();
  const dates = useDates();
  const own = useQuery(runDetailQuery(approval.runId)).data?.run;
  const parentId = own?.parentRunId ?? null;
  const parent = useQuery({ ...runDetailQuery(parentId ?? ""), enabled: parentId !== null }).data?.run;
  const top = parentId ? parent : own;
  if (!top) return null;
  const name = top.kind === "swarm" ? names.swarm(top.targetId) : names.agent(top.targetId);
  return (
    <p className="run-origin small muted" data-testid="approval-origin">
      <span title={dates.exact(top.startedAt)}>{t("names.run.ofStarted", { name, when: dates.when(top.startedAt) })}</span>
      <CopyId id={top.id} testId="copy-run-id" />
    </p>
  );
}
