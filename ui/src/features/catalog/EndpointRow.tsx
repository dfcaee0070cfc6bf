// One endpoint in the list: its method and URL, the tool agents call it by,
// how many secret headers it carries (by count — their values never come
// back), its switch, Edit and Delete (undoable for a few seconds).

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { KeyRound, Pencil, Trash2, Webhook } from "lucide-react";

import { endpointsApi, type ApiError, type Endpoint } from "../../api";
import { errorText } from "../../app/errorText";
import { IconButton } from "../../components/Button";
import { CopyId } from "../../components/CopyId";
import { Switch } from "../../components/Switch";
import { useUndo } from "../../components/UndoToast";
import { catalogKeys } from "./queries";

/** Refetches what an endpoint's change touches: the endpoints, the tools, the agents. */
export function useEndpointRefresh() {
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: catalogKeys.endpoints });
    void client.invalidateQueries({ queryKey: catalogKeys.tools });
    void client.invalidateQueries({ queryKey: catalogKeys.agents });
    void client.invalidateQueries({ queryKey: ["tool-expansion"] });
  };
}

export function EndpointRow({ endpoint, onEdit }: { endpoint: Endpoint; onEdit(): void }) {
  const { t } = useTranslation();
  const refresh = useEndpointRefresh();
  const toggle = useMutation<Endpoint, ApiError, boolean>({
    mutationFn: (enabled) => endpointsApi.setEnabled(endpoint.id, enabled),
    onSettled: refresh,
  });
  const undo = useUndo();
  // Hidden at once; really deleted (with its tool and sealed secrets) when
  // the Undo toast runs out.
  const remove = () =>
    undo.schedule({
      key: `endpoint:${endpoint.id}`,
      label: t("forms.deleted", { name: endpoint.name }),
      commit: async () => {
        await endpointsApi.remove(endpoint.id);
        refresh();
      },
    });
  const secrets = endpoint.secretHeaderNames.length;

  return (
    <li className={endpoint.enabled ? "card mcp-row" : "card mcp-row mcp-row-off"} data-testid={`endpoint-${endpoint.id}`}>
      <div className="mcp-row-head">
        <span className="mcp-icon" aria-hidden="true">
          <Webhook size={16} />
        </span>
        <div className="mcp-row-main">
          <span className="mcp-row-title">
            <strong>{endpoint.name}</strong>
            <span className={`endpoint-method endpoint-method-${endpoint.method.toLowerCase()}`}>{endpoint.method}</span>
            {!endpoint.enabled && <span className="mcp-status mcp-status-off">{t("endpoints.off")}</span>}
            {secrets > 0 && (
              <span className="badge" title={endpoint.secretHeaderNames.join(", ")}>
                <KeyRound size={11} aria-hidden="true" /> {t("endpoints.secretCount", { count: secrets })}
              </span>
            )}
          </span>
          <code className="mcp-target" title={endpoint.url} data-testid="endpoint-target">
            {endpoint.url}
          </code>
          <span className="muted small endpoint-description">
            <code className="endpoint-tool" data-testid="endpoint-tool">
              {endpoint.tool}
            </code>{" "}
            · {endpoint.description}
          </span>
        </div>
        <div className="mcp-row-actions">
          <CopyId id={endpoint.tool} testId={`endpoint-copy-tool-${endpoint.id}`} />
          <IconButton label={t("endpoints.edit", { name: endpoint.name })} onClick={onEdit} data-testid={`endpoint-edit-${endpoint.id}`}>
            <Pencil size={15} />
          </IconButton>
          <IconButton label={t("endpoints.delete", { name: endpoint.name })} tone="danger" onClick={remove} data-testid={`endpoint-delete-${endpoint.id}`}>
            <Trash2 size={15} />
          </IconButton>
          <Switch
            checked={endpoint.enabled}
            disabled={toggle.isPending}
            label={t("endpoints.toggle", { name: endpoint.name })}
            onChange={(on) => toggle.mutate(on)}
            testId={`endpoint-enabled-${endpoint.id}`}
          />
        </div>
      </div>
      {toggle.error && <p className="field-error">{errorText(t, toggle.error)}</p>}
    </li>
  );
}
