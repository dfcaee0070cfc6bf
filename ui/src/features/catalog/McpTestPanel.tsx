// What a server is doing and what a test found, shown the same way in the
// list and in the add/edit dialog: a state badge, the tools it listed by
// their catalog ids, or why it failed — the message, the end of what the
// program wrote on standard error, and its exit code.

import { useTranslation } from "react-i18next";
import { CircleCheck, CircleX, X } from "lucide-react";

import type { McpServer, McpTestResult, McpToolInfo } from "../../api";
import { IconButton } from "../../components/Button";
import { Spinner } from "../../components/Spinner";
import { statusTone } from "./mcpDraft";

/** Stopped · Starting… · Running, N tools · Failed: reason · Off. */
export function McpStatusBadge({ server, testing = false }: { server: Pick<McpServer, "status" | "tools">; testing?: boolean }) {
  const { t } = useTranslation();
  const tone = testing ? "busy" : statusTone(server);
  const state = testing ? "starting" : server.status.state;
  const text =
    state === "running"
      ? t("mcp.status.running", { count: server.tools.length })
      : state === "failed"
        ? t("mcp.status.failed", { reason: firstLine(server.status.error) ?? t("mcp.status.unknown") })
        : t(`mcp.status.${state}`);
  return (
    <span className={`mcp-status mcp-status-${tone}`} data-testid="mcp-status" data-state={state} title={server.status.error ?? undefined}>
      {tone === "busy" && <Spinner size={11} />}
      {text}
    </span>
  );
}

function firstLine(text: string | null | undefined): string | null {
  const line = text?.split("\n")[0]?.trim();
  if (!line) return null;
  return line.length > 90 ? `${line.slice(0, 89)}…` : line;
}

/** Why a start failed: the message, the stderr tail (folded) and the exit code. */
export function McpFailure({ error, stderrTail, exitCode }: { error: string | null; stderrTail: string | null; exitCode: number | null }) {
  const { t } = useTranslation();
  return (
    <div className="mcp-failure" role="alert" data-testid="mcp-failure">
      <p className="mcp-failure-message">
        <CircleX size={15} aria-hidden="true" />
        <span>{error ?? t("mcp.status.unknown")}</span>
      </p>
      {exitCode !== null && <p className="muted small" data-testid="mcp-exit-code">{t("mcp.exitCode", { code: exitCode })}</p>}
      {stderrTail && (
        <details className="mcp-stderr">
          <summary className="small">{t("mcp.stderr")}</summary>
          <pre data-testid="mcp-stderr">{stderrTail}</pre>
        </details>
      )}
    </div>
  );
}

/** The tools a server listed, by their catalog ids. */
export function McpToolList({ tools }: { tools: readonly McpToolInfo[] }) {
  const { t } = useTranslation();
  return (
    <ul className="mcp-tool-list" data-testid="mcp-tool-list">
      {tools.map((tool) => (
        <li key={tool.id} className={tool.active ? "mcp-tool" : "mcp-tool mcp-tool-off"} data-testid={`mcp-tool-${tool.id}`}>
          <span className="mcp-tool-name">
            <span className="mono mcp-tool-id">{tool.id}</span>
            {!tool.active && <span className="badge badge-off">{t("forms.offBadge.tool")}</span>}
          </span>
          {tool.description && <span className="mcp-tool-description">{tool.description}</span>}
        </li>
      ))}
    </ul>
  );
}

/** A test's outcome: the tools, or the failure. */
export function McpTestPanel({ result, onClose }: { result: McpTestResult; onClose?(): void }) {
  const { t } = useTranslation();
  return (
    <section className={result.ok ? "mcp-test mcp-test-ok" : "mcp-test mcp-test-bad"} data-testid="mcp-test-result" data-ok={result.ok}>
      <header className="mcp-test-head">
        {result.ok ? (
          <>
            <CircleCheck size={15} aria-hidden="true" className="mcp-ok-icon" />
            <strong>{t("mcp.testOk", { count: result.tools.length })}</strong>
          </>
        ) : (
          <strong>{t("mcp.testFailed")}</strong>
        )}
        {onClose && (
          <IconButton label={t("common.close")} onClick={onClose} className="mcp-test-close">
            <X size={14} />
          </IconButton>
        )}
      </header>
      {result.ok ? (
        result.tools.length > 0 ? <McpToolList tools={result.tools} /> : <p className="muted small">{t("mcp.noTools")}</p>
      ) : (
        <McpFailure error={result.error} stderrTail={result.stderrTail} exitCode={result.exitCode} />
      )}
    </section>
  );
}
