import { useState } from "react";
import type { FormEvent } from "react";
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import type { TFunction } from "i18next";
import { Eye, EyeOff, Search } from "lucide-react";

import {
  webSearchApi,
  type ApiError,
  type WebSearchBackend,
  type WebSearchConfig,
  type WebSearchTest,
} from "../../api";
import { fieldErrorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button, IconButton } from "../../components/Button";
import { Field } from "../../components/Field";
import { Spinner } from "../../components/Spinner";

const keys = { config: ["web-search"] as const, backends: ["web-search-backends"] as const };

const configQuery = queryOptions({ queryKey: keys.config, queryFn: webSearchApi.get });
const backendsQuery = queryOptions({ queryKey: keys.backends, queryFn: webSearchApi.backends, staleTime: Infinity });

/** A failed test in words: the reason's sentence, else the backend's own. */
function testErrorText(t: TFunction, error: ApiError): string {
  const reason = error.details?.reason;
  return reason
    ? t(`webSearch.errors.${reason}`, { message: error.message, defaultValue: error.message })
    : error.message;
}

/** The service `web_search` asks: SearXNG, Brave Search or Tavily. */
export function WebSearchSection() {
  const { t } = useTranslation();
  const config = useQuery(configQuery);
  const backends = useQuery(backendsQuery);
  return (
    <section className="section" data-testid="section-search">
      <header className="section-head">
        <div>
          <h2>{t("webSearch.title")}</h2>
          <p className="section-subtitle">{t("webSearch.subtitle")}</p>
        </div>
      </header>
      {(config.isPending || backends.isPending) && (
        <div className="loading">
          <Spinner /> {t("common.loading")}
        </div>
      )}
      {(config.isError || backends.isError) && <Banner tone="danger">{t("webSearch.loadFailed")}</Banner>}
      {config.data && backends.data && (
        // Keyed by the saved state: after a save or a clear the form starts from it.
        <WebSearchForm key={config.data.updatedAt ?? "none"} config={config.data} />
      )}
    </section>
  );
}

