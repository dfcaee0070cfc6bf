import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Plus, Sparkles, Trash2 } from "lucide-react";

import { canvasApi, type ApiError, type CanvasEvent, type GenerateAllOutcome } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { Spinner } from "../../components/Spinner";
import { errorText } from "../../app/errorText";
import { AddVariantDialog } from "./AddVariantDialog";
import { ItemsColumn } from "./ItemsColumn";
import { VariantCard, type Live } from "./VariantCard";
import { canvasKeys, canvasQuery } from "./queries";

/** One canvas: its name, the items selected, and the variants side by side
 * with their text streaming in as it is generated. */
export function CanvasBoard({ id, onDeleted }: { id: string; onDeleted(): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const detail = useQuery(canvasQuery(id));
  const [live, setLive] = useState<Record<string, Live>>({});
  const [adding, setAdding] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const [name, setName] = useState<string | null>(null);
  const refresh = () => void client.invalidateQueries({ queryKey: canvasKeys.all });

  /** Every generation event lands here, by variant. */
  const onEvent = (event: CanvasEvent) => {
    setLive((all) => {
      const was = all[event.variantId] ?? { text: "", status: "queued" as const };
      switch (event.type) {
        case "queued":
          return { ...all, [event.variantId]: { text: "", status: "queued" } };
        case "streaming":
          return { ...all, [event.variantId]: { text: "", status: "streaming", model: event.model } };
        case "delta":
          return { ...all, [event.variantId]: { ...was, status: "streaming", text: was.text + event.text } };
        case "done":
        case "failed": {
          const rest = { ...all };
          delete rest[event.variantId];
          return rest;
        }
      }
    });
    if (event.type === "done" || event.type === "failed") refresh();
  };

  const generateAll = useMutation<GenerateAllOutcome, ApiError>({
    mutationFn: () => canvasApi.generateAll(id, onEvent),
    onSettled: refresh,
  });
  const rename = useMutation<unknown, ApiError, string>({
    mutationFn: (next) => canvasApi.rename(id, next.trim() || null),
    onSettled: () => {
      setName(null);
      refresh();
    },
  });
  const remove = useMutation<null, ApiError>({
    mutationFn: () => canvasApi.remove(id),
    onSuccess: () => {
      setConfirm(false);
      onDeleted();
      refresh();
    },
  });

  if (detail.isPending) return <Spinner />;
  if (detail.isError || !detail.data) return <Banner tone="danger">{t("canvas.loadFailed")}</Banner>;
  const canvas = detail.data;
  const failedAll = generateAll.data?.failed.filter((f) => f.error.code !== "cancelled").length ?? 0;

  return (
    <section className="canvas-board" data-testid="canvas-board">
      <header className="canvas-head">
        <input
          className="input canvas-name"
          value={name ?? canvas.name ?? ""}
          placeholder={t("canvas.untitled")}
          aria-label={t("canvas.name")}
          onChange={(e) => setName(e.target.value)}
          onBlur={() => name !== null && rename.mutate(name)}
          onKeyDown={(e) => e.key === "Enter" && (e.target as HTMLInputElement).blur()}
          data-testid="canvas-name"
        />
        <Button icon={<Plus size={15} />} onClick={() => setAdding(true)} data-testid="add-variant">
          {t("canvas.addVariant")}
        </Button>
        <Button
          variant="primary"
          icon={<Sparkles size={15} />}
          busy={generateAll.isPending}
          disabled={canvas.variants.length === 0}
          onClick={() => generateAll.mutate()}
          data-testid="generate-all"
        >
          {t("canvas.generateAll")}
        </Button>
        <Button variant="ghost" icon={<Trash2 size={15} />} onClick={() => setConfirm(true)} data-testid="delete-canvas">
          {t("common.delete")}
        </Button>
      </header>
      {generateAll.error && <Banner tone="danger">{errorText(t, generateAll.error)}</Banner>}
      {failedAll > 0 && <Banner tone="warning">{t("canvas.someFailed", { count: failedAll })}</Banner>}
      <div className="canvas-body">
        <ItemsColumn canvasId={id} items={canvas.items} />
        <div className="variants-row" data-testid="variants">
          {canvas.variants.length === 0 ? (
            <div className="variants-empty muted">{t("canvas.noVariants")}</div>
          ) : (
            canvas.variants.map((v) => <VariantCard key={v.id} variant={v} canvas={canvas} live={live[v.id]} onEvent={onEvent} />)
          )}
        </div>
      </div>
      {adding && <AddVariantDialog canvasId={id} onClose={() => setAdding(false)} />}
      {confirm && (
        <ConfirmDialog
          title={t("canvas.deleteTitle", { name: canvas.name ?? t("canvas.untitled") })}
          body={t("canvas.deleteBody")}
          busy={remove.isPending}
          onConfirm={() => remove.mutate()}
          onCancel={() => setConfirm(false)}
          confirmTestId="confirm-delete-canvas"
        />
      )}
    </section>
  );
}
