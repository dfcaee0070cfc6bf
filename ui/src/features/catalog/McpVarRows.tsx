// Environment variables (a program) or headers (a URL) as rows: a name, a
// value and whether it is secret. A secret is typed into a password field
// and sealed by the backend; one already stored shows only its mask, and
// stays as it is unless a new value is typed over it.

import { useTranslation } from "react-i18next";
import { Plus, X } from "lucide-react";

import { Button, IconButton } from "../../components/Button";
import { emptyRow, type VarRow } from "./mcpDraft";

interface McpVarRowsProps {
  /** "env" or "headers": the labels and test ids. */
  kind: "env" | "headers";
  rows: VarRow[];
  onChange(rows: VarRow[]): void;
  error?: string | null;
}

export function McpVarRows({ kind, rows, onChange, error }: McpVarRowsProps) {
  const { t } = useTranslation();
  const update = (key: string, change: Partial<VarRow>) => onChange(rows.map((r) => (r.key === key ? { ...r, ...change } : r)));
  const legendId = `mcp-${kind}-legend`;
  return (
    <fieldset className={error ? "field field-invalid mcp-vars" : "field mcp-vars"} aria-labelledby={legendId} data-testid={`mcp-${kind}`}>
      <legend className="field-label" id={legendId}>
        {t(`mcp.fields.${kind}`)}
      </legend>
      {rows.length === 0 && <p className="field-hint">{t(`mcp.vars.none.${kind}`)}</p>}
      {rows.map((row, index) => (
        <div key={row.key} className="mcp-var-row" data-testid={`mcp-${kind}-row-${index}`}>
          <input
            className="input mono"
            value={row.name}
            spellCheck={false}
            placeholder={kind === "env" ? "API_KEY" : "Authorization"}
            aria-label={t("mcp.vars.name", { index: index + 1 })}
            onChange={(e) => update(row.key, { name: e.target.value })}
            data-testid={`mcp-${kind}-name-${index}`}
          />
          <input
            className="input mono"
            type={row.secret ? "password" : "text"}
            value={row.value}
            spellCheck={false}
            autoComplete="off"
            placeholder={row.secret && row.mask ? row.mask : t("mcp.vars.valuePlaceholder")}
            title={row.secret && row.mask ? t("mcp.vars.keepSecret") : undefined}
            aria-label={t("mcp.vars.value", { index: index + 1 })}
            onChange={(e) => update(row.key, { value: e.target.value })}
            data-testid={`mcp-${kind}-value-${index}`}
          />
          <label className="check mcp-secret">
            <input type="checkbox" checked={row.secret} onChange={(e) => update(row.key, { secret: e.target.checked })} data-testid={`mcp-${kind}-secret-${index}`} />
            <span>{t("mcp.vars.secret")}</span>
          </label>
          <IconButton label={t("mcp.vars.remove", { index: index + 1 })} onClick={() => onChange(rows.filter((r) => r.key !== row.key))}>
            <X size={14} />
          </IconButton>
        </div>
      ))}
      {rows.some((r) => r.secret && r.mask) && <p className="field-hint">{t("mcp.vars.keepSecret")}</p>}
      {error && (
        <p className="field-error" role="alert" data-testid={`error-mcp-${kind}`}>
          {error}
        </p>
      )}
      <Button size="sm" variant="ghost" icon={<Plus size={14} />} onClick={() => onChange([...rows, emptyRow()])} data-testid={`mcp-${kind}-add`}>
        {t(`mcp.vars.add.${kind}`)}
      </Button>
    </fieldset>
  );
}
