// Declaring or editing an HTTP endpoint. The fields are on the left; on the
// right, live, the request the model would send with the sample arguments
// — computed by the backend from the draft, secrets masked there — and a
// Test button that saves what changed and calls the endpoint for real.

import { useMemo, useState } from "react";
import type { FormEvent } from "react";
import { keepPreviousData, useMutation, useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { CirclePlay } from "lucide-react";

import { endpointsApi, type ApiError, type Endpoint, type EndpointTestResult } from "../../api";
import { errorText, fieldErrorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Field } from "../../components/Field";
import { Spinner } from "../../components/Spinner";
import { useDebounced } from "../../components/useDebounced";
import { EndpointParams } from "./EndpointParams";
import { RequestView, TestResultView } from "./EndpointPreview";
import { PairRows, SecretRows } from "./EndpointRows";
import { draftOfEndpoint, emptyDraft, inputOf, METHODS, parseSample, sampleFor, type EndpointDraft } from "./endpointDraft";
import { useEndpointRefresh } from "./EndpointRow";

/** The backend's field names this form shows next to a field. */
const FIELDS = ["name", "slug", "description", "url", "query", "headers", "secretHeaders", "body", "paramSchema", "timeoutSeconds"];

interface EndpointDialogProps {
  endpoint?: Endpoint;
  onClose(): void;
}

export function EndpointDialog({ endpoint, onClose }: EndpointDialogProps) {
  const { t } = useTranslation();
  const refresh = useEndpointRefresh();
  const [draft, setDraft] = useState<EndpointDraft>(() => (endpoint ? draftOfEndpoint(endpoint) : emptyDraft()));
  const [saved, setSaved] = useState<Endpoint | undefined>(endpoint);
  const [sample, setSample] = useState<string | null>(null);
  const [result, setResult] = useState<EndpointTestResult | null>(null);
  const set = <K extends keyof EndpointDraft>(key: K) => (value: EndpointDraft[K]) => setDraft((was) => ({ ...was, [key]: value }));

  // The sample follows the parameters until the person edits it.
  const sampleText = sample ?? sampleFor(draft);
  const args = parseSample(sampleText);
  const built = inputOf(draft, { enabled: saved?.enabled ?? true, slug: saved?.id ?? null });
  const input = "input" in built ? built.input : null;
  // Whether what the form holds differs from what was saved last.
  const savedKey = useMemo(() => {
    if (!saved) return null;
    const was = inputOf(draftOfEndpoint(saved), { enabled: saved.enabled, slug: saved.id });
    return "input" in was ? JSON.stringify(was.input) : null;
  }, [saved]);
  const dirty = !saved || JSON.stringify(input) !== savedKey;

  const ready = input && args && draft.name.trim() && draft.description.trim() && draft.url.trim();
  const previewKey = useDebounced(ready ? JSON.stringify([input, args]) : null, 250);
  const preview = useQuery({
    queryKey: ["endpoint-preview", previewKey],
    queryFn: () => {
      const [i, a] = JSON.parse(previewKey ?? "[]") as [NonNullable<typeof input>, NonNullable<typeof args>];
      return endpointsApi.preview(i, a);
    },
    enabled: previewKey !== null,
    retry: false,
    placeholderData: keepPreviousData,
  });

  const save = useMutation<Endpoint, ApiError>({
    mutationFn: () => {
      if (!input) throw new Error("the form is not complete");
      return saved ? endpointsApi.update(saved.id, input) : endpointsApi.create(input);
    },
    onSuccess: (e) => {
      setSaved(e);
      // Secret values typed are sealed now: their rows show "set".
      setDraft(draftOfEndpoint(e));
      refresh();
    },
  });
  const test = useMutation<EndpointTestResult, ApiError>({
    mutationFn: async () => {
      const target = dirty ? await save.mutateAsync() : saved;
      if (!target || !args) throw new Error("nothing to test");
      return endpointsApi.test(target.id, args);
    },
    onMutate: () => setResult(null),
    onSuccess: setResult,
  });

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (input) save.mutate();
  };

  const problems = save.error?.fieldProblems() ?? {};
  const localError = "error" in built ? built.error : null;
  const fieldError = (field: string) => {
    if (localError === field) {
      if (field === "body") return t("endpoints.dialog.bodyInvalid");
      if (field === "paramSchema") return t("endpoints.dialog.schemaInvalid");
      return t("endpoints.dialog.timeoutWhole");
    }
    return fieldErrorText(t, problems[field], save.error);
  };
  const generalError = save.error && !FIELDS.some((f) => problems[f]) ? errorText(t, save.error) : null;
  const title = saved ? t("endpoints.dialog.editTitle", { name: saved.name }) : t("endpoints.dialog.addTitle");

  return (
    <Dialog
      title={title}
      onClose={onClose}
      closeLabel={t("common.close")}
      testId="endpoint-dialog"
      width={1120}
      footer={
        <>
          <Button variant="ghost" onClick={onClose} data-testid="endpoint-dialog-close">
            {saved && !dirty ? t("common.done") : t("common.cancel")}
          </Button>
          <Button variant="primary" busy={save.isPending} disabled={!input || (Boolean(saved) && !dirty)} onClick={() => submit()} data-testid="endpoint-save">
            {saved ? t("endpoints.dialog.save") : t("endpoints.dialog.add")}
          </Button>
        </>
      }
    >
      <div className="endpoint-dialog">
        <form className="form endpoint-form" onSubmit={submit} noValidate>
          {generalError && <Banner tone="danger">{generalError}</Banner>}
          {save.isSuccess && saved && !dirty && (
            <Banner tone="success" testId="endpoint-saved">
              {t("endpoints.dialog.saved", { tool: saved.tool })}
            </Banner>
          )}
          <Field id="endpoint-name" label={t("endpoints.fields.name")} error={fieldError("name") ?? fieldError("slug")} hint={saved ? t("endpoints.dialog.idStays", { tool: saved.tool }) : t("endpoints.dialog.idFromName")}>
            <input id="endpoint-name" className="input" value={draft.name} onChange={(e) => set("name")(e.target.value)} aria-invalid={Boolean(problems.name)} />
          </Field>
          <Field id="endpoint-description" label={t("endpoints.fields.description")} error={fieldError("description")} hint={t("endpoints.dialog.descriptionHint")}>
            <textarea id="endpoint-description" className="input textarea" rows={2} value={draft.description} onChange={(e) => set("description")(e.target.value)} aria-invalid={Boolean(problems.description)} />
          </Field>
          <div className="endpoint-target">
            <Field id="endpoint-method" label={t("endpoints.fields.method")}>
              <select id="endpoint-method" className="input" value={draft.method} onChange={(e) => set("method")(e.target.value as EndpointDraft["method"])}>
                {METHODS.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="endpoint-url" label={t("endpoints.fields.url")} error={fieldError("url")} hint={t("endpoints.dialog.urlHint", { example: "{{param}}" })}>
              <input
                id="endpoint-url"
                className="input mono"
                value={draft.url}
                spellCheck={false}
                placeholder="https://api.example.com/v1/items/{{id}}"
                onChange={(e) => set("url")(e.target.value)}
                aria-invalid={Boolean(problems.url)}
              />
            </Field>
          </div>
          <PairRows kind="query" rows={draft.query} onChange={set("query")} error={fieldError("query")} />
          <PairRows kind="headers" rows={draft.headers} onChange={set("headers")} error={fieldError("headers")} />
          <SecretRows rows={draft.secrets} onChange={set("secrets")} error={fieldError("secretHeaders")} />
          {draft.method !== "GET" && (
            <Field id="endpoint-body" label={t("endpoints.fields.body")} error={fieldError("body")} hint={t("endpoints.dialog.bodyHint", { example: '"{{p}}"' })}>
              <textarea
                id="endpoint-body"
                className="input textarea mono"
                rows={4}
                value={draft.body}
                spellCheck={false}
                placeholder={'{ "title": "{{title}}", "count": "{{count}}" }'}
                onChange={(e) => set("body")(e.target.value)}
              />
            </Field>
          )}
          <EndpointParams draft={draft} onChange={setDraft} error={fieldError("paramSchema")} />
          <Field id="endpoint-timeout" label={t("endpoints.fields.timeout")} error={fieldError("timeoutSeconds")} hint={t("endpoints.dialog.timeoutHint")}>
            <input id="endpoint-timeout" className="input mcp-timeout" inputMode="numeric" value={draft.timeout} placeholder="30" onChange={(e) => set("timeout")(e.target.value)} />
          </Field>
          <p className="muted small">{t("endpoints.dialog.localNote")}</p>
          <button type="submit" hidden />
        </form>
        <aside className="endpoint-side" aria-live="polite">
          <h3 className="endpoint-side-title">{t("endpoints.preview.title")}</h3>
          {!previewKey ? (
            <p className="muted small" data-testid="endpoint-preview-waiting">
              {t("endpoints.preview.waiting")}
            </p>
          ) : preview.error ? (
            <Banner tone="warning" testId="endpoint-preview-error">
              {errorText(t, preview.error as ApiError)}
            </Banner>
          ) : preview.data ? (
            <RequestView request={preview.data} testId="endpoint-preview" />
          ) : (
            <Spinner size={16} />
          )}
          <Field id="endpoint-sample" label={t("endpoints.preview.sample")} error={args ? null : t("endpoints.preview.sampleInvalid")}>
            <textarea id="endpoint-sample" className="input textarea mono" rows={4} value={sampleText} spellCheck={false} onChange={(e) => setSample(e.target.value)} />
          </Field>
          <Button icon={<CirclePlay size={15} />} busy={test.isPending} disabled={!input || !args} onClick={() => test.mutate()} data-testid="endpoint-test">
            {dirty ? t("endpoints.test.saveAndRun") : t("endpoints.test.run")}
          </Button>
          {test.error && !save.error && <Banner tone="danger" testId="endpoint-test-error">{errorText(t, test.error)}</Banner>}
          {result && <TestResultView result={result} onClose={() => setResult(null)} />}
        </aside>
      </div>
    </Dialog>
  );
}
