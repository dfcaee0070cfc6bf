import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Plus, RefreshCw, Trash2 } from "lucide-react";

import { canvasApi, type ApiError, type Source } from "../../api";
import { Banner } from "../../components/Banner";
import { Button, IconButton } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Field } from "../../components/Field";
import { useUndo } from "../../components/UndoToast";
import { errorText } from "../../app/errorText";
import { canvasKeys, sourceItemsQuery, sourcesQuery } from "./queries";

/** Registered sources (SPEC C10): add a feed or a page, refresh it in the
 * background, select its items into the canvas as snapshots, delete it
 * (after the undo toast runs out). */
export function SourcesDialog({ canvasId, onClose }: { canvasId: string; onClose(): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const undo = useUndo();
  const sources = useQuery(sourcesQuery);
  const [open, setOpen] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [kind, setKind] = useState<"rss" | "webpage">("rss");
  const refresh = () => void client.invalidateQueries({ queryKey: canvasKeys.all });
  const register = useMutation<Source, ApiError>({
    mutationFn: async () => {
      const s = await canvasApi.registerSource({ kind, name, url });
      return canvasApi.refreshSource(s.id);
    },
    onSuccess: (s) => {
      setName("");
      setUrl("");
      setOpen(s.id);
      refresh();
    },
  });
  const refreshOne = useMutation<Source, ApiError, string>({ mutationFn: canvasApi.refreshSource, onSettled: refresh });
  const add = useMutation<unknown, ApiError, string>({
    mutationFn: (item) => canvasApi.addItem(canvasId, { upstreamItemId: item }),
    onSettled: refresh,
  });
  const list = (sources.data ?? []).filter((s) => !undo.isHidden(`source:${s.id}`));
  const current = list.find((s) => s.id === open);
  const removeSource = (s: Source) => {
    if (open === s.id) setOpen(null);
    undo.schedule({
      key: `source:${s.id}`,
      label: t("canvas.deletedSource", { name: s.name }),
      commit: async () => {
        await canvasApi.removeSource(s.id);
        await client.invalidateQueries({ queryKey: canvasKeys.all });
      },
    });
  };
  const items = useQuery({ ...sourceItemsQuery(open ?? ""), enabled: Boolean(open) });
  const failure = register.error ?? refreshOne.error ?? add.error;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    register.mutate();
  };
  return (
    <Dialog title={t("canvas.sources")} onClose={onClose} closeLabel={t("common.close")} testId="sources-dialog" width={760}>
      <div className="sources-view">
        <p className="muted small sources-intro">{t("canvas.sourcesIntro")}</p>
        <form className="form sources-form" onSubmit={submit}>
          <Field id="source-kind" label={t("canvas.sourceKind")}>
            <select id="source-kind" className="input input-sm" value={kind} onChange={(e) => setKind(e.target.value as "rss" | "webpage")}>
              <option value="rss">RSS / Atom</option>
              <option value="webpage">{t("canvas.webpage")}</option>
            </select>
          </Field>
          <Field id="source-name" label={t("canvas.sourceName")}>
            <input id="source-name" className="input input-sm" placeholder={t("canvas.sourceNameExample")} value={name} onChange={(e) => setName(e.target.value)} />
          </Field>
          <Field id="source-url" label={t("canvas.sourceUrl")}>
            <input
              id="source-url"
              className="input input-sm"
              placeholder={kind === "rss" ? "https://example.org/feed.xml" : "https://example.org/news"}
              value={url}
              onChange={(e) => setUrl(e.target.value)}
            />
          </Field>
          <Button size="sm" type="submit" icon={<Plus size={14} />} busy={register.isPending}>
            {t("canvas.addSource")}
          </Button>
        </form>
        {failure && <Banner tone="danger">{errorText(t, failure)}</Banner>}
        <ul className="source-list">
          {list.map((s) => (
            <li key={s.id} className={s.id === open ? "active" : ""}>
              <button className="link" onClick={() => setOpen(s.id)}>
                {s.name}
              </button>
              <span className="muted small">
                {t(`canvas.sourceStatus.${s.status}`, { defaultValue: s.status })} · {t("canvas.sourceItems", { count: s.itemCount })}
              </span>
              {s.error && <span className="field-error small">{s.error}</span>}
              <Button size="sm" variant="ghost" icon={<RefreshCw size={13} />} onClick={() => refreshOne.mutate(s.id)}>
                {t("canvas.refresh")}
              </Button>
              <IconButton label={t("canvas.removeSource")} tone="danger" onClick={() => removeSource(s)} data-testid="remove-source">
                <Trash2 size={14} />
              </IconButton>
            </li>
          ))}
        </ul>
        {current && (
          <ul className="source-items">
            {(items.data ?? []).map((i) => (
              <li key={i.id}>
                <div>
                  <strong>{i.title}</strong>
                  <p className="muted small">{i.snippet.slice(0, 200)}</p>
                </div>
                <Button size="sm" onClick={() => add.mutate(i.id)}>
                  {t("canvas.select")}
                </Button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </Dialog>
  );
}
