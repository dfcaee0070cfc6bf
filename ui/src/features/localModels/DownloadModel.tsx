// "Run a model on this computer" (issue 35): the library's models with their
// size, the memory they need and their licence, the one that suits this
// computer pre-selected, and a download that shows its progress, speed and
// time left and can be cancelled; under "Other sources", a Hugging Face link
// or a GGUF file already on this computer (picked in the native dialog: the
// page never names a path). Used by the first run (first, when no server or
// key is found) and by Settings → Providers & models.

import { useRef, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Download, FolderOpen, HardDriveDownload, Link2, X } from "lucide-react";

import { localModelsApi, type ApiError, type DownloadProgress, type LibraryModel, type Model } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { errorText } from "../../app/errorText";
import { providerKeys } from "../providers/queries";
import { runtimeKeys } from "../runs/queries";
import { formatBytes, formatDuration, percentOf } from "./format";
import { libraryQuery, localModelKeys } from "./queries";

export function DownloadModel({ onDownloaded, headline = true }: { onDownloaded?(model: Model): void; headline?: boolean }) {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const library = useQuery(libraryQuery);
  const [chosen, setChosen] = useState<string | null>(null);
  const [progress, setProgress] = useState<DownloadProgress | null>(null);
  const [url, setUrl] = useState("");
  // What is downloading: a library model (its id) or a link.
  const [source, setSource] = useState<string | null>(null);
  // Which pull is running (none: 0). A Cancel pressed before the backend
  // had begun the download finds nothing to stop: it is said again until
  // it stops one or that pull ends (as MCP's model_pull does).
  const running = useRef(0);
  const pulls = useRef(0);
  const models = library.data ?? [];
  const recommended = models.find((m) => m.recommended) ?? models[0];
  const entry = models.find((m) => m.id === chosen) ?? recommended;
  const refresh = () => {
    for (const key of [localModelKeys.local, providerKeys.providers, providerKeys.models, runtimeKeys.defaultModel]) {
      void client.invalidateQueries({ queryKey: key });
    }
  };
  const pull = useMutation<Model, ApiError, string>({
    mutationFn: (what) => {
      addFile.reset();
      setProgress(null);
      setSource(what);
      pulls.current += 1;
      running.current = pulls.current;
      return localModelsApi.pull(what, setProgress);
    },
    onSettled: () => {
      running.current = 0;
      refresh();
    },
    onSuccess: (model) => onDownloaded?.(model),
  });
  const addFile = useMutation<Model | null, ApiError, void>({
    mutationFn: () => {
      pull.reset();
      return localModelsApi.addFile(t("localModels.other.fileDialog"));
    },
    onSettled: refresh,
    onSuccess: (model) => {
      if (model) onDownloaded?.(model);
    },
  });
  const failure = pull.error ?? addFile.error;
  const size = (bytes: number) => formatBytes(bytes, i18n.language);
  if (!entry) return null;
  return (
    <section className="connect-section download-model" aria-labelledby="download-model-title" data-testid="download-model">
      {headline && (
        <header className="connect-section-head">
          <HardDriveDownload size={18} aria-hidden="true" />
          <div>
            <h3 id="download-model-title">{t("localModels.offer.title")}</h3>
            <p className="muted small">{t("localModels.offer.body")}</p>
          </div>
        </header>
      )}
      {pull.isPending ? (
        <DownloadBar
          progress={progress}
          name={models.find((m) => m.id === source)?.label ?? progress?.name ?? fileOf(source)}
          onCancel={() => {
            // Before its first progress, the download is named by what was asked.
            const name = progress?.name ?? source;
            if (name) void cancelUntilStopped(name, running.current, running);
          }}
        />
      ) : (
        <>
          <div className="download-row">
            <select
              className="input"
              aria-label={t("localModels.offer.choose")}
              value={entry.id}
              onChange={(e) => {
                pull.reset();
                setChosen(e.target.value);
              }}
              data-testid="download-model-choice"
            >
              {models.map((m) => (
                <option key={m.id} value={m.id} disabled={!m.fits}>
                  {optionLabel(t, m, size)}
                </option>
              ))}
            </select>
            <Button variant="primary" icon={<Download size={15} />} onClick={() => pull.mutate(entry.id)} data-testid="download-model-start">
              {t("localModels.offer.download", { size: size(entry.bytes) })}
            </Button>
          </div>
          <p className="muted small download-facts" data-testid="download-model-facts">
            {t(`localModels.goodFor.${entry.id}`, { defaultValue: entry.goodFor })} · {t("localModels.offer.memory", { memory: size(entry.memoryBytes) })} · {entry.licence}
          </p>
          <details className="download-other" data-testid="download-other">
            <summary>{t("localModels.other.title")}</summary>
            <form
              className="download-row"
              onSubmit={(e) => {
                e.preventDefault();
                if (url.trim()) pull.mutate(url.trim());
              }}
            >
              <input
                className="input"
                type="url"
                value={url}
                onChange={(e) => {
                  pull.reset();
                  setUrl(e.target.value);
                }}
                placeholder="https://huggingface.co/…/resolve/main/model.gguf"
                aria-label={t("localModels.other.url")}
                data-testid="download-url"
              />
              <Button type="submit" variant="secondary" icon={<Link2 size={15} />} disabled={!url.trim()} data-testid="download-url-start">
                {t("localModels.other.download")}
              </Button>
            </form>
            <p className="muted small">{t("localModels.other.urlHint")}</p>
            <Button variant="ghost" size="sm" icon={<FolderOpen size={14} />} busy={addFile.isPending} onClick={() => addFile.mutate()} data-testid="download-add-file">
              {t("localModels.other.file")}
            </Button>
          </details>
        </>
      )}
      {failure &&
        (failure.code === "cancelled" ? (
          <p className="muted small" data-testid="download-cancelled">
            {t("localModels.offer.cancelled")}
          </p>
        ) : (
          <Banner tone="danger" testId="download-error">
            {errorText(t, failure)}
          </Banner>
        ))}
    </section>
  );
}

