// The rows of an endpoint's form: query parameters and plain headers (a
// name and a template each), and secret headers — a name and a password
// field. A secret the backend holds sealed shows "set" and is never read
// back; typing over it replaces it, leaving it empty keeps it.

import { useTranslation } from "react-i18next";
import { KeyRound, Plus, X } from "lucide-react";

import { Button, IconButton } from "../../components/Button";
import { emptyPair, emptySecret, type PairRow, type SecretRow } from "./endpointDraft";

interface PairRowsProps {
  kind: "query" | "headers";
  rows: PairRow[];
  onChange(rows: PairRow[]): void;
  error?: string | null;
}

export function PairRows({ kind, rows, onChange, error }: PairRowsProps) {
  const { t } = useTranslation();
  const update = (key: string, change: Partial<PairRow>) => onChange(rows.map((r) => (r.key === key ? { ...r, ...change } : r)));
  const legendId = `endpoint-${kind}-legend`;
  return (
    <fieldset className={error ? "field field-invalid mcp-vars" : "field mcp-vars"} aria-labelledby={legendId} data-testid={`endpoint-${kind}`}>
      <legend className="field-label" id={legendId}>
        {t(`endpoints.fields.${kind}`)}
      </legend>
      {rows.length === 0 && <p className="field-hint">{t(kind === "query" ? "endpoints.pairs.noneQuery" : "endpoints.pairs.noneHeaders")}</p>}
      {rows.map((row, index) => (
        <div key={row.key} className="endpoint-pair-row">
          <input
            className="input mono"
            value={row.name}
            spellCheck={false}
            placeholder={kind === "query" ? "city" : "Accept"}
            aria-label={t("endpoints.pairs.name", { index: index + 1 })}
            onChange={(e) => update(row.key, { name: e.target.value })}
            data-testid={`endpoint-${kind}-name-${index}`}
          />
          <input
            className="input mono"
            value={row.value}
            spellCheck={false}
            placeholder={kind === "query" ? "{{city}}" : "application/json"}
            aria-label={t("endpoints.pairs.value", { index: index + 1 })}
            onChange={(e) => update(row.key, { value: e.target.value })}
            data-testid={`endpoint-${kind}-value-${index}`}
          />
          <IconButton label={t("endpoints.pairs.remove", { index: index + 1 })} onClick={() => onChange(rows.filter((r) => r.key !== row.key))}>
            <X size={14} />
          </IconButton>
        </div>
      ))}
      {error && (
        <p className="field-error" role="alert" data-testid={`error-endpoint-${kind}`}>
          {error}
        </p>
      )}
      <Button size="sm" variant="ghost" icon={<Plus size={14} />} onClick={() => onChange([...rows, emptyPair()])} data-testid={`endpoint-${kind}-add`}>
        {t(kind === "query" ? "endpoints.pairs.addQuery" : "endpoints.pairs.addHeader")}
      </Button>
    </fieldset>
  );
}

interface SecretRowsProps {
  rows: SecretRow[];
  onChange(rows: SecretRow[]): void;
  error?: string | null;
}

export function SecretRows({ rows, onChange, error }: SecretRowsProps) {
  const { t } = useTranslation();
  const update = (key: string, change: Partial<SecretRow>) => onChange(rows.map((r) => (r.key === key ? { ...r, ...change } : r)));
  return (
    <fieldset className={error ? "field field-invalid mcp-vars" : "field mcp-vars"} aria-labelledby="endpoint-secrets-legend" data-testid="endpoint-secrets">
      <legend className="field-label" id="endpoint-secrets-legend">
        <KeyRound size={13} aria-hidden="true" /> {t("endpoints.fields.secretHeaders")}
      </legend>
      {rows.length === 0 && <p className="field-hint">{t("endpoints.secrets.none")}</p>}
      {rows.map((row, index) => (
        <div key={row.key} className="endpoint-pair-row">
          <input
            className="input mono"
            value={row.name}
            spellCheck={false}
            placeholder="Authorization"
            aria-label={t("endpoints.pairs.name", { index: index + 1 })}
            onChange={(e) => update(row.key, { name: e.target.value })}
            data-testid={`endpoint-secret-name-${index}`}
          />
          <input
            className="input mono"
            type="password"
            value={row.value}
            spellCheck={false}
            autoComplete="new-password"
            placeholder={row.stored ? t("endpoints.secrets.set") : t("endpoints.secrets.placeholder")}
            aria-label={t("endpoints.secrets.value", { index: index + 1 })}
            onChange={(e) => update(row.key, { value: e.target.value })}
            data-testid={`endpoint-secret-value-${index}`}
          />
          <IconButton label={t("endpoints.pairs.remove", { index: index + 1 })} onClick={() => onChange(rows.filter((r) => r.key !== row.key))}>
            <X size={14} />
          </IconButton>
        </div>
      ))}
      <p className="field-hint">{t("endpoints.secrets.hint")}</p>
      {error && (
        <p className="field-error" role="alert" data-testid="error-endpoint-secrets">
          {error}
        </p>
      )}
      <Button size="sm" variant="ghost" icon={<Plus size={14} />} onClick={() => onChange([...rows, emptySecret()])} data-testid="endpoint-secrets-add">
        {t("endpoints.secrets.add")}
      </Button>
    </fieldset>
  );
}
