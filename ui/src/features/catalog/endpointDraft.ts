// An HTTP endpoint as its dialog holds it while a person writes it. Text
// stays as typed (the body and the advanced schema as JSON text, the time
// limit as a string) and becomes the backend's input only when it is
// previewed, tested or saved, so a half-typed field never becomes a request.
//
// Secret headers: a stored one comes back as a name only (the backend never
// returns a value, not even masked). Its row remembers that a sealed value
// exists and sends `null` (keep it) unless the person types a new one.
//
// Parameters: the simple editor keeps one row per parameter (name, type,
// required, description); a schema it cannot show that way (enums, nested
// objects, formats…) opens in the advanced JSON mode instead, so editing
// never drops part of what the person wrote.

import type { Endpoint, EndpointInput, EndpointPair, HttpMethod, JsonValue, SecretHeaderInput } from "../../api";

export const METHODS: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];
export const PARAM_TYPES = ["string", "integer", "number", "boolean", "array"] as const;
export type ParamType = (typeof PARAM_TYPES)[number];

export interface PairRow {
  key: string;
  name: string;
  value: string;
}

export interface SecretRow {
  key: string;
  name: string;
  /** What was typed; "" keeps a stored value. */
  value: string;
  /** The backend holds a sealed value for this name. */
  stored: boolean;
}

export interface ParamRow {
  key: string;
  name: string;
  type: ParamType;
  required: boolean;
  description: string;
}

export type SchemaMode = "simple" | "json";

export interface EndpointDraft {
  name: string;
  description: string;
  method: HttpMethod;
  url: string;
  query: PairRow[];
  headers: PairRow[];
  secrets: SecretRow[];
  /** The JSON body template as typed; "" for no body. */
  body: string;
  schemaMode: SchemaMode;
  params: ParamRow[];
  /** The schema as typed in the advanced mode. */
  schemaText: string;
  /** Seconds, as typed; "" for the default (30). */
  timeout: string;
}

let rowCount = 0;
/** A fresh row key (unique in this window). */
export const rowKey = () => `ep-row-${++rowCount}`;

export const emptyPair = (): PairRow => ({ key: rowKey(), name: "", value: "" });
export const emptySecret = (): SecretRow => ({ key: rowKey(), name: "", value: "", stored: false });
export const emptyParam = (name = ""): ParamRow => ({ key: rowKey(), name, type: "string", required: true, description: "" });

export function emptyDraft(): EndpointDraft {
  return {
    name: "",
    description: "",
    method: "GET",
    url: "",
    query: [],
    headers: [],
    secrets: [],
    body: "",
    schemaMode: "simple",
    params: [],
    schemaText: prettyJson({ type: "object", properties: {}, required: [] }),
    timeout: "",
  };
}

const prettyJson = (value: unknown) => JSON.stringify(value, null, 2);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The simple editor's rows for `schema`, or null when it holds more than they can show. */
export function paramsOfSchema(schema: unknown): ParamRow[] | null {
  if (!isObject(schema)) return null;
  const allowed = new Set(["type", "properties", "required", "additionalProperties"]);
  if (Object.keys(schema).some((k) => !allowed.has(k))) return null;
  const properties = schema.properties ?? {};
  if (!isObject(properties)) return null;
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
  const rows: ParamRow[] = [];
  for (const [name, property] of Object.entries(properties)) {
    if (!isObject(property)) return null;
    const keys = Object.keys(property);
    if (keys.some((k) => k !== "type" && k !== "description" && k !== "items")) return null;
    const type = property.type;
    if (typeof type !== "string" || !(PARAM_TYPES as readonly string[]).includes(type)) return null;
    if ("items" in property && !(type === "array" && isObject(property.items) && property.items.type === "string" && Object.keys(property.items).length === 1)) return null;
    if (property.description !== undefined && typeof property.description !== "string") return null;
    rows.push({ key: rowKey(), name, type: type as ParamType, required: required.includes(name), description: (property.description as string | undefined) ?? "" });
  }
  return rows;
}

/** The schema the simple rows describe (arrays are arrays of strings). */
export function schemaOfParams(rows: readonly ParamRow[]): Record<string, JsonValue> {
  const properties: Record<string, JsonValue> = {};
  const required: string[] = [];
  for (const row of rows) {
    const name = row.name.trim();
    if (!name) continue;
    const property: Record<string, JsonValue> = { type: row.type };
    if (row.type === "array") property.items = { type: "string" };
    if (row.description.trim()) property.description = row.description.trim();
    properties[name] = property;
    if (row.required) required.push(name);
  }
  return { type: "object", properties, required };
}