/** The file a link names, shown while it downloads. */
function fileOf(source: string | null): string {
  if (!source) return "";
  const path = source.split(/[?#]/)[0] ?? source;
  const last = path.split("/").filter(Boolean).pop();
  return last ?? source;
}

function optionLabel(t: (key: string, options?: Record<string, unknown>) => string, m: LibraryModel, size: (bytes: number) => string): string {
  const base = `${m.label} · ${size(m.bytes)}`;
  if (!m.fits) return `${base} — ${t("localModels.offer.tooBig")}`;
  return m.recommended ? `${base} — ${t("localModels.offer.recommended")}` : base;
}

/** A download's bar: how much came, how fast, how long is left. */
/** How soon a Cancel that found nothing to stop yet is said again. */
const CANCEL_AGAIN_MS = 200;

async function cancelUntilStopped(name: string, pull: number, running: { current: number }) {
  while (running.current === pull && pull !== 0 && !(await localModelsApi.cancel(name))) {
    await new Promise((resolve) => setTimeout(resolve, CANCEL_AGAIN_MS));
  }
}

export function DownloadBar({ progress, name, onCancel }: { progress: DownloadProgress | null; name: string; onCancel(): void }) {
  const { t, i18n } = useTranslation();
  const pct = progress ? percentOf(progress) : null;
  const size = (bytes: number) => formatBytes(bytes, i18n.language);
  return (
    <div className="download-progress" data-testid="download-progress">
      <div className="download-progress-head">
        <strong>{t("localModels.progress.title", { name })}</strong>
        <Button variant="ghost" size="sm" icon={<X size={14} />} onClick={onCancel} data-testid="download-cancel">
          {t("localModels.progress.cancel")}
        </Button>
      </div>
      <div
        className="progress-track"
        role="progressbar"
        aria-label={t("localModels.progress.title", { name })}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct ?? undefined}
      >
        <span className={pct === null ? "progress-fill progress-unknown" : "progress-fill"} style={{ width: `${pct ?? 100}%` }} />
      </div>
      <p className="muted small" data-testid="download-progress-text">
        {!progress
          ? t("localModels.progress.starting")
          : [
              progress.total ? t("localModels.progress.of", { done: size(progress.downloaded), total: size(progress.total) }) : size(progress.downloaded),
              progress.bytesPerSecond > 0 ? t("localModels.progress.speed", { speed: size(progress.bytesPerSecond) }) : null,
              progress.secondsLeft != null ? t("localModels.progress.left", { time: formatDuration(progress.secondsLeft) }) : null,
            ]
              .filter(Boolean)
              .join(" · ")}
      </p>
    </div>
  );
}
