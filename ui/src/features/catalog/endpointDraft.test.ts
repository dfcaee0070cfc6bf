import { describe, expect, it } from "vitest";

import type { Endpoint } from "../../api";
import {
  draftOfEndpoint,
  emptyDraft,
  emptyParam,
  inputOf,
  paramsOfSchema,
  parseSample,
  sampleFor,
  schemaOfParams,
  switchSchemaMode,
  timeoutOf,
  undeclaredParams,
  usedParams,
} from "./endpointDraft";

function endpoint(extra: Partial<Endpoint> = {}): Endpoint {
  return {
    id: "weather",
    tool: "endpoint_weather",
    name: "Weather",
    description: "Forecast",
    method: "POST",
    url: "https://api.example.com/v1/{{city}}",
    query: [{ name: "days", value: "{{days}}" }],
    body: { note: "{{note}}" },
    headers: [{ name: "Accept", value: "application/json" }],
    secretHeaderNames: ["Authorization"],
    paramSchema: {
      type: "object",
      properties: { city: { type: "string", description: "City" }, days: { type: "integer" }, tags: { type: "array", items: { type: "string" } } },
      required: ["city"],
    },
    enabled: true,
    timeoutSeconds: 30,
    createdAt: "",
    updatedAt: "",
    ...extra,
  } as Endpoint;
}

describe("an endpoint's draft", () => {
  it("keeps a stored secret by sending no value, and replaces it when one is typed", () => {
    const draft = draftOfEndpoint(endpoint());
    expect(draft.secrets).toMatchObject([{ name: "Authorization", value: "", stored: true }]);
    const kept = inputOf(draft, { enabled: true, slug: "weather" });
    expect("input" in kept && kept.input.secretHeaders).toEqual([{ name: "Authorization", value: null }]);
    const typed = inputOf({ ...draft, secrets: [{ ...draft.secrets[0]!, value: "Bearer new" }] }, { enabled: true, slug: "weather" });
    expect("input" in typed && typed.input.secretHeaders).toEqual([{ name: "Authorization", value: "Bearer new" }]);
  });

  it("round-trips a simple schema through the rows, and sends the typed body", () => {
    const draft = draftOfEndpoint(endpoint());
    expect(draft.schemaMode).toBe("simple");
    expect(draft.params.map((p) => [p.name, p.type, p.required, p.description])).toEqual([
      ["city", "string", true, "City"],
      ["days", "integer", false, ""],
      ["tags", "array", false, ""],
    ]);
    expect(schemaOfParams(draft.params)).toEqual(endpoint().paramSchema);
    const built = inputOf(draft, { enabled: true, slug: "weather" });
    expect("input" in built && built.input.body).toEqual({ note: "{{note}}" });
    expect("input" in built && built.input.slug).toBe("weather");
  });

  it("opens a schema the rows cannot show in JSON mode, and will not drop it when switching", () => {
    const rich = endpoint({ paramSchema: { type: "object", properties: { unit: { type: "string", enum: ["c", "f"] } } } });
    const draft = draftOfEndpoint(rich);
    expect(draft.schemaMode).toBe("json");
    expect(paramsOfSchema(rich.paramSchema)).toBeNull();
    expect(switchSchemaMode(draft, "simple")).toBe("tooComplex");
    expect(switchSchemaMode({ ...draft, schemaText: "{ nope" }, "simple")).toBe("invalidJson");
    const simple = switchSchemaMode(draftOfEndpoint(endpoint()), "json");
    expect(typeof simple === "object" && JSON.parse(simple.schemaText)).toEqual(endpoint().paramSchema);
  });

  it("names what cannot become an input yet", () => {
    const draft = { ...emptyDraft(), name: "x", description: "y", url: "http://h/" };
    expect(inputOf({ ...draft, body: "{ bad" }, { enabled: true, slug: null })).toEqual({ error: "body" });
    expect(inputOf({ ...draft, schemaMode: "json", schemaText: "[" }, { enabled: true, slug: null })).toEqual({ error: "paramSchema" });
    expect(inputOf({ ...draft, timeout: "121" }, { enabled: true, slug: null })).toEqual({ error: "timeoutSeconds" });
    expect(timeoutOf("")).toBeNull();
    expect(timeoutOf("1.5")).toBe("invalid");
    expect(timeoutOf("45")).toBe(45);
  });

  it("finds the parameters the templates use and which are not declared", () => {
    const draft = { ...draftOfEndpoint(endpoint()), params: [emptyParam("city")] };
    expect(usedParams(draft)).toEqual(["city", "days", "note"]);
    expect(undeclaredParams(draft)).toEqual(["days", "note"]);
  });

  it("offers sample arguments of each parameter's type and reads them back", () => {
    const sample = sampleFor(draftOfEndpoint(endpoint()));
    expect(JSON.parse(sample)).toEqual({ city: "", days: 1, tags: [] });
    expect(Object.keys(JSON.parse(sample))[0]).toBe("city");
    expect(parseSample('{"city": "Oslo"}')).toEqual({ city: "Oslo" });
    expect(parseSample("[1]")).toBeNull();
    expect(parseSample("")).toEqual({});
  });
});
