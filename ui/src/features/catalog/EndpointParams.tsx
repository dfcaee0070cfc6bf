// The parameters an endpoint takes — what the model fills in. A simple
// editor (one row each: name, type, required, description) covers most
// endpoints; the JSON mode edits the whole schema for the rest. Names the
// templates use but no row declares are offered as one-click rows.

import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Plus, X } from "lucide-react";

import { Button, IconButton } from "../../components/Button";
import { Segmented } from "../../components/Segmented";
import {
  emptyParam,
  PARAM_TYPES,
  switchSchemaMode,
  undeclaredParams,
  type EndpointDraft,
  type ParamRow,
  type ParamType,
  type SchemaMode,
} from "./endpointDraft";

interface EndpointParamsProps {
  draft: EndpointDraft;
  onChange(draft: EndpointDraft): void;
  error?: string | null;
}

export function EndpointParams({ draft, onChange, error }: EndpointParamsProps) {
  const { t } = useTranslation();
  const [problem, setProblem] = useState<string | null>(null);
  const rows = draft.params;
  const setRows = (params: ParamRow[]) => onChange({ ...draft, params });
  const update = (key: string, change: Partial<ParamRow>) => setRows(rows.map((r) => (r.key === key ? { ...r, ...change } : r)));
  const missing = undeclaredParams(draft);
  const switchTo = (mode: SchemaMode) => {
    const next = switchSchemaMode(draft, mode);
    if (next === "tooComplex") setProblem(t("endpoints.params.tooComplex"));
    else if (next === "invalidJson") setProblem(t("endpoints.dialog.schemaInvalid"));
    else {
      setProblem(null);
      onChange(next);
    }
  };
  const modes: { value: SchemaMode; label: string; testId: string }[] = [
    { value: "simple", label: t("endpoints.params.simple"), testId: "endpoint-params-simple" },
    { value: "json", label: t("endpoints.params.json"), testId: "endpoint-params-json" },
  ];
  const shown = problem ?? error;
  return (
    <fieldset className={shown ? "field field-invalid mcp-vars" : "field mcp-vars"} aria-labelledby="endpoint-params-legend" data-testid="endpoint-params">
      <div className="endpoint-params-head">
        <legend className="field-label" id="endpoint-params-legend">
          {t("endpoints.fields.params")}
        </legend>
        <Segmented<SchemaMode> label={t("endpoints.fields.params")} value={draft.schemaMode} options={modes} onChange={switchTo} />
      </div>
      {draft.schemaMode === "json" ? (
        <textarea
          className="input textarea mono"
          rows={8}
          value={draft.schemaText}
          spellCheck={false}
          aria-label={t("endpoints.params.json")}
          onChange={(e) => onChange({ ...draft, schemaText: e.target.value })}
          data-testid="endpoint-schema-json"
        />
      ) : (
        <>
          {rows.length === 0 && <p className="field-hint">{t("endpoints.params.none")}</p>}
          {rows.map((row, index) => (
            <div key={row.key} className="endpoint-param-row" data-testid={`endpoint-param-${index}`}>
              <input
                className="input mono"
                value={row.name}
                spellCheck={false}
                placeholder="city"
                aria-label={t("endpoints.params.name", { index: index + 1 })}
                onChange={(e) => update(row.key, { name: e.target.value })}
                data-testid={`endpoint-param-name-${index}`}
              />
              <select
                className="input"
                value={row.type}
                aria-label={t("endpoints.params.type", { index: index + 1 })}
                onChange={(e) => update(row.key, { type: e.target.value as ParamType })}
                data-testid={`endpoint-param-type-${index}`}
              >
                {PARAM_TYPES.map((type) => (
                  <option key={type} value={type}>
                    {t(`endpoints.params.types.${type}`)}
                  </option>
                ))}
              </select>
              <label className="check">
                <input type="checkbox" checked={row.required} onChange={(e) => update(row.key, { required: e.target.checked })} data-testid={`endpoint-param-required-${index}`} />
                <span>{t("endpoints.params.required")}</span>
              </label>
              <input
                className="input"
                value={row.description}
                placeholder={t("endpoints.params.descriptionPlaceholder")}
                aria-label={t("endpoints.params.description", { index: index + 1 })}
                onChange={(e) => update(row.key, { description: e.target.value })}
              />
              <IconButton label={t("endpoints.pairs.remove", { index: index + 1 })} onClick={() => setRows(rows.filter((r) => r.key !== row.key))}>
                <X size={14} />
              </IconButton>
            </div>
          ))}
          {missing.length > 0 && (
            <div className="endpoint-undeclared" data-testid="endpoint-undeclared">
              <span className="muted small">{t("endpoints.params.undeclared")}</span>
              {missing.map((name) => (
                <Button key={name} size="sm" icon={<Plus size={13} />} onClick={() => setRows([...rows, emptyParam(name)])} data-testid={`endpoint-declare-${name}`}>
                  {t("endpoints.params.declare", { name })}
                </Button>
              ))}
            </div>
          )}
          <Button size="sm" variant="ghost" icon={<Plus size={14} />} onClick={() => setRows([...rows, emptyParam()])} data-testid="endpoint-param-add">
            {t("endpoints.params.add")}
          </Button>
        </>
      )}
      {shown && (
        <p className="field-error" role="alert" data-testid="error-endpoint-params">
          {shown}
        </p>
      )}
    </fieldset>
  );
}