function WebSearchForm({ config }: { config: WebSearchConfig }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const backends = useQuery(backendsQuery).data ?? [];
  const [backend, setBackend] = useState<WebSearchBackend>(config.backend ?? "searxng");
  const [baseUrl, setBaseUrl] = useState(config.baseUrl ?? "");
  const [apiKey, setApiKey] = useState("");
  const [showKey, setShowKey] = useState(false);
  const [query, setQuery] = useState("");
  const info = backends.find((b) => b.backend === backend);
  const stored = config.backend === backend;

  const saved = (next: WebSearchConfig) => client.setQueryData(keys.config, next);
  const save = useMutation<WebSearchConfig, ApiError>({
    mutationFn: () => webSearchApi.set({ backend, baseUrl: baseUrl || null, apiKey: apiKey || null }),
    onSuccess: saved,
  });
  const clear = useMutation<WebSearchConfig, ApiError>({ mutationFn: webSearchApi.clear, onSuccess: saved });
  const test = useMutation<WebSearchTest, ApiError>({ mutationFn: () => webSearchApi.test(query || null) });
  const problems = save.error?.fieldProblems() ?? {};

  const submit = (event: FormEvent) => {
    event.preventDefault();
    test.reset();
    save.mutate();
  };
  const choose = (next: WebSearchBackend) => {
    setBackend(next);
    setBaseUrl(next === config.backend ? (config.baseUrl ?? "") : "");
    setApiKey("");
  };

  return (
    <>
      <div className="card settings-card">
        <div className="card-title">
          <Search size={18} aria-hidden="true" />
          <h3 data-testid="web-search-state">
            {config.backend
              ? t("webSearch.active", {
                  name: backends.find((b) => b.backend === config.backend)?.label ?? config.backend,
                  url: config.baseUrl,
                })
              : t("webSearch.none")}
          </h3>
        </div>
        {config.backend && !config.toolActive && <Banner tone="warning">{t("webSearch.toolOff")}</Banner>}
        <form className="form" onSubmit={submit}>
          <Field id="web-search-backend" label={t("webSearch.backend")} error={fieldErrorText(t, problems.backend, save.error)}>
            <select
              id="web-search-backend"
              className="input"
              value={backend}
              onChange={(e) => choose(e.target.value as WebSearchBackend)}
              data-testid="web-search-backend"
            >
              {backends.map((b) => (
                <option key={b.backend} value={b.backend}>
                  {b.label}
                </option>
              ))}
            </select>
          </Field>
          <Field
            id="web-search-url"
            label={t("webSearch.baseUrl")}
            hint={info?.defaultBaseUrl ? t("webSearch.baseUrlDefault", { url: info.defaultBaseUrl }) : t("webSearch.baseUrlSearxng")}
            error={fieldErrorText(t, problems.baseUrl, save.error)}
          >
            <input
              id="web-search-url"
              className="input mono"
              value={baseUrl}
              autoComplete="off"
              spellCheck={false}
              placeholder={info?.defaultBaseUrl ?? "http://localhost:8080"}
              aria-invalid={Boolean(problems.baseUrl)}
              onChange={(e) => setBaseUrl(e.target.value)}
              data-testid="web-search-url"
            />
          </Field>
          {info?.needsApiKey && (
            <Field
              id="web-search-key"
              label={t("webSearch.apiKey")}
              hint={t("webSearch.apiKeyHint")}
              error={fieldErrorText(t, problems.apiKey, save.error)}
            >
              <div className="input-group">
                <input
                  id="web-search-key"
                  className="input mono"
                  type={showKey ? "text" : "password"}
                  value={apiKey}
                  autoComplete="off"
                  spellCheck={false}
                  placeholder={
                    stored && config.apiKeyMasked
                      ? t("webSearch.apiKeyKeep", { masked: config.apiKeyMasked })
                      : t("webSearch.apiKeyPlaceholder")
                  }
                  aria-invalid={Boolean(problems.apiKey)}
                  onChange={(e) => setApiKey(e.target.value)}
                  data-testid="web-search-key"
                />
                <IconButton label={showKey ? t("webSearch.hideKey") : t("webSearch.showKey")} onClick={() => setShowKey((v) => !v)}>
                  {showKey ? <EyeOff size={16} /> : <Eye size={16} />}
                </IconButton>
              </div>
            </Field>
          )}
          {save.error && Object.keys(problems).length === 0 && <Banner tone="danger">{save.error.message}</Banner>}
          <div className="button-row">
            <Button type="submit" variant="primary" busy={save.isPending} data-testid="web-search-save">
              {t("common.save")}
            </Button>
            {config.backend && (
              <Button variant="ghost" busy={clear.isPending} onClick={() => clear.mutate()} data-testid="web-search-clear">
                {t("webSearch.clear")}
              </Button>
            )}
          </div>
        </form>
      </div>
      {config.backend && (
        <div className="card settings-card">
          <div className="card-title">
            <h3>{t("webSearch.testTitle")}</h3>
          </div>
          <form
            className="form"
            onSubmit={(e) => {
              e.preventDefault();
              test.mutate();
            }}
          >
            <Field id="web-search-query" label={t("webSearch.query")} hint={t("webSearch.queryHint")}>
              <input
                id="web-search-query"
                className="input"
                value={query}
                placeholder="Colmena"
                onChange={(e) => setQuery(e.target.value)}
                data-testid="web-search-query"
              />
            </Field>
            <div className="button-row">
              <Button type="submit" busy={test.isPending} data-testid="web-search-test">
                {t("webSearch.test")}
              </Button>
            </div>
          </form>
          {test.error && (
            <Banner tone="danger" testId="web-search-test-error">
              {testErrorText(t, test.error)}
            </Banner>
          )}
          {test.data && (
            <div data-testid="web-search-results">
              <p className="muted small">{t("webSearch.found", { count: test.data.results.length })}</p>
              <ol className="web-search-results">
                {test.data.results.map((r) => (
                  <li key={r.url}>
                    <strong>{r.title || r.url}</strong>
                    <div className="mono small">{r.url}</div>
                    {r.snippet && <div className="muted small">{r.snippet}</div>}
                  </li>
                ))}
              </ol>
            </div>
          )}
        </div>
      )}
    </>
  );
}
