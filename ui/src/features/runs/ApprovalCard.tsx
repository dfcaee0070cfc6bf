// One tool call that waits for the person: what the agent wants to do — the
// command line it will run and where, the file or address it touches (see
// callSummary.ts) — with the arguments as the model wrote them behind
// "Raw" (open at once when there is no summary), and the three answers — two where
// the program would run unconfined (Windows): the card says what it could
// reach, and each such call is decided on its own. The same
// card sits inline in a run panel or a chat, and in the app-wide stack for
// runs nobody is looking at.

import { Fragment, type ReactNode } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Check, CheckCheck, ShieldAlert, TriangleAlert, X } from "lucide-react";

import { runtimeApi, type ApiError, type Approval, type Decision } from "../../api";
import { errorText } from "../../app/errorText";
import { useNames } from "../../app/names";
import { Button } from "../../components/Button";
import { callSummary } from "./callSummary";
import { runtimeKeys } from "./queries";
import { shownArguments, shownText, type Piece } from "./shownArguments";
import { toolTitle } from "../../app/toolTitle";

export function ApprovalCard({ approval, agentName, origin }: { approval: Approval; agentName?: string; origin?: ReactNode }) {
  const { t } = useTranslation();
  const names = useNames();
  const client = useQueryClient();
  const decide = useMutation<Approval, ApiError, Decision>({
    mutationFn: (decision) => runtimeApi.decideApproval(approval.id, decision),
    onSettled: () => void client.invalidateQueries({ queryKey: runtimeKeys.approvals }),
  });
  const who = agentName ?? names.agent(approval.agentId);
  const summary = callSummary(approval.tool, approval.arguments);
  return (
    <div className="approval-card" role="group" aria-label={t("approvals.asks", { agent: who, tool: toolTitle(t, approval.tool) })} data-testid="approval-card" data-tool={approval.tool}>
      <header>
        <ShieldAlert size={15} aria-hidden="true" />
        <strong title={approval.tool}>{t("approvals.asks", { agent: who, tool: toolTitle(t, approval.tool) })}</strong>
        <span className={`risk-badge risk-${approval.risk}`}>{t(`permissions.risk.${approval.risk}`)}</span>
      </header>
      {origin}
      {summary && (
        <div className="approval-summary">
          <pre className="mono approval-command" data-testid="approval-command">
            {summary.kind === "run" || summary.kind === "commit" ? "$ " : ""}
            <Shown pieces={shownText(summary.line)} />
          </pre>
          <p className="muted small" data-testid="approval-where">
            {t(`approvals.summary.${summary.kind}`, { agent: who, count: summary.size ?? 0 })}
          </p>
        </div>
      )}
      <details className="approval-raw" open={!summary} data-testid="approval-raw">
        <summary>{t("approvals.raw")}</summary>
        <pre className="mono approval-args" data-testid="approval-arguments">
          <Shown pieces={shownArguments(approval.arguments)} />
        </pre>
      </details>
      <p className="muted small approval-length" data-testid="approval-length">
        {t("approvals.length", { count: [...approval.arguments].length })}
      </p>
      {approval.unconfined && (
        <p className="approval-unconfined" data-testid="approval-unconfined" title={approval.unconfined}>
          <TriangleAlert size={14} aria-hidden="true" />
          <span>{t("approvals.unconfined")}</span>
        </p>
      )}
      {decide.error && <p className="field-error">{errorText(t, decide.error)}</p>}
      <div className="approval-actions">
        <Button size="sm" variant="primary" icon={<Check size={13} />} busy={decide.isPending && decide.variables === "allow_once"} onClick={() => decide.mutate("allow_once")} data-testid="approval-allow-once">
          {t("approvals.allowOnce")}
        </Button>
        {!approval.unconfined && (
          <Button size="sm" variant="secondary" icon={<CheckCheck size={13} />} busy={decide.isPending && decide.variables === "allow_run"} onClick={() => decide.mutate("allow_run")} data-testid="approval-allow-run">
            {t("approvals.allowRun")}
          </Button>
        )}
        <Button size="sm" variant="danger" icon={<X size={13} />} busy={decide.isPending && decide.variables === "deny"} onClick={() => decide.mutate("deny")} data-testid="approval-deny">
          {t("approvals.deny")}
        </Button>
      </div>
    </div>
  );
}

/** Text as the card shows it: long blank runs as a marked count. */
function Shown({ pieces }: { pieces: Piece[] }) {
  const { t } = useTranslation();
  return pieces.map((piece, i) =>
    typeof piece === "string" ? (
      <Fragment key={i}>{piece}</Fragment>
    ) : (
      <mark key={i} className="approval-blank" data-testid="approval-blank">
        {t("approvals.blank", { count: piece.count })}
      </mark>
    ),
  );
}
