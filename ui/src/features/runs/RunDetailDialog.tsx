// A past run, read from its record: every step as it was stored, the runs
// it started, and how it ended.

import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { toApiError, type RunStep } from "../../api";
import { useDates } from "../../app/dates";
import { errorText } from "../../app/errorText";
import { useNames } from "../../app/names";
import { Banner } from "../../components/Banner";
import { CopyId } from "../../components/CopyId";
import { Dialog } from "../../components/Dialog";
import { Markdown } from "../../components/Markdown";
import { ResultActions } from "./ResultActions";
import { Spinner } from "../../components/Spinner";
import { runDetailQuery } from "./queries";
import { PhaseBadge } from "./RunPanel";
import { toolTitle } from "../../app/toolTitle";

export function RunDetailDialog({ id, names, onClose }: { id: string; names: Record<string, string>; onClose(): void }) {
  const { t } = useTranslation();
  const detail = useQuery(runDetailQuery(id));
  const run = detail.data?.run;
  const known = useNames();
  const dates = useDates();
  const agent = (agentId: string) => names[agentId] ?? known.agent(agentId);
  return (
    <Dialog title={t("runs.detail.title")} onClose={onClose} closeLabel={t("common.close")} width={720} testId="run-detail">
      {detail.isPending && <Spinner />}
      {run && (
        <div className="run-detail">
          <p className="run-detail-head">
            <PhaseBadge phase={run.status} />
            <span className="run-title" data-testid="run-detail-title">
              <strong>{run.kind === "swarm" ? known.swarm(run.targetId) : agent(run.targetId)}</strong>
              <span className="small muted" title={dates.exact(run.startedAt)}>
                {t("names.run.started", { when: dates.when(run.startedAt) })}
              </span>
              <CopyId id={run.id} testId="copy-run-id" />
            </span>
          </p>
          <p className="small">
            <strong>{t("runs.detail.input")}</strong> {run.input}
          </p>
          {run.error && <Banner tone="danger">{errorText(t, toApiError(run.error))}</Banner>}
          <ol className="step-list">
            {detail.data?.steps.map((step) => (
              <li key={step.seq} className={`step step-${step.kind}`}>
                <span className="step-who">{step.agentId ? agent(step.agentId) : "—"}</span>
                <StepBody step={step} />
              </li>
            ))}
          </ol>
          {(detail.data?.children.length ?? 0) > 0 && (
            <>
              <h4>{t("runs.detail.children")}</h4>
              <ul className="child-runs">
                {detail.data?.children.map((child) => (
                  <li key={child.id}>
                    <PhaseBadge phase={child.status} /> {child.kind === "swarm" ? known.swarm(child.targetId) : agent(child.targetId)}
                    <span className="muted small"> · {child.input}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
          {run.output && (
            <div className="run-output">
              <h4>{t("runs.result")}</h4>
              <Markdown source={run.output} />
              {run.status === "completed" && (
                <ResultActions runId={run.id} output={run.output} title={run.kind === "swarm" ? known.swarm(run.targetId) : agent(run.targetId)} />
              )}
            </div>
          )}
        </div>
      )}
    </Dialog>
  );
}

function StepBody({ step }: { step: RunStep }) {
  const { t } = useTranslation();
  const content = step.content as Record<string, unknown> | null;
  if (step.kind === "message") {
    const text = typeof content?.text === "string" ? content.text : "";
    const calls = Array.isArray(content?.toolCalls) ? content.toolCalls.length : 0;
    return (
      <span className="step-body">
        {text || <span className="muted">{t("runs.detail.callsTools", { count: calls })}</span>}
      </span>
    );
  }
  if (step.kind === "tool_result") {
    const ok = content?.ok === true;
    return (
      <span className="step-body">
        <span className={ok ? undefined : "tool-failed-mark"} title={String(content?.name ?? "")}>
          {toolTitle(t, String(content?.name ?? ""))}
        </span>{" "}
        <span className="muted">{String(content?.output ?? "").slice(0, 400)}</span>
      </span>
    );
  }
  if (step.kind === "error") {
    return <span className="step-body tool-failed-mark">{String(content?.message ?? "")}</span>;
  }
  if (step.kind === "member_output") {
    return <span className="step-body muted">{t("runs.detail.memberOutput")}</span>;
  }
  // A kind this build does not name: said plainly, the kind in the tooltip.
  return (
    <span className="step-body muted" title={step.kind}>
      {t("runs.detail.otherStep")}
    </span>
  );
}
