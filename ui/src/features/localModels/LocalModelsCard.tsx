// Settings → Providers & models: the models on this computer, their size on
// disk, whether the engine holds one in memory (Load puts one there so its
// first answer starts at once, Unload frees the memory), Delete (which frees
// the disk), and the library, a URL or a file to add another.

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Cpu, Trash2 } from "lucide-react";

import { localModelsApi, type ApiError, type LocalModel } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { errorText } from "../../app/errorText";
import { providerKeys } from "../providers/queries";
import { runtimeKeys } from "../runs/queries";
import { DownloadModel } from "./DownloadModel";
import { formatBytes } from "./format";
import { localModelKeys, localModelsQuery } from "./queries";

/** How often the card looks again at what the engine holds. */
const LOADED_REFRESH_MS = 5000;

export function LocalModelsCard() {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const models = useQuery({ ...localModelsQuery, refetchInterval: LOADED_REFRESH_MS });
  const [adding, setAdding] = useState(false);
  const refresh = () => {
    for (const key of [localModelKeys.local, providerKeys.providers, providerKeys.models, runtimeKeys.defaultModel]) {
      void client.invalidateQueries({ queryKey: key });
    }
  };
  const remove = useMutation<null, ApiError, string>({ mutationFn: localModelsApi.remove, onSettled: refresh });
  const load = useMutation<null, ApiError, string>({ mutationFn: localModelsApi.load, onSettled: refresh });
  const unload = useMutation<null, ApiError, void>({ mutationFn: () => localModelsApi.unload(), onSettled: refresh });
  const failed = remove.error ?? load.error ?? unload.error;
  const list = models.data ?? [];
  return (
    <section className="card local-models" aria-labelledby="local-models-title" data-testid="local-models">
      <header className="local-models-head">
        <Cpu size={18} aria-hidden="true" />
        <div>
          <h3 id="local-models-title">{t("localModels.card.title")}</h3>
          <p className="muted small">{t("localModels.card.body")}</p>
        </div>
        {list.length > 0 && !adding && (
          <Button variant="secondary" size="sm" onClick={() => setAdding(true)} data-testid="local-models-add">
            {t("localModels.card.add")}
          </Button>
        )}
      </header>
      {list.length > 0 && (
        <ul className="local-model-list">
          {list.map((m) => (
            <LocalModelRow
              key={m.id}
              model={m}
              size={formatBytes(m.bytes, i18n.language)}
              busy={remove.isPending || unload.isPending || load.isPending}
              loading={load.isPending && load.variables === m.name}
              onLoad={() => load.mutate(m.name)}
              onUnload={() => unload.mutate()}
              onRemove={() => remove.mutate(m.name)}
            />
          ))}
        </ul>
      )}
      {(list.length === 0 || adding) && <DownloadModel headline={false} onDownloaded={() => setAdding(false)} />}
      {failed && <Banner tone="danger">{errorText(t, failed)}</Banner>}
    </section>
  );
}

type RowProps = { model: LocalModel; size: string; busy: boolean; loading: boolean; onLoad(): void; onUnload(): void; onRemove(): void };

function LocalModelRow({ model, size, busy, loading, onLoad, onUnload, onRemove }: RowProps) {
  const { t } = useTranslation();
  const state = model.downloading ? "downloading" : model.loaded ? "loaded" : loading ? "loading" : "onDisk";
  return (
    <li className="local-model" data-testid={`local-model-${model.name}`}>
      <div className="local-model-text">
        <strong className="mono">{model.name}</strong>
        <span className="muted small">{size}</span>
        <span className={`connect-badge local-model-state state-${state}`} data-testid="local-model-state">
          {t(`localModels.card.state.${state}`)}
        </span>
      </div>
      {model.loaded ? (
        <Button variant="ghost" size="sm" busy={busy} onClick={onUnload} data-testid="local-model-unload">
          {t("localModels.card.unload")}
        </Button>
      ) : (
        !model.downloading && (
          <Button variant="ghost" size="sm" busy={loading} disabled={busy} onClick={onLoad} data-testid="local-model-load">
            {t("localModels.card.load")}
          </Button>
        )
      )}
      <Button variant="ghost" size="sm" icon={<Trash2 size={14} />} busy={busy} onClick={onRemove} aria-label={t("localModels.card.remove", { name: model.name })} data-testid="local-model-remove">
        {t("localModels.card.delete")}
      </Button>
    </li>
  );
}
