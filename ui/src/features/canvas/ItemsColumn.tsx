import { Fragment, useState } from "react";
import type { DragEvent, FormEvent, ReactNode } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { FileText, Image as ImageIcon, PanelLeftClose, Plus, Rss, X } from "lucide-react";

import { canvasApi, type ApiError, type CanvasItem, type NewItem } from "../../api";
import { Banner } from "../../components/Banner";
import { Button, IconButton } from "../../components/Button";
import { useDates } from "../../app/dates";
import { errorText } from "../../app/errorText";
import { SourcesDialog } from "./SourcesDialog";
import { canvasKeys } from "./queries";

/** A file's bytes as base64, for the IPC. */
function toBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error ?? new Error("the file could not be read"));
    reader.readAsDataURL(file);
  });
}

/** An address with a place to break after each "/", so a long one wraps
 * between its parts ("https://example.org/ hives-2026"), not mid-word;
 * other text as it is. */
export function withBreaks(text: string): ReactNode {
  if (!/^https?:\/\//i.test(text)) return text;
  return text.split(/(?<=\/)/).map((part, i) => (
    <Fragment key={i}>
      {part}
      <wbr />
    </Fragment>
  ));
}

/** Whether an item is a dropped image (it points at its artifacts). */
function isImage(item: CanvasItem): boolean {
  const raw = item.raw as { modelArtifactId?: unknown; format?: unknown } | null;
  return typeof raw?.modelArtifactId === "string" && typeof raw.format === "string";
}

/** The picture of an image item (the copy made for models). Items never
 * change, so it is fetched once. */
function ItemThumbnail({ canvasId, item }: { canvasId: string; item: CanvasItem }) {
  const preview = useQuery({
    queryKey: canvasKeys.itemImage(item.id),
    queryFn: () => canvasApi.itemImage(canvasId, item.id),
    staleTime: Infinity,
  });
  if (!preview.data) return <div className="item-thumb placeholder" aria-hidden="true" />;
  return (
    <img
      className="item-thumb"
      src={`data:${preview.data.mime};base64,${preview.data.dataBase64}`}
      alt={item.title}
      data-testid="item-thumb"
    />
  );
}

/** What a drop becomes: a URL or a piece of text, as a custom item. */
export function itemFromDrop(text: string): NewItem | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  const url = /^https?:\/\/\S+$/.test(trimmed);
  const firstLine = trimmed.split("\n")[0] ?? trimmed;
  return {
    sourceKind: url ? "webpage" : "custom",
    title: firstLine.length > 120 ? `${firstLine.slice(0, 117)}…` : firstLine,
    snippet: url ? "" : trimmed,
    externalId: url ? trimmed : null,
    raw: url ? { url: trimmed } : null,
  };
}

/** The items column: the snapshots selected, a form to add one, sources,
 * and a drop zone for images, text, links and text files (SPEC C2, C11).
 * It folds away (`onHide`) to give the variants the room. */
export function ItemsColumn({ canvasId, items, onHide }: { canvasId: string; items: CanvasItem[]; onHide(): void }) {
  const { t } = useTranslation();
  const { when } = useDates();
  const client = useQueryClient();
  const [title, setTitle] = useState("");
  const [snippet, setSnippet] = useState("");
  const [over, setOver] = useState(false);
  const [sources, setSources] = useState(false);
  const [dropNote, setDropNote] = useState<string | null>(null);
  const refresh = () => void client.invalidateQueries({ queryKey: canvasKeys.all });
  const add = useMutation<CanvasItem, ApiError, NewItem>({
    mutationFn: (item) => canvasApi.addItem(canvasId, item),
    onSuccess: () => {
      setTitle("");
      setSnippet("");
      refresh();
    },
  });
  const remove = useMutation<null, ApiError, string>({ mutationFn: (item) => canvasApi.removeItem(canvasId, item), onSettled: refresh });
  const addImage = useMutation<CanvasItem, ApiError, File>({
    mutationFn: async (file) => canvasApi.addImage(canvasId, file.name, await toBase64(file)),
    onSettled: refresh,
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate({ sourceKind: "custom", title, snippet });
  };
  const onDrop = async (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    setDropNote(null);
    const files = [...e.dataTransfer.files];
    for (const file of files) {
      if (file.type.startsWith("text/") || /\.(md|txt)$/i.test(file.name)) {
        add.mutate({ sourceKind: "custom", title: file.name, snippet: await file.text() });
      } else if (file.type.startsWith("image/") || /\.(jpe?g|png|webp|gif)$/i.test(file.name)) {
        addImage.mutate(file);
      } else {
        setDropNote(t("canvas.dropUnsupported", { name: file.name }));
      }
    }
    if (files.length === 0) {
      const item = itemFromDrop(e.dataTransfer.getData("text/uri-list") || e.dataTransfer.getData("text/plain"));
      if (item) add.mutate(item);
    }
  };

  return (
    <aside
      className={over ? "items-column drop-over" : "items-column"}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => void onDrop(e)}
      data-testid="items-column"
    >
      <div className="items-head">
        <h3>{t("canvas.items", { count: items.length })}</h3>
        <span className="items-head-tools">
          <Button size="sm" variant="ghost" icon={<Rss size={14} />} onClick={() => setSources(true)} data-testid="open-sources">
            {t("canvas.sources")}
          </Button>
          <IconButton label={t("canvas.hideItems")} onClick={onHide} data-testid="hide-items">
            <PanelLeftClose size={15} />
          </IconButton>
        </span>
      </div>
      <ul className="canvas-items">
        {items.map((item) => (
          <li key={item.id} className="canvas-item" data-testid={`item-${item.id}`}>
            {isImage(item) ? <ImageIcon size={14} aria-hidden="true" /> : <FileText size={14} aria-hidden="true" />}
            <div>
              {isImage(item) && <ItemThumbnail canvasId={canvasId} item={item} />}
              <strong className="item-title">{withBreaks(item.title)}</strong>
              <span className="muted small" title={isImage(item) ? item.snippet : undefined}>
                {isImage(item) ? t("canvas.imageItem") : t(`names.sourceKind.${item.sourceKind}`)} · {when(item.capturedAt)}
              </span>
              {item.snippet && !isImage(item) && <p className="item-snippet">{item.snippet}</p>}
            </div>
            <IconButton label={t("canvas.removeItem")} onClick={() => remove.mutate(item.id)}>
              <X size={14} />
            </IconButton>
          </li>
        ))}
      </ul>
      <p className="drop-hint muted small">{t("canvas.dropHint")}</p>
      {dropNote && <Banner tone="warning">{dropNote}</Banner>}
      <form className="item-form" onSubmit={submit}>
        <input className="input input-sm" placeholder={t("canvas.itemTitle")} value={title} onChange={(e) => setTitle(e.target.value)} data-testid="item-title" />
        <textarea className="input textarea" rows={2} placeholder={t("canvas.itemSnippet")} value={snippet} onChange={(e) => setSnippet(e.target.value)} data-testid="item-snippet" />
        <Button size="sm" type="submit" icon={<Plus size={14} />} busy={add.isPending} disabled={!title.trim()} data-testid="add-item">
          {t("canvas.addItem")}
        </Button>
      </form>
      {addImage.isPending && <p className="muted small">{t("canvas.addingImage")}</p>}
      {(add.error ?? remove.error ?? addImage.error) && <Banner tone="danger">{errorText(t, (add.error ?? remove.error ?? addImage.error)!)}</Banner>}
      {sources && <SourcesDialog canvasId={canvasId} onClose={() => setSources(false)} />}
    </aside>
  );
}
