// One tool call as a run shows it: the tool, how it went (running, failed,
// denied by the permission gate), its arguments and its output on demand —
// or, while the call waits for the person, the approval card in its place.
// Shared by the run panel's lanes and the chat.

import { useTranslation } from "react-i18next";
import { Wrench } from "lucide-react";

import { useNames } from "../../app/names";
import { Spinner } from "../../components/Spinner";
import { ApprovalCard } from "./ApprovalCard";
import type { ToolEntry } from "./runState";
import { toolTitle } from "../../app/toolTitle";

export function ToolEntryView({ entry, agentName }: { entry: ToolEntry; agentName: string }) {
  const { t } = useTranslation();
  const names = useNames();
  if (entry.approval?.status === "pending" && entry.ok === undefined) {
    return <ApprovalCard approval={entry.approval} agentName={agentName} />;
  }
  const target = delegateTarget(entry.name, entry.arguments);
  const state = entry.ok === undefined ? "running" : entry.ok ? "ok" : entry.denied ? "denied" : "failed";
  return (
    <details className={entry.ok === false ? "tool-entry tool-failed" : "tool-entry"} data-testid="tool-entry" data-tool={entry.name} data-state={state}>
      <summary>
        <Wrench size={12} aria-hidden="true" />
        <span title={entry.name}>{toolTitle(t, entry.name)}</span>
        {target && <span className="muted">{t("runs.delegatedTo", { agent: names.agent(target) })}</span>}
        {entry.ok === undefined && <Spinner size={10} />}
        {entry.ok === false && (
          <span className="tool-failed-mark">{entry.denied ? t("runs.toolDenied") : t("runs.toolFailed")}</span>
        )}
      </summary>
      <pre className="mono">{entry.arguments}</pre>
      {entry.output !== undefined && (
        <pre className="mono tool-output" data-testid="tool-output">
          {entry.output}
        </pre>
      )}
    </details>
  );
}

function delegateTarget(name: string, args: string): string | null {
  if (name !== "delegate_task") return null;
  try {
    const parsed = JSON.parse(args) as { agent_id?: unknown };
    return typeof parsed.agent_id === "string" ? parsed.agent_id : null;
  } catch {
    return null;
  }
}
