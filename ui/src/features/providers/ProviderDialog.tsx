import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Eye, EyeOff } from "lucide-react";

import { api, type ApiError, type Provider, type ProviderKind } from "../../api";
import { Banner } from "../../components/Banner";
import { Button, IconButton } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Field } from "../../components/Field";
import { Segmented } from "../../components/Segmented";
import { errorText, fieldErrorText } from "../../app/errorText";
import { KIND_EXAMPLES } from "./kinds";
import { kindsQuery, providerKeys } from "./queries";

interface ProviderDialogProps {
  /** The provider to edit; absent to add a new one. */
  provider?: Provider;
  /** Opened to fix a refused key: the key field has the focus. */
  focusKey?: boolean;
  onClose(): void;
}

const FIELDS = ["kind", "name", "baseUrl", "apiKey"] as const;

export function ProviderDialog({ provider, focusKey = false, onClose }: ProviderDialogProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const kinds = useQuery(kindsQuery).data ?? [];
  const editing = provider !== undefined;

  const [kind, setKind] = useState<ProviderKind>(provider?.kind ?? "openai_compatible");
  const [name, setName] = useState(provider?.name ?? "");
  const [baseUrl, setBaseUrl] = useState(provider?.baseUrl ?? "");
  const [apiKey, setApiKey] = useState("");
  const [showKey, setShowKey] = useState(false);
  const [removeKey, setRemoveKey] = useState(false);

  const save = useMutation<Provider, ApiError>({
    mutationFn: () =>
      provider
        ? api.updateProvider(provider.id, { name, baseUrl, apiKey: apiKey || null, removeApiKey: removeKey })
        : api.createProvider({ name, kind, baseUrl: baseUrl || null, apiKey: apiKey || null }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: providerKeys.providers });
      onClose();
    },
  });

  const problems = save.error?.fieldProblems() ?? {};
  const generalError = save.error && !FIELDS.some((f) => problems[f]) ? errorText(t, save.error) : null;
  const kindInfo = kinds.find((k) => k.kind === kind);
  const example = KIND_EXAMPLES[kind];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <Dialog
      title={editing ? t("providers.editTitle", { name: provider.name }) : t("providers.createTitle")}
      onClose={onClose}
      closeLabel={t("common.close")}
      testId="provider-dialog"
      footer={
        <>
          <Button variant="ghost" onClick={onClose}>
            {t("common.cancel")}
          </Button>
          <Button variant="primary" type="submit" form="provider-form" busy={save.isPending} data-testid="provider-submit">
            {editing ? t("common.save") : t("providers.create")}
          </Button>
        </>
      }
    >
      <form id="provider-form" className="form" onSubmit={submit} noValidate>
        {generalError && <Banner tone="danger">{generalError}</Banner>}
        <div className="field">
          <span className="field-label">{t("providers.fields.kind")}</span>
          <Segmented<ProviderKind>
            label={t("providers.fields.kind")}
            value={kind}
            disabled={editing}
            onChange={setKind}
            options={(kinds.length ? kinds.map((k) => k.kind) : (["openai_compatible", "anthropic", "ollama"] as const)).map(
              (k) => ({ value: k, label: t(`providers.kinds.${k}`), testId: `kind-${k}` }),
            )}
          />
          <p className={problems.kind ? "field-error" : "field-hint"} data-testid={problems.kind ? "error-kind" : undefined}>
            {fieldErrorText(t, problems.kind) ?? t(`providers.kindHelp.${kind}`)}
          </p>
        </div>
        <Field
          id="name"
          label={t("providers.fields.name")}
          error={fieldErrorText(t, problems.name)}
          hint={editing ? t("providers.hints.nameLocked", { id: provider.id }) : undefined}
        >
          <input
            id="name"
            className="input"
            value={name}
            autoComplete="off"
            placeholder={t("providers.placeholders.name", { example: example.name })}
            aria-invalid={Boolean(problems.name)}
            onChange={(e) => setName(e.target.value)}
          />
        </Field>
        <Field
          id="baseUrl"
          label={t("providers.fields.baseUrl")}
          error={fieldErrorText(t, problems.baseUrl)}
          hint={kindInfo && t("providers.hints.baseUrl", { url: kindInfo.defaultBaseUrl })}
        >
          <input
            id="baseUrl"
            className="input mono"
            value={baseUrl}
            autoComplete="off"
            spellCheck={false}
            placeholder={kindInfo?.defaultBaseUrl}
            aria-invalid={Boolean(problems.baseUrl)}
            onChange={(e) => setBaseUrl(e.target.value)}
          />
        </Field>
        <Field
          id="apiKey"
          label={t("providers.fields.apiKey")}
          error={fieldErrorText(t, problems.apiKey)}
          hint={
            removeKey
              ? t("providers.key.willRemove")
              : kindInfo && !kindInfo.needsApiKey
                ? t("providers.hints.apiKeyOptional")
                : t("providers.hints.apiKey")
          }
        >
          <div className="input-group">
            <input
              id="apiKey"
              className="input mono"
              type={showKey ? "text" : "password"}
              value={apiKey}
              autoComplete="off"
              spellCheck={false}
              disabled={removeKey}
              data-autofocus={focusKey || undefined}
              placeholder={
                provider?.apiKeyMasked
                  ? t("providers.placeholders.apiKeyKeep", { masked: provider.apiKeyMasked })
                  : t("providers.placeholders.apiKey")
              }
              aria-invalid={Boolean(problems.apiKey)}
              onChange={(e) => setApiKey(e.target.value)}
            />
            <IconButton
              label={showKey ? t("providers.key.hide") : t("providers.key.show")}
              onClick={() => setShowKey((v) => !v)}
            >
              {showKey ? <EyeOff size={16} /> : <Eye size={16} />}
            </IconButton>
          </div>
        </Field>
        {provider?.hasApiKey && (
          <label className="checkbox">
            <input type="checkbox" checked={removeKey} onChange={(e) => setRemoveKey(e.target.checked)} />
            {t("providers.key.remove")}
          </label>
        )}
      </form>
    </Dialog>
  );
}
