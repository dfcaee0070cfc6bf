// A past run, read from its record: every step as it was stored, the runs
// it started, and how it ended.

import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { toApiError, type RunStep } from "../../api";
import { errorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Dialog } from "../../components/Dialog";
import { Markdown } from "../../components/Markdown";
import { Spinner } from "../../components/Spinner";
import { runDetailQuery } from "./queries";
import { PhaseBadge } from "./RunPanel";

export function RunDetailDialog({ id, names, onClose }: { id: string; names: Record<string, string>; onClose(): void }) {
  const { t } = useTranslation();
  const detail = useQuery(runDetailQuery(id));
  const run = detail.data?.run;
  return (
    <Dialog title={t("runs.detail.title")} onClose={onClose} closeLabel={t("common.close")} width={720} testId="run-detail">
      {detail.isPending && <Spinner />}
      {run && (
        <div className="run-detail">
          <p className="run-detail-head">
            <PhaseBadge phase={run.status} />
            <span className="mono small muted">{run.id}</span>
          </p>
          <p className="small">
            <strong>{t("runs.detail.input")}</strong> {run.input}
          </p>
          {run.error && <Banner tone="danger">{errorText(t, toApiError(run.error))}</Banner>}
          <ol className="step-list">
            {detail.data?.steps.map((step) => (
              <li key={step.seq} className={`step step-${step.kind}`}>
                <span className="step-who">{step.agentId ? names[step.agentId] ?? step.agentId : "—"}</span>
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
                    <PhaseBadge phase={child.status} /> {names[child.targetId] ?? child.targetId}
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
        <span className={ok ? "mono" : "mono tool-failed-mark"}>{String(content?.name ?? "")}</span>{" "}
        <span className="muted">{String(content?.output ?? "").slice(0, 400)}</span>
      </span>
    );
  }
  if (step.kind === "error") {
    return <span className="step-body tool-failed-mark">{String(content?.message ?? "")}</span>;
  }
  return <span className="step-body muted">{step.kind}</span>;
}
