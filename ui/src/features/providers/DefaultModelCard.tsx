// The workspace's default model: what agents without their own model run on.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Star } from "lucide-react";

import { runtimeApi, type ApiError } from "../../api";
import { errorText } from "../../app/errorText";
import { enabledModelsQuery } from "../catalog/queries";
import { defaultModelQuery, runtimeKeys } from "../runs/queries";

export function DefaultModelCard() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const models = useQuery(enabledModelsQuery).data ?? [];
  const current = useQuery(defaultModelQuery).data ?? null;
  const set = useMutation<string | null, ApiError, string | null>({
    mutationFn: (id) => runtimeApi.setDefaultModel(id),
    onSettled: () => void client.invalidateQueries({ queryKey: runtimeKeys.defaultModel }),
  });
  return (
    <div className="card default-model" data-testid="default-model">
      <span className="default-model-icon" aria-hidden="true">
        <Star size={16} />
      </span>
      <div className="default-model-text">
        <label htmlFor="default-model-select">
          <strong>{t("providers.defaultModel.title")}</strong>
        </label>
        <p className="muted small">{current ? t("providers.defaultModel.body") : t("providers.defaultModel.none")}</p>
        {set.error && <p className="field-error">{errorText(t, set.error)}</p>}
      </div>
      <select
        id="default-model-select"
        className="input"
        value={current ?? ""}
        disabled={set.isPending}
        onChange={(e) => set.mutate(e.target.value || null)}
        data-testid="default-model-select"
      >
        <option value="">{t("providers.defaultModel.unset")}</option>
        {current && !models.some((m) => m.id === current) && <option value={current}>{current}</option>}
        {models.map((m) => (
          <option key={m.id} value={m.id}>
            {m.label ?? m.id}
          </option>
        ))}
      </select>
    </div>
  );
}
