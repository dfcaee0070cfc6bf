import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { LayoutPanelLeft, Plus } from "lucide-react";

import { canvasApi, type ApiError, type Canvas } from "../../api";
import { Button } from "../../components/Button";
import { EmptyState } from "../../components/EmptyState";
import { Spinner } from "../../components/Spinner";
import { CanvasBoard } from "./CanvasBoard";
import { canvasKeys, canvasesQuery } from "./queries";

/** The drafting canvas (SPEC C1–C6): the person's canvases, most recently
 * active first, and the one open with its items and variants. */
export function CanvasView() {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const canvases = useQuery(canvasesQuery);
  const [selected, setSelected] = useState<string | null>(null);
  const list = canvases.data ?? [];
  const current = list.find((c) => c.id === selected) ?? list[0];
  const create = useMutation<Canvas, ApiError>({
    mutationFn: () => canvasApi.create(null),
    onSuccess: (c) => {
      setSelected(c.id);
      void client.invalidateQueries({ queryKey: canvasKeys.all });
    },
  });
  const when = (iso: string) => new Date(iso).toLocaleString(i18n.language, { dateStyle: "medium", timeStyle: "short" });

  return (
    <div className="page page-wide page-canvas">
      <header className="view-head view-head-row">
        <div>
          <h1>{t("canvas.title")}</h1>
          <p className="muted">{t("canvas.subtitle")}</p>
        </div>
        <Button variant="primary" icon={<Plus size={16} />} busy={create.isPending} onClick={() => create.mutate()} data-testid="new-canvas">
          {t("canvas.new")}
        </Button>
      </header>
      {canvases.isPending ? (
        <Spinner />
      ) : list.length === 0 ? (
        <EmptyState icon={<LayoutPanelLeft size={28} />} title={t("canvas.emptyTitle")} body={t("canvas.emptyBody")} />
      ) : (
        <>
          <div className="canvas-picker">
            <select
              className="input"
              value={current?.id}
              onChange={(e) => setSelected(e.target.value)}
              aria-label={t("canvas.pick")}
              data-testid="canvas-picker"
            >
              {list.map((c: Canvas) => (
                <option key={c.id} value={c.id}>
                  {(c.name ?? t("canvas.untitled")) + " — " + t("canvas.listSub", { items: c.itemCount, variants: c.variantCount, when: when(c.lastActiveAt) })}
                </option>
              ))}
            </select>
          </div>
          {current && <CanvasBoard key={current.id} id={current.id} onDeleted={() => setSelected(null)} />}
        </>
      )}
    </div>
  );
}
