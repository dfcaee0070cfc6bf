import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Check, ChevronLeft, ChevronRight, Copy, FileDown, History, PenLine, Sparkles, Square, Trash2 } from "lucide-react";

import { canvasApi, desktopApi, type ApiError, type CanvasDetail, type CanvasEvent, type Exported, type Round, type Variant } from "../../api";
import { Banner } from "../../components/Banner";
import { Button, IconButton } from "../../components/Button";
import { Markdown } from "../../components/Markdown";
import { errorText } from "../../app/errorText";
import { RoundsDialog } from "./RoundsDialog";
import type { Live } from "./live";
import { canvasKeys } from "./queries";

export type { Live } from "./live";

/** One variant: its settings, the round shown as markdown (or the text
 * streaming in), an editor whose save is a new round written by hand, the
 * rounds to step through, generate and cancel, export. */
export function VariantCard({
  variant,
  canvas,
  live,
  onEvent,
  onRemove,
}: {
  variant: Variant;
  canvas: CanvasDetail;
  live: Live | undefined;
  onEvent(event: CanvasEvent): void;
  onRemove(): void;
}) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [prompt, setPrompt] = useState<string | null>(null);
  const [style, setStyle] = useState<string | null>(null);
  const [draft, setDraft] = useState<string | null>(null);
  const [rounds, setRounds] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: canvasKeys.all });

  const save = useMutation<Variant, ApiError>({
    mutationFn: () => canvasApi.updateVariant(variant.id, { prompt: prompt ?? undefined, style: style ?? undefined }),
    onSettled: () => {
      setPrompt(null);
      setStyle(null);
      void refresh();
    },
  });
  const generate = useMutation<Round, ApiError>({ mutationFn: () => canvasApi.generate(variant.id, onEvent), onSettled: () => void refresh() });
  const select = useMutation<Variant, ApiError, number>({ mutationFn: (i) => canvasApi.selectRound(variant.id, i), onSettled: () => void refresh() });
  const write = useMutation<Round, ApiError, string>({
    mutationFn: (text) => canvasApi.writeRound(variant.id, text),
    // The editor closes once the canvas holds the new round: no flash of the old one.
    onSuccess: async () => {
      await refresh();
      setDraft(null);
    },
  });
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
      void refresh();
    },
  });

  const generating = (live !== undefined && live.status !== "saved") || generate.isPending;
  const editing = draft !== null;
  const shown = live ? live.text : variant.activeOutput;
  // A generation the user stopped is not a failure.
  const generateFailure = generate.error?.code === "cancelled" ? null : generate.error;
  const failure = generateFailure ?? select.error ?? exportTo.error ?? save.error ?? write.error;
  const status = live ? (live.status === "saved" ? "done" : live.status) : variant.status;
  const byHand = !live && variant.activeByHand;
  const startEditing = () => {
    write.reset();
    setDraft(variant.activeOutput ?? "");
  };

  return (
    <article className={`variant-card status-${status}`} data-testid={`variant-${variant.id}`} data-status={status}>
      <header className="variant-head">
        <div className="variant-badges">
          <span className="badge badge-accent variant-preset" title={variant.typeTag ? `#${variant.typeTag}` : undefined}>
            {t(`canvas.presets.${variant.presetId}`, { defaultValue: variant.presetId })}
          </span>
          <span className={`status-pill status-${status}`} data-testid="variant-status">
            {t(`canvas.status.${status}`)}
          </span>
          {byHand && (
            <span className="badge by-hand" title={t("canvas.byHandTitle")} data-testid="by-hand">
              <PenLine size={11} aria-hidden="true" /> {t("canvas.byHand")}
            </span>
          )}
        </div>
        <div className="variant-head-tools">
          <IconButton label={t("canvas.rounds")} onClick={() => setRounds(true)} disabled={variant.roundCount === 0} data-testid="open-rounds">
          <History size={15} />
        </IconButton>
        <IconButton label={t("canvas.removeVariant")} tone="danger" onClick={onRemove} disabled={generating} data-testid="remove-variant">
            <Trash2 size={15} />
          </IconButton>
        </div>
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
      {editing ? (
        <div className="variant-editor">
          <textarea
            className="input textarea variant-edit"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Escape") setDraft(null);
              // Ctrl/⌘+Enter saves, like the button.
              if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && draft.trim() !== "" && draft !== (variant.activeOutput ?? "")) write.mutate(draft);
            }}
            aria-label={t("canvas.editLabel")}
            title={t("canvas.editHint")}
            autoFocus
            data-testid="variant-edit"
          />
          <div className="variant-editor-actions">
            <Button size="sm" onClick={() => setDraft(null)} data-testid="cancel-edit">
              {t("common.cancel")}
            </Button>
            <Button
              size="sm"
              variant="primary"
              icon={<Check size={14} />}
              busy={write.isPending}
              disabled={draft.trim() === "" || draft === (variant.activeOutput ?? "")}
              onClick={() => write.mutate(draft)}
              data-testid="save-edit"
            >
              {t("canvas.saveRound")}
            </Button>
          </div>
        </div>
      ) : (
        <div className={shown ? "variant-output" : "variant-output empty"} data-testid="variant-output" aria-live="polite" aria-busy={generating}>
          {shown ? <Markdown source={shown} /> : live ? t("canvas.waiting") : t("canvas.noRound")}
        </div>
      )}
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
      {!editing && (
        <footer className="variant-foot">
          <div className="round-nav">
            <IconButton
              label={t("canvas.previousRound")}
              disabled={variant.activeRound <= 0 || generating || editing}
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
              disabled={variant.activeRound >= variant.roundCount - 1 || generating || editing}
              onClick={() => select.mutate(variant.activeRound + 1)}
              data-testid="next-round"
            >
              <ChevronRight size={15} />
            </IconButton>
          </div>
          <div className="variant-tools">
            <IconButton label={t("canvas.edit")} disabled={generating || editing} onClick={startEditing} data-testid="edit-variant">
              <PenLine size={15} />
            </IconButton>
            <IconButton label={t("canvas.copy")} disabled={variant.roundCount === 0} onClick={() => exportTo.mutate("clipboard")} data-testid="copy-variant">
              <Copy size={15} />
            </IconButton>
            <IconButton label={t("canvas.export")} disabled={variant.roundCount === 0} onClick={() => exportTo.mutate("file")} data-testid="export-variant">
              <FileDown size={15} />
            </IconButton>
            {generating ? (
              <Button size="sm" icon={<Square size={13} />} onClick={() => void canvasApi.cancel(variant.id)} data-testid="cancel-generation">
                {t("common.cancel")}
              </Button>
            ) : (
              <Button size="sm" variant="primary" icon={<Sparkles size={14} />} disabled={editing} onClick={() => generate.mutate()} data-testid="generate">
                {t("canvas.generate")}
              </Button>
            )}
          </div>
        </footer>
      )}
      {rounds && <RoundsDialog variant={variant} onClose={() => setRounds(false)} />}
    </article>
  );
}
