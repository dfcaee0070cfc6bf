import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { ChevronLeft, ChevronRight, Copy, FileDown, History, Sparkles, Square, Trash2 } from "lucide-react";

import { canvasApi, desktopApi, type ApiError, type CanvasDetail, type CanvasEvent, type Exported, type Round, type Variant } from "../../api";
import { Banner } from "../../components/Banner";
import { Button, IconButton } from "../../components/Button";
import { errorText } from "../../app/errorText";
import { RoundsDialog } from "./RoundsDialog";
import { canvasKeys } from "./queries";

/** What a generation in progress has streamed so far. */
export interface Live {
  text: string;
  status: "queued" | "streaming";
  model?: string;
}

/** One variant: its settings, the round shown (or the text streaming in),
 * the rounds to step through, generate and cancel, export. */
export function VariantCard({
  variant,
  canvas,
  live,
  onEvent,
}: {
  variant: Variant;
  canvas: CanvasDetail;
  live: Live | undefined;
  onEvent(event: CanvasEvent): void;
}) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [prompt, setPrompt] = useState<string | null>(null);
  const [style, setStyle] = useState<string | null>(null);
  const [rounds, setRounds] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const refresh = () => void client.invalidateQueries({ queryKey: canvasKeys.all });

  const save = useMutation<Variant, ApiError>({
    mutationFn: () => canvasApi.updateVariant(variant.id, { prompt: prompt ?? undefined, style: style ?? undefined }),
    onSettled: () => {
      setPrompt(null);
      setStyle(null);
      refresh();
    },
  });
  const generate = useMutation<Round, ApiError>({ mutationFn: () => canvasApi.generate(variant.id, onEvent), onSettled: refresh });
  const select = useMutation<Variant, ApiError, number>({ mutationFn: (i) => canvasApi.selectRound(variant.id, i), onSettled: refresh });
  const remove = useMutation<null, ApiError>({ mutationFn: () => canvasApi.removeVariant(variant.id), onSettled: refresh });
  const exportTo = useMutation<Exported | null, ApiError, "file" | "clipboard">({
    mutationFn: async (target) => {
      if (target === "file") {
        return desktopApi.exportVariantToFile({
          canvasId: canvas.id,
          variantId: variant.id,
          title: t("canvas.exportTitle"),
          fileName: `${canvas.name ?? variant.presetId}.md`,
        });
      }
      const done = await canvasApi.exportVariant({ canvasId: canvas.id, variantId: variant.id, target: "clipboard" });
      await navigator.clipboard?.writeText(done.markdown);
      return done;
    },
    onSuccess: (done) => {
      if (done) setNote(done.path ? t("canvas.exportedTo", { path: done.path }) : t("canvas.copied"));
      refresh();
    },
  });

  const busy = Boolean(live) || generate.isPending;
  const shown = live ? live.text : variant.activeOutput;
  // A generation the user stopped is not a failure.
  const generateFailure = generate.error?.code === "cancelled" ? null : generate.error;
  const failure = generateFailure ?? select.error ?? exportTo.error ?? remove.error ?? save.error;
  const status = live?.status ?? variant.status;

  return (
    <article className={`variant-card status-${status}`} data-testid={`variant-${variant.id}`} data-status={status}>
      <header className="variant-head">
        <span className="badge badge-accent">{t(`canvas.presets.${variant.presetId}`, { defaultValue: variant.presetId })}</span>
        {variant.typeTag && <span className="muted small">#{variant.typeTag}</span>}
        <span className={`status-pill status-${status}`} data-testid="variant-status">
          {t(`canvas.status.${status}`)}
        </span>
        <span className="spacer" />
        <IconButton label={t("canvas.rounds")} onClick={() => setRounds(true)} disabled={variant.roundCount === 0} data-testid="open-rounds">
          <History size={15} />
        </IconButton>
        <IconButton label={t("canvas.removeVariant")} tone="danger" onClick={() => remove.mutate()} data-testid="remove-variant">
          <Trash2 size={15} />
        </IconButton>
      </header>
      <textarea
        className="input textarea variant-prompt"
        rows={2}
        placeholder={t("canvas.promptPlaceholder")}
        value={prompt ?? variant.prompt}
        onChange={(e) => setPrompt(e.target.value)}
        onBlur={() => prompt !== null && save.mutate()}
        aria-label={t("canvas.prompt")}
        data-testid="variant-prompt"
      />
      <input
        className="input input-sm"
        placeholder={t("canvas.stylePlaceholder")}
        value={style ?? variant.style}
        onChange={(e) => setStyle(e.target.value)}
        onBlur={() => style !== null && save.mutate()}
        aria-label={t("canvas.style")}
      />
      <div className={shown ? "variant-output" : "variant-output empty"} data-testid="variant-output" aria-live="polite">
        {shown || (live ? t("canvas.waiting") : t("canvas.noRound"))}
      </div>
      {variant.status === "error" && !live && variant.errorMessage && (
        <Banner tone="danger">
          {/* A generation cut off by a dead process (core's canvas::leases::INTERRUPTED). */}
          {variant.errorMessage.startsWith("interrupted:")
            ? t("canvas.interrupted")
            : t("canvas.failed", { message: variant.errorMessage })}
        </Banner>
      )}
      {failure && <Banner tone="danger">{errorText(t, failure)}</Banner>}
      {note && <p className="muted small">{note}</p>}
      <footer className="variant-foot">
        <div className="round-nav">
          <IconButton
            label={t("canvas.previousRound")}
            disabled={variant.activeRound <= 0 || busy}
            onClick={() => select.mutate(variant.activeRound - 1)}
            data-testid="previous-round"
          >
            <ChevronLeft size={15} />
          </IconButton>
          <span className="small" data-testid="round-label">
            {variant.roundCount === 0 ? t("canvas.noRounds") : t("canvas.roundOf", { n: variant.activeRound + 1, count: variant.roundCount })}
          </span>
          <IconButton
            label={t("canvas.nextRound")}
            disabled={variant.activeRound >= variant.roundCount - 1 || busy}
            onClick={() => select.mutate(variant.activeRound + 1)}
            data-testid="next-round"
          >
            <ChevronRight size={15} />
          </IconButton>
        </div>
        <span className="spacer" />
        <IconButton label={t("canvas.copy")} disabled={variant.roundCount === 0} onClick={() => exportTo.mutate("clipboard")} data-testid="copy-variant">
          <Copy size={15} />
        </IconButton>
        <IconButton label={t("canvas.export")} disabled={variant.roundCount === 0} onClick={() => exportTo.mutate("file")} data-testid="export-variant">
          <FileDown size={15} />
        </IconButton>
        {busy ? (
          <Button size="sm" icon={<Square size={13} />} onClick={() => void canvasApi.cancel(variant.id)} data-testid="cancel-generation">
            {t("common.cancel")}
          </Button>
        ) : (
          <Button size="sm" variant="primary" icon={<Sparkles size={14} />} onClick={() => generate.mutate()} data-testid="generate">
            {t("canvas.generate")}
          </Button>
        )}
      </footer>
      {rounds && <RoundsDialog variant={variant} onClose={() => setRounds(false)} />}
    </article>
  );
}
