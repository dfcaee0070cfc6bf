// An empty canvas teaches (issue 37, review item 9): instead of one grey
// line, the formats it can write in, as tiles; one click adds that variant,
// ready for its instruction.

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Sparkles } from "lucide-react";

import { canvasApi, type ApiError, type Variant } from "../../api";
import { Banner } from "../../components/Banner";
import { errorText } from "../../app/errorText";
import { BUILTIN_PRESETS, canvasKeys } from "./queries";

export function PresetTiles({ canvasId }: { canvasId: string }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const add = useMutation<Variant, ApiError, string>({
    mutationFn: (presetId) => canvasApi.addVariant(canvasId, { presetId, userPresetId: null, prompt: "", style: null }),
    onSuccess: () => void client.invalidateQueries({ queryKey: canvasKeys.all }),
  });
  return (
    <div className="preset-tiles" data-testid="preset-tiles">
      <p className="preset-tiles-title">{t("canvas.tiles.title")}</p>
      <div className="preset-tiles-grid">
        {BUILTIN_PRESETS.map((id) => (
          <button key={id} type="button" className="preset-tile" disabled={add.isPending} onClick={() => add.mutate(id)} data-testid={`preset-tile-${id}`}>
            <Sparkles size={15} aria-hidden="true" />
            <strong>{t(`canvas.presets.${id}`)}</strong>
            <span className="muted small">{t(`canvas.tiles.hint.${id}`)}</span>
          </button>
        ))}
      </div>
      {add.error && <Banner tone="danger">{errorText(t, add.error)}</Banner>}
    </div>
  );
}
