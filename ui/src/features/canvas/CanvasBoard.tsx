import { useEffect, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { PanelLeftOpen, Plus, Sparkles, Trash2 } from "lucide-react";

import { canvasApi, type ApiError, type CanvasEvent, type GenerateAllOutcome, type Variant } from "../../api";
import { Banner } from "../../components/Banner";
import { Button, IconButton } from "../../components/Button";
import { Menu } from "../../components/Menu";
import { Spinner } from "../../components/Spinner";
import { useUndo } from "../../components/UndoToast";
import { errorText } from "../../app/errorText";
import { shortcutTitle, useShortcutAction } from "../../app/shortcutsHooks";
import { AddVariantDialog } from "./AddVariantDialog";
import { ItemsColumn } from "./ItemsColumn";
import { VariantCard, type Live } from "./VariantCard";
import { nextLive, shownLive } from "./live";
import { canvasKeys, canvasQuery } from "./queries";
import { NEXT_STEP_SEEN, takeGenerateOnOpen, willGenerateOnOpen } from "./firstDraft";
import { PresetTiles } from "./PresetTiles";
import { ITEMS_HIDDEN, useStoredFlag } from "./storedFlag";

/** How many variants fold the items column away, until the person chooses. */
export const FOLD_ITEMS_AT = 3;

/** One canvas: its name, the items selected (a column that folds away),
 * and the variants in a grid that takes the rest of the window, their text
 * streaming in as it is generated. The column starts folded with three
 * variants or more (they fit side by side at 1280 px only then). */
export function CanvasBoard({
  id,
  listHidden,
  onShowList,
  onDelete,
}: {
  id: string;
  listHidden: boolean;
  onShowList(): void;
  onDelete(): void;
}) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const undo = useUndo();
  const detail = useQuery(canvasQuery(id));
  const [live, setLive] = useState<Record<string, Live>>({});
  const [adding, setAdding] = useState(false);
  const [name, setName] = useState<string | null>(null);
  const [itemsChoice, setItemsHidden] = useStoredFlag(ITEMS_HIDDEN);
  const refresh = () => client.invalidateQueries({ queryKey: canvasKeys.all });

  /** Every generation event lands here, by variant. */
  const onEvent = (event: CanvasEvent) => {
    setLive((all) => nextLive(all, event));
    if (event.type === "done" || event.type === "failed") void refresh();
  };

  const generateAll = useMutation<GenerateAllOutcome, ApiError>({
    // Variants waiting on their undo toast are deleted first, not generated.
    mutationFn: async () => {
      await undo.flush("variant:");
      return canvasApi.generateAll(id, onEvent);
    },
    onSettled: () => void refresh(),
  });
  const rename = useMutation<unknown, ApiError, string>({
    mutationFn: (next) => canvasApi.rename(id, next.trim() || null),
    onSettled: () => {
      setName(null);
      void refresh();
    },
  });

  useShortcutAction("run", () => !generateAll.isPending && detail.data?.variants.some((v) => !undo.isHidden(`variant:${v.id}`)) && generateAll.mutate());
  // The first run's sample starts generating as it opens (issue 37).
  const hasVariants = (detail.data?.variants.length ?? 0) > 0;
  const { mutate: startAll } = generateAll;
  const [firstDraft] = useState(() => willGenerateOnOpen(id));
  useEffect(() => {
    if (hasVariants && takeGenerateOnOpen(id)) startAll();
  }, [hasVariants, id, startAll]);
  const [nextStepSeen, setNextStepSeen] = useStoredFlag(NEXT_STEP_SEEN);
  if (detail.isPending) return <Spinner />;
  if (detail.isError || !detail.data) return <Banner tone="danger">{t("canvas.loadFailed")}</Banner>;
  const canvas = detail.data;
  const variants = canvas.variants.filter((v) => !undo.isHidden(`variant:${v.id}`));
  // Until the person folds or opens the items, three drafts or more get the room.
  const itemsHidden = itemsChoice ?? variants.length >= FOLD_ITEMS_AT;
  const failedAll = generateAll.data?.failed.filter((f) => f.error.code !== "cancelled").length ?? 0;
  const presetName = (v: Variant) => t(`canvas.presets.${v.presetId}`, { defaultValue: v.presetId });
  const removeVariant = (v: Variant) =>
    undo.schedule({
      key: `variant:${v.id}`,
      label: t("canvas.deletedVariant", { name: presetName(v) }),
      commit: async () => {
        await canvasApi.removeVariant(v.id);
        await refresh();
      },
    });

  return (
    <section className="canvas-board" data-testid="canvas-board">
      <header className="canvas-head">
        {listHidden && (
          <IconButton label={t("canvas.showList")} onClick={onShowList} data-testid="show-canvas-list">
            <PanelLeftOpen size={16} />
          </IconButton>
        )}
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
          disabled={variants.length === 0}
          onClick={() => generateAll.mutate()}
          title={shortcutTitle(t("canvas.generateAll"), "run")}
          data-testid="generate-all"
        >
          {t("canvas.generateAll")}
        </Button>
        <span className="canvas-head-gap" />
        <Menu
          label={t("canvas.more")}
          testId="canvas-menu"
          actions={[{ label: t("canvas.deleteCanvas"), icon: <Trash2 size={14} />, tone: "danger", onSelect: onDelete, testId: "delete-canvas" }]}
        />
      </header>
      {generateAll.error && <Banner tone="danger">{errorText(t, generateAll.error)}</Banner>}
      {firstDraft && generateAll.isSuccess && failedAll === 0 && !nextStepSeen && (
        <Banner
          tone="success"
          testId="canvas-next-step"
          action={
            <Button size="sm" onClick={() => setNextStepSeen(true)} data-testid="canvas-next-step-ok">
              {t("canvas.nextStep.ok")}
            </Button>
          }
        >
          {t("canvas.nextStep.text")}
        </Banner>
      )}
      {failedAll > 0 && <Banner tone="warning">{t("canvas.someFailed", { count: failedAll })}</Banner>}
      <div className={itemsHidden ? "canvas-body items-hidden" : "canvas-body"}>
        {itemsHidden ? (
          <button
            type="button"
            className="items-rail"
            onClick={() => setItemsHidden(false)}
            aria-label={t("canvas.showItems", { count: canvas.items.length })}
            title={t("canvas.showItems", { count: canvas.items.length })}
            data-testid="show-items"
          >
            <PanelLeftOpen size={16} />
            <span className="items-rail-count">{canvas.items.length}</span>
          </button>
        ) : (
          <ItemsColumn canvasId={id} items={canvas.items} onHide={() => setItemsHidden(true)} />
        )}
        <div className="variants-grid" data-testid="variants" data-count={variants.length}>
          {variants.length === 0 ? (
            <PresetTiles canvasId={id} />
          ) : (
            variants.map((v) => (
              <VariantCard key={v.id} variant={v} canvas={canvas} live={shownLive(live[v.id], v)} onEvent={onEvent} onRemove={() => removeVariant(v)} />
            ))
          )}
        </div>
      </div>
      {adding && <AddVariantDialog canvasId={id} onClose={() => setAdding(false)} />}
    </section>
  );
}
