import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { canvasApi, type ApiError, type Variant } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Field } from "../../components/Field";
import { errorText, fieldErrorText } from "../../app/errorText";
import { BUILTIN_PRESETS, canvasKeys, presetsQuery } from "./queries";

/** Attaches a variant: a built-in preset or one of the person's saved
 * presets, with a prompt and a style. */
export function AddVariantDialog({ canvasId, onClose }: { canvasId: string; onClose(): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const saved = useQuery(presetsQuery);
  const [preset, setPreset] = useState<string>("x-thread");
  const [prompt, setPrompt] = useState("");
  const [style, setStyle] = useState("");
  const userPreset = preset.startsWith("saved:") ? preset.slice(6) : null;
  const add = useMutation<Variant, ApiError>({
    mutationFn: () =>
      canvasApi.addVariant(canvasId, {
        presetId: userPreset ? "user-saved" : preset,
        userPresetId: userPreset,
        prompt: prompt || (userPreset ? null : ""),
        style: style || null,
      }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: canvasKeys.all });
      onClose();
    },
  });
  const problems = add.error?.fieldProblems() ?? {};
  const general = add.error && !problems.prompt && !problems.presetId ? errorText(t, add.error) : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <Dialog title={t("canvas.addVariant")} onClose={onClose} closeLabel={t("common.close")} testId="add-variant-dialog">
      <form className="form" onSubmit={submit}>
        <Field id="variant-preset" label={t("canvas.preset")} error={fieldErrorText(t, problems.presetId, add.error)}>
          <select id="variant-preset" className="input" value={preset} onChange={(e) => setPreset(e.target.value)} data-testid="variant-preset">
            {BUILTIN_PRESETS.map((id) => (
              <option key={id} value={id}>
                {t(`canvas.presets.${id}`)}
              </option>
            ))}
            {(saved.data ?? []).map((p) => (
              <option key={p.id} value={`saved:${p.id}`}>
                {t("canvas.savedPreset", { name: p.name })}
              </option>
            ))}
          </select>
        </Field>
        <Field id="variant-prompt" label={t("canvas.prompt")} hint={t("canvas.promptHint")} error={fieldErrorText(t, problems.prompt, add.error)}>
          <textarea id="variant-prompt" className="input textarea" rows={4} value={prompt} onChange={(e) => setPrompt(e.target.value)} data-testid="new-variant-prompt" />
        </Field>
        <Field id="variant-style" label={t("canvas.style")}>
          <input id="variant-style" className="input" value={style} placeholder={t("canvas.stylePlaceholder")} onChange={(e) => setStyle(e.target.value)} />
        </Field>
        {general && <Banner tone="danger">{general}</Banner>}
        <div className="dialog-actions">
          <Button onClick={onClose}>{t("common.cancel")}</Button>
          <Button type="submit" variant="primary" busy={add.isPending} data-testid="save-variant">
            {t("canvas.addVariant")}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