/** The draft of a saved endpoint. */
export function draftOfEndpoint(endpoint: Endpoint): EndpointDraft {
  const params = paramsOfSchema(endpoint.paramSchema);
  const pairs = (list: readonly EndpointPair[]) => list.map((p) => ({ key: rowKey(), name: p.name, value: p.value }));
  return {
    name: endpoint.name,
    description: endpoint.description,
    method: endpoint.method,
    url: endpoint.url,
    query: pairs(endpoint.query),
    headers: pairs(endpoint.headers),
    secrets: endpoint.secretHeaderNames.map((name) => ({ key: rowKey(), name, value: "", stored: true })),
    body: endpoint.body === null || endpoint.body === undefined ? "" : prettyJson(endpoint.body),
    schemaMode: params ? "simple" : "json",
    params: params ?? [],
    schemaText: prettyJson(endpoint.paramSchema),
    timeout: String(endpoint.timeoutSeconds),
  };
}

/** Switches the parameter editor, carrying what was written across. */
export function switchSchemaMode(draft: EndpointDraft, mode: SchemaMode): EndpointDraft | "tooComplex" | "invalidJson" {
  if (mode === draft.schemaMode) return draft;
  if (mode === "json") return { ...draft, schemaMode: "json", schemaText: prettyJson(schemaOfParams(draft.params)) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(draft.schemaText);
  } catch {
    return "invalidJson";
  }
  const rows = paramsOfSchema(parsed);
  return rows ? { ...draft, schemaMode: "simple", params: rows } : "tooComplex";
}

/** The `{{name}}`s a text uses. */
export function placeholdersIn(text: string): string[] {
  return [...text.matchAll(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g)].map((m) => m[1] ?? "");
}

/** Every parameter the templates use, in order of first use. */
export function usedParams(draft: EndpointDraft): string[] {
  const texts = [draft.url, ...draft.query.map((q) => q.value), ...draft.headers.map((h) => h.value), draft.body];
  return [...new Set(texts.flatMap(placeholdersIn))];
}

/** The parameters used by the templates that the simple editor does not declare. */
export function undeclaredParams(draft: EndpointDraft): string[] {
  if (draft.schemaMode !== "simple") return [];
  const declared = new Set(draft.params.map((p) => p.name.trim()));
  return usedParams(draft).filter((name) => !declared.has(name));
}

export type Built = { input: EndpointInput } | { error: "body" | "paramSchema" | "timeoutSeconds" };

/** Whole seconds between 1 and 120, "" for the default, or invalid. */
export function timeoutOf(text: string): number | null | "invalid" {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  if (!/^\d+$/.test(trimmed)) return "invalid";
  const n = Number(trimmed);
  return n >= 1 && n <= 120 ? n : "invalid";
}

/** The backend's input, or which field cannot become one yet. */
export function inputOf(draft: EndpointDraft, options: { enabled: boolean; slug: string | null }): Built {
  let body: JsonValue | null = null;
  if (draft.body.trim() !== "") {
    try {
      body = JSON.parse(draft.body) as JsonValue;
    } catch {
      return { error: "body" };
    }
  }
  let paramSchema: JsonValue;
  if (draft.schemaMode === "simple") paramSchema = schemaOfParams(draft.params);
  else {
    try {
      paramSchema = JSON.parse(draft.schemaText) as JsonValue;
    } catch {
      return { error: "paramSchema" };
    }
  }
  const timeout = timeoutOf(draft.timeout);
  if (timeout === "invalid") return { error: "timeoutSeconds" };
  const pairs = (rows: readonly PairRow[]) => rows.filter((r) => r.name.trim() !== "" || r.value !== "").map((r) => ({ name: r.name.trim(), value: r.value }));
  const secretHeaders: SecretHeaderInput[] = draft.secrets
    .filter((s) => s.name.trim() !== "" || s.value !== "")
    .map((s) => ({ name: s.name.trim(), value: s.value === "" ? null : s.value }));
  return {
    input: {
      name: draft.name,
      slug: options.slug,
      description: draft.description,
      method: draft.method,
      url: draft.url.trim(),
      query: pairs(draft.query),
      body,
      headers: pairs(draft.headers),
      secretHeaders,
      paramSchema,
      enabled: options.enabled,
      timeoutSeconds: timeout,
    },
  };
}

/** Sample arguments for the preview and the test: every declared parameter
 * with a placeholder value of its type, required ones first. */
export function sampleFor(draft: EndpointDraft): string {
  if (draft.schemaMode !== "simple") return "{}";
  const sample: Record<string, JsonValue> = {};
  const example: Record<ParamType, JsonValue> = { string: "", integer: 1, number: 1, boolean: true, array: [] };
  for (const row of [...draft.params].sort((a, b) => Number(b.required) - Number(a.required))) {
    if (row.name.trim()) sample[row.name.trim()] = example[row.type];
  }
  return prettyJson(sample);
}

/** The sample arguments as typed, or null when they are not a JSON object. */
export function parseSample(text: string): Record<string, JsonValue> | null {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? (value as Record<string, JsonValue>) : null;
  } catch {
    return null;
  }
}
