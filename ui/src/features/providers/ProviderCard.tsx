import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { KeyRound, Pencil, Trash2 } from "lucide-react";

import { api, type ApiError, type Provider } from "../../api";
import { IconButton } from "../../components/Button";
import { Switch } from "../../components/Switch";
import { errorText } from "../../app/errorText";
import { KIND_MONOGRAMS } from "./kinds";
import { ModelList } from "./ModelList";
import { providerKeys } from "./queries";

interface ProviderCardProps {
  provider: Provider;
  onEdit(): void;
  onDelete(): void;
}

export function ProviderCard({ provider, onEdit, onDelete }: ProviderCardProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const toggle = useMutation<Provider, ApiError, boolean>({
    mutationFn: (enabled) => api.setProviderEnabled(provider.id, enabled),
    onSettled: () => {
      void client.invalidateQueries({ queryKey: providerKeys.providers });
      void client.invalidateQueries({ queryKey: providerKeys.models });
    },
  });

  return (
    <article
      className={provider.enabled ? "card provider-card" : "card provider-card provider-off"}
      data-testid={`provider-${provider.id}`}
      aria-label={provider.name}
    >
      <header className="provider-head">
        <span className={`kind-avatar kind-${provider.kind}`} aria-hidden="true">
          {KIND_MONOGRAMS[provider.kind]}
        </span>
        <div className="provider-title">
          <h3>{provider.name}</h3>
          <p>
            <span className="badge">{t(`providers.kinds.${provider.kind}`)}</span>
            <span className="muted small">{t("providers.modelCount", { count: provider.modelCount })}</span>
          </p>
        </div>
        <div className="provider-actions">
          <Switch
            checked={provider.enabled}
            disabled={toggle.isPending}
            label={t("providers.toggle", { name: provider.name })}
            testId={`toggle-provider-${provider.id}`}
            onChange={(enabled) => toggle.mutate(enabled)}
          />
          <IconButton label={t("common.edit")} onClick={onEdit} data-testid={`edit-provider-${provider.id}`}>
            <Pencil size={16} />
          </IconButton>
          <IconButton
            label={t("common.delete")}
            tone="danger"
            onClick={onDelete}
            data-testid={`delete-provider-${provider.id}`}
          >
            <Trash2 size={16} />
          </IconButton>
        </div>
      </header>
      {provider.kind !== "local" && (
      <dl className="provider-meta">
        <div>
          <dt>{t("providers.fields.baseUrl")}</dt>
          <dd className="mono">{provider.baseUrl}</dd>
        </div>
        <div>
          <dt>{t("providers.key.label")}</dt>
          <dd className="mono key-chip" data-testid={`provider-key-${provider.id}`}>
            <KeyRound size={13} aria-hidden="true" />
            {provider.apiKeyMasked ?? t("providers.key.none")}
          </dd>
        </div>
      </dl>
      )}
      {!provider.enabled && <p className="provider-note">{t("providers.disabledNote")}</p>}
      {toggle.error && (
        <p className="field-error" role="alert">
          {errorText(t, toggle.error)}
        </p>
      )}
      <ModelList provider={provider} />
    </article>
  );
}
