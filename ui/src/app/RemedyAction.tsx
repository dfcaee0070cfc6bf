// The one-click fix an error carries (issue 37, item 4), as a button (or a
// select and a button, for choosing the default model) next to the error's
// sentence: wherever the window shows an error, it shows this after it.

import { useState } from "react";
import { createPortal } from "react-dom";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { ImagePlus, KeyRound, Plug, Power, RotateCcw, SquareArrowOutUpRight } from "lucide-react";

import { api, runtimeApi, type ApiError } from "../api";
import { Button } from "../components/Button";
import { enabledModelsQuery } from "../features/catalog/queries";
import { ProviderDialog } from "../features/providers/ProviderDialog";
import { providersQuery } from "../features/providers/queries";
import { remedyFor } from "./remedies";
import { useRoute } from "./route";

interface RemedyActionProps {
  error: ApiError;
  /** Runs the failed action again (a "retry" remedy shows only with it). */
  onRetry?(): void;
  /** Opens "connect a model" (default: Settings → Providers). */
  onConnect?(): void;
}

export function RemedyAction({ error, onRetry, onConnect }: RemedyActionProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [, navigate] = useRoute();
  const remedy = remedyFor(error);
  const providers = useQuery({ ...providersQuery, enabled: remedy.kind === "providerKey" || remedy.kind === "enableProvider" }).data;
  const models = useQuery({ ...enabledModelsQuery, enabled: remedy.kind === "chooseDefault" }).data ?? [];
  const [editing, setEditing] = useState(false);
  const [chosen, setChosen] = useState("");
  const refresh = () => {
    void client.invalidateQueries();
  };
  const fix = useMutation<unknown, ApiError, () => Promise<unknown>>({
    mutationFn: (work) => work(),
    onSuccess: () => {
      refresh();
      onRetry?.();
    },
  });
  const providerName = (id: string) => providers?.find((p) => p.id === id)?.name ?? id;

  switch (remedy.kind) {
    case "providerKey": {
      const provider = providers?.find((p) => p.id === remedy.providerId);
      return (
        <>
          <Button size="sm" variant="primary" icon={<KeyRound size={14} />} onClick={() => setEditing(true)} disabled={!provider} data-testid="remedy-provider-key">
            {t("remedies.providerKey", { name: providerName(remedy.providerId) })}
          </Button>
          {/* Out of the banner: the dialog takes none of its colours. */}
          {editing &&
            provider &&
            createPortal(
              <ProviderDialog
                provider={provider}
                focusKey
                onClose={() => {
                  setEditing(false);
                  refresh();
                }}
              />,
              document.body,
            )}
        </>
      );
    }
    case "modelImages":
      return (
        <Button size="sm" variant="primary" icon={<ImagePlus size={14} />} busy={fix.isPending} onClick={() => fix.mutate(() => api.setModelImages(remedy.modelId, true))} data-testid="remedy-model-images">
          {t("remedies.modelImages", { model: remedy.modelId })}
        </Button>
      );
    case "chooseDefault": {
      const pick = chosen || models[0]?.id || "";
      return (
        <span className="remedy-default">
          <select className="input input-sm" aria-label={t("remedies.defaultModel")} value={pick} onChange={(e) => setChosen(e.target.value)} data-testid="remedy-default-model">
            {models.map((m) => (
              <option key={m.id} value={m.id}>
                {m.label ?? m.id}
              </option>
            ))}
          </select>
          <Button size="sm" variant="primary" disabled={!pick} busy={fix.isPending} onClick={() => fix.mutate(() => runtimeApi.setDefaultModel(pick))} data-testid="remedy-use-default">
            {t("remedies.useDefault")}
          </Button>
        </span>
      );
    }
    case "connectModel":
      return (
        <Button size="sm" variant="primary" icon={<Plug size={14} />} onClick={() => (onConnect ? onConnect() : navigate("settings", "providers"))} data-testid="remedy-connect">
          {t("remedies.connectModel")}
        </Button>
      );
    case "enableProvider":
      return (
        <Button size="sm" variant="primary" icon={<Power size={14} />} busy={fix.isPending} onClick={() => fix.mutate(() => api.setProviderEnabled(remedy.providerId, true))} data-testid="remedy-enable-provider">
          {t("remedies.enableProvider", { name: providerName(remedy.providerId) })}
        </Button>
      );
    case "enableModel":
      return (
        <Button size="sm" variant="primary" icon={<Power size={14} />} busy={fix.isPending} onClick={() => fix.mutate(() => api.setModelEnabled(remedy.modelId, true))} data-testid="remedy-enable-model">
          {t("remedies.enableModel", { model: remedy.modelId })}
        </Button>
      );
    case "retry":
      return onRetry ? (
        <Button size="sm" icon={<RotateCcw size={14} />} onClick={onRetry} data-testid="remedy-retry">
          {t("remedies.retry")}
        </Button>
      ) : null;
    case "open":
      return (
        <Button size="sm" icon={<SquareArrowOutUpRight size={14} />} onClick={() => navigate(remedy.view, remedy.section)} data-testid="remedy-open">
          {t("remedies.open", { where: t(`nav.${remedy.view}`) })}
        </Button>
      );
    case "editField":
    case "none":
      return null;
  }
}
