import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { LayoutPanelLeft, PanelLeftClose, Plus } from "lucide-react";

import { ApiError, canvasApi, type Canvas } from "../../api";
import { errorText } from "../../app/errorText";
import { useDates } from "../../app/dates";
import { useRoute } from "../../app/route";
import { shortcutTitle, useShortcutAction } from "../../app/shortcutsHooks";
import { Banner } from "../../components/Banner";
import { Button, IconButton } from "../../components/Button";
import { EmptyState } from "../../components/EmptyState";
import { ListFilter, filterList } from "../../components/ListFilter";
import { ListItem } from "../../components/ListItem";
import { Spinner } from "../../components/Spinner";
import { UndoProvider, useUndo } from "../../components/UndoToast";
import { CanvasBoard } from "./CanvasBoard";
import { useHandedFiles } from "./handedFiles";
import { LIST_WINDOW, listWindow } from "./listWindow";
import { canvasKeys, canvasesQuery } from "./queries";
import { LIST_HIDDEN, useStoredFlag } from "./storedFlag";

/** The drafting canvas (SPEC C1–C6): the person's canvases in a list,
 * most recently active first, like Chat and Swarms, and the open one with
 * its items and variants. Deleting (a canvas, a variant, a source) waits
 * for the undo toast to run out. */
export function CanvasView() {
  const { t } = useTranslation();
  return (
    <UndoProvider describe={(e) => (e instanceof ApiError ? errorText(t, e) : String(e))}>
      <CanvasPage />
    </UndoProvider>
  );
}

function CanvasPage() {
  const { t } = useTranslation();
  const { when, exact } = useDates();
  const client = useQueryClient();
  const undo = useUndo();
  const [route, navigate] = useRoute();
  const canvases = useQuery(canvasesQuery);
  const [filter, setFilter] = useState("");
  const [listChoice, setListHidden] = useStoredFlag(LIST_HIDDEN);
  const listHidden = listChoice ?? false;
  const all = (canvases.data ?? []).filter((c) => !undo.isHidden(`canvas:${c.id}`));
  const shown = filterList(all, filter, (c) => [c.name ?? t("canvas.untitled")]);
  const current = all.find((c) => c.id === route.section) ?? all[0];
  const [limit, setLimit] = useState(LIST_WINDOW);
  const listed = listWindow(shown, limit, current?.id);
  const name = (c: Canvas) => c.name ?? t("canvas.untitled");
  const open = (id: string) => navigate("canvas", id);
  const handed = useHandedFiles(current?.id);

  const create = useMutation<Canvas, ApiError>({
    mutationFn: () => canvasApi.create(null),
    onSuccess: (c) => {
      open(c.id);
      void client.invalidateQueries({ queryKey: canvasKeys.all });
    },
  });

  useShortcutAction("new", () => !create.isPending && create.mutate());
  const remove = (c: Canvas) => {
    const next = all.find((other) => other.id !== c.id);
    undo.schedule({
      key: `canvas:${c.id}`,
      label: t("canvas.deletedCanvas", { name: name(c) }),
      commit: async () => {
        await canvasApi.remove(c.id);
        await client.invalidateQueries({ queryKey: canvasKeys.all });
      },
      onUndo: () => open(c.id),
    });
    navigate("canvas", next?.id ?? null);
  };

  const newButton = (
    <Button variant="primary" size="sm" icon={<Plus size={15} />} busy={create.isPending} onClick={() => create.mutate()} title={shortcutTitle(t("canvas.new"), "new")} data-testid="new-canvas">
      {t("canvas.new")}
    </Button>
  );

  return (
    <div className="page page-canvas">
      <header className="view-head canvas-view-head">
        <h1>{t("canvas.title")}</h1>
        <p className="muted">{t("canvas.subtitle")}</p>
      </header>
      {create.error && <Banner tone="danger">{errorText(t, create.error)}</Banner>}
      {handed.map((note) => (
        <Banner key={note.key} tone={note.ok ? "success" : "danger"} testId="handed-file-note">
          {note.text}
        </Banner>
      ))}
      {canvases.isPending ? (
        <Spinner />
      ) : all.length === 0 ? (
        <EmptyState icon={<LayoutPanelLeft size={28} />} title={t("canvas.emptyTitle")} body={t("canvas.emptyBody")} action={newButton} />
      ) : (
        <div className={listHidden ? "canvas-split list-hidden" : "canvas-split"}>
          {!listHidden && (
            <aside className="list-pane canvas-list" data-testid="canvas-list">
              <div className="canvas-list-head">
                {newButton}
                <IconButton label={t("canvas.hideList")} onClick={() => setListHidden(true)} data-testid="hide-canvas-list">
                  <PanelLeftClose size={15} />
                </IconButton>
              </div>
              <ListFilter value={filter} onChange={setFilter} label={t("canvas.filter")} shown={shown.length} total={all.length} testId="canvas-filter" />
              <ul className="item-list" aria-label={t("canvas.title")}>
                {listed.map((c) => (
                  <ListItem
                    key={c.id}
                    active={c.id === current?.id}
                    icon={<LayoutPanelLeft size={15} />}
                    title={name(c)}
                    sub={
                      <span title={exact(c.lastActiveAt)}>
                        {t("canvas.listSub", { items: c.itemCount, variants: c.variantCount, when: when(c.lastActiveAt) })}
                      </span>
                    }
                    onSelect={() => open(c.id)}
                    testId={`canvas-${c.id}`}
                  />
                ))}
              </ul>
              {shown.length === 0 && <p className="muted small">{t("canvas.noMatch")}</p>}
              {shown.length > listed.length && (
                <Button size="sm" variant="ghost" onClick={() => setLimit(Infinity)} data-testid="canvas-list-more">
                  {t("canvas.showAll", { count: shown.length })}
                </Button>
              )}
            </aside>
          )}
          <div className="canvas-detail">
            {current && (
              <CanvasBoard key={current.id} id={current.id} listHidden={listHidden} onShowList={() => setListHidden(false)} onDelete={() => remove(current)} />
            )}
          </div>
        </div>
      )}
    </div>
  );
}
