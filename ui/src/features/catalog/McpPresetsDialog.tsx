// Ready-made servers (a real browser, the files of a folder): picking one
// opens the add dialog filled in, to adjust (the folder, say) and save.

import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { AlertTriangle } from "lucide-react";

import type { ApiError, McpPreset } from "../../api";
import { errorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Spinner } from "../../components/Spinner";
import { mcpPresetsQuery } from "./queries";

export function McpPresetsDialog({ onClose, onPick }: { onClose(): void; onPick(preset: McpPreset): void }) {
  const { t } = useTranslation();
  const presets = useQuery(mcpPresetsQuery);
  return (
    <Dialog title={t("mcp.presets.title")} onClose={onClose} closeLabel={t("common.close")} testId="mcp-presets" width={600}>
      <p className="dialog-text">{t("mcp.presets.intro")}</p>
      {presets.isPending && <Spinner />}
      {presets.error && <Banner tone="danger">{errorText(t, presets.error as ApiError)}</Banner>}
      <ul className="mcp-presets">
        {(presets.data ?? []).map((preset) => (
          <li key={preset.id} className="card mcp-preset" data-testid={`mcp-preset-${preset.id}`}>
            <div className="mcp-preset-text">
              <strong>{t(`mcp.presets.names.${preset.id}`, { defaultValue: preset.name })}</strong>
              <p className="muted small">{t(`mcp.presets.descriptions.${preset.id}`, { defaultValue: preset.description })}</p>
              {preset.missing && (
                <p className="mcp-missing small" data-testid={`mcp-preset-missing-${preset.id}`}>
                  <AlertTriangle size={13} aria-hidden="true" />
                  <span>{t("mcp.presets.missing", { what: preset.missing })}</span>
                </p>
              )}
            </div>
            <Button size="sm" onClick={() => onPick(preset)} data-testid={`mcp-preset-use-${preset.id}`}>
              {t("mcp.presets.use")}
            </Button>
          </li>
        ))}
      </ul>
    </Dialog>
  );
}
