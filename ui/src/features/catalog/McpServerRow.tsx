// One MCP server in the list: its name and how it is reached, its state
// (a failure says why, with the program's last words), its switch, and
// Test, Edit and Delete. A test's outcome opens under the row.

import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { CirclePlay, Globe, Pencil, Terminal, Trash2 } from "lucide-react";

import { mcpApi, type ApiError, type McpServer, type McpTestResult } from "../../api";
import { errorText } from "../../app/errorText";
import { Button, IconButton } from "../../components/Button";
import { CopyId } from "../../components/CopyId";
import { Switch } from "../../components/Switch";
import { useUndo } from "../../components/UndoToast";
import { McpFailure, McpStatusBadge, McpTestPanel, McpToolList } from "./McpTestPanel";
import { transportSummary } from "./mcpDraft";
import { catalogKeys } from "./queries";

/** Refetches what a server's change touches: the servers, the tools, the agents. */
export function useMcpRefresh() {
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: catalogKeys.mcpServers });
    void client.invalidateQueries({ queryKey: catalogKeys.tools });
    void client.invalidateQueries({ queryKey: catalogKeys.agents });
    void client.invalidateQueries({ queryKey: ["tool-expansion"] });
  };
}

export function McpServerRow({ server, onEdit }: { server: McpServer; onEdit(): void }) {
  const { t } = useTranslation();
  const refresh = useMcpRefresh();
  const [result, setResult] = useState<McpTestResult | null>(null);
  const toggle = useMutation<McpServer, ApiError, boolean>({
    mutationFn: (enabled) => mcpApi.setEnabled(server.id, enabled),
    onSuccess: () => setResult(null),
    onSettled: refresh,
  });
  const test = useMutation<McpTestResult, ApiError>({
    mutationFn: () => mcpApi.test(server.id),
    onSuccess: setResult,
    onSettled: refresh,
  });
  const undo = useUndo();
  // Hidden at once; really deleted (and its tools taken from every agent)
  // when the Undo toast runs out.
  const remove = () =>
    undo.schedule({
      key: `mcp:${server.id}`,
      label: t("forms.deleted", { name: server.name }),
      commit: async () => {
        await mcpApi.remove(server.id);
        refresh();
      },
    });
  const Icon = server.transport.kind === "http" ? Globe : Terminal;
  const error = toggle.error ?? test.error;
  // The row's own failure panel, unless a test result already shows it.
  const failed = server.status.state === "failed" && !result;

  return (
    <li className={server.enabled ? "card mcp-row" : "card mcp-row mcp-row-off"} data-testid={`mcp-server-${server.id}`}>
      <div className="mcp-row-head">
        <span className="mcp-icon" aria-hidden="true">
          <Icon size={16} />
        </span>
        <div className="mcp-row-main">
          <span className="mcp-row-title">
            <strong>{server.name}</strong>
            <McpStatusBadge server={server} testing={test.isPending} />
            <span className="badge">{t(`mcp.kinds.${server.transport.kind}`)}</span>
          </span>
          <code className="mcp-target" title={transportSummary(server.transport)} data-testid="mcp-target">
            {transportSummary(server.transport)}
          </code>
        </div>
        <div className="mcp-row-actions">
          <CopyId id={server.id} testId={`mcp-copy-id-${server.id}`} />
          <Button
            size="sm"
            icon={<CirclePlay size={15} />}
            busy={test.isPending}
            disabled={!server.enabled}
            title={server.enabled ? t("mcp.testHint") : t("mcp.testOff")}
            onClick={() => test.mutate()}
            data-testid={`mcp-test-${server.id}`}
          >
            {t("mcp.test")}
          </Button>
          <IconButton label={t("mcp.edit", { name: server.name })} onClick={onEdit} data-testid={`mcp-edit-${server.id}`}>
            <Pencil size={15} />
          </IconButton>
          <IconButton label={t("mcp.delete", { name: server.name })} tone="danger" onClick={remove} data-testid={`mcp-delete-${server.id}`}>
            <Trash2 size={15} />
          </IconButton>
          <Switch
            checked={server.enabled}
            disabled={toggle.isPending}
            label={t("mcp.toggle", { name: server.name })}
            onChange={(on) => toggle.mutate(on)}
            testId={`mcp-enabled-${server.id}`}
          />
        </div>
      </div>
      {error && <p className="field-error">{errorText(t, error)}</p>}
      {failed && <McpFailure error={server.status.error} stderrTail={server.status.stderrTail} exitCode={server.status.exitCode} />}
      {result && <McpTestPanel result={result} onClose={() => setResult(null)} />}
      {!result && !failed && server.tools.length > 0 && (
        <details className="mcp-tools-details">
          <summary className="muted small">{t("mcp.toolsListed", { count: server.tools.length })}</summary>
          <McpToolList tools={server.tools} />
        </details>
      )}
    </li>
  );
}
