// Catalog → Endpoints as a person uses it, against a scripted backend: the
// list (secret headers counted, never shown), declaring one with a secret
// header in a password field, the live preview computed by the backend,
// Test (which saves first), and an edit that keeps the stored secret.

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";

import type { Endpoint, EndpointInput } from "../../api";
import { UndoProvider } from "../../components/UndoToast";
import { EndpointsPanel } from "./EndpointsPanel";

function endpoint(extra: Partial<Endpoint> = {}): Endpoint {
  return {
    id: "weather",
    tool: "endpoint_weather",
    name: "Weather",
    description: "Forecast for a city",
    method: "GET",
    url: "http://127.0.0.1:9/v1/{{city}}",
    query: [],
    body: null,
    headers: [],
    secretHeaderNames: ["Authorization"],
    paramSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    enabled: true,
    timeoutSeconds: 30,
    createdAt: "",
    updatedAt: "",
    ...extra,
  } as Endpoint;
}

const backend = {
  endpoints: [] as Endpoint[],
  created: [] as EndpointInput[],
  updated: [] as { id: string; input: EndpointInput }[],
  previews: [] as { input: EndpointInput; params: unknown }[],
  tested: [] as { id: string; params: unknown }[],
};

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return {
    ...errors,
    api: {},
    endpointsApi: {
      list: async () => backend.endpoints,
      create: async (input: EndpointInput) => {
        backend.created.push(input);
        const made = endpoint({ name: input.name, url: input.url, description: input.description });
        backend.endpoints = [made];
        return made;
      },
      update: async (id: string, input: EndpointInput) => {
        backend.updated.push({ id, input });
        return endpoint({ description: input.description });
      },
      preview: async (input: EndpointInput, params: Record<string, string>) => {
        backend.previews.push({ input, params });
        return {
          method: input.method,
          url: input.url.replace("{{city}}", encodeURIComponent(params.city ?? "")),
          headers: (input.secretHeaders ?? []).map((s) => ({ name: s.name, value: "••••••••", secret: true })),
          body: null,
        };
      },
      test: async (id: string, params: unknown) => {
        backend.tested.push({ id, params });
        return { ok: true, status: 200, contentType: "application/json", headers: [], body: '{\n  "temp": 21\n}', truncated: false, note: null, durationMs: 12, request: { method: "GET", url: "u", headers: [], body: null } };
      },
      setEnabled: async () => null,
      remove: async () => null,
    },
  };
});

function renderPanel() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <UndoProvider delayMs={3_600_000} describe={String}>
        <EndpointsPanel />
      </UndoProvider>
    </QueryClientProvider>,
  );
}

beforeEach(() => {
  backend.endpoints = [];
  backend.created = [];
  backend.updated = [];
  backend.previews = [];
  backend.tested = [];
});

describe("the endpoints panel", () => {
  it("lists endpoints with their tool name and counts secret headers without showing them", async () => {
    backend.endpoints = [endpoint()];
    renderPanel();
    const row = await screen.findByTestId("endpoint-weather");
    expect(within(row).getByTestId("endpoint-tool")).toHaveTextContent("endpoint_weather");
    expect(row).toHaveTextContent("1 secret header");
    expect(row).toHaveTextContent("GET");
  });

  it("declares an endpoint: secret in a password field, live preview from the backend, then Test saves and calls it", async () => {
    renderPanel();
    fireEvent.click(await screen.findByTestId("endpoint-add"));
    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "Weather" } });
    fireEvent.change(screen.getByLabelText("Description for the model"), { target: { value: "Forecast for a city" } });
    fireEvent.change(screen.getByLabelText("URL"), { target: { value: "http://127.0.0.1:9/v1/{{city}}" } });
    // The template names a parameter the schema lacks: one click declares it.
    fireEvent.click(screen.getByTestId("endpoint-declare-city"));
    fireEvent.click(screen.getByTestId("endpoint-secrets-add"));
    fireEvent.change(screen.getByTestId("endpoint-secret-name-0"), { target: { value: "Authorization" } });
    fireEvent.change(screen.getByTestId("endpoint-secret-value-0"), { target: { value: "Bearer sk-1" } });
    expect(screen.getByTestId("endpoint-secret-value-0")).toHaveAttribute("type", "password");
    fireEvent.change(screen.getByLabelText("Sample arguments (JSON)"), { target: { value: '{"city": "San José"}' } });

    const preview = await screen.findByTestId("endpoint-preview", {}, { timeout: 3000 });
    expect(within(preview).getByTestId("endpoint-preview-url")).toHaveTextContent("http://127.0.0.1:9/v1/San%20Jos%C3%A9");
    expect(within(preview).getByTestId("endpoint-preview-secret")).toHaveTextContent("Authorization: ••••••••");
    expect(preview).not.toHaveTextContent("sk-1");

    fireEvent.click(screen.getByTestId("endpoint-test"));
    expect(await screen.findByTestId("endpoint-test-status")).toHaveTextContent("Status 200");
    expect(screen.getByTestId("endpoint-test-body")).toHaveTextContent('"temp": 21');
    expect(backend.created).toHaveLength(1);
    expect(backend.created[0]).toMatchObject({
      name: "Weather",
      method: "GET",
      secretHeaders: [{ name: "Authorization", value: "Bearer sk-1" }],
      paramSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    });
    expect(backend.tested).toEqual([{ id: "weather", params: { city: "San José" } }]);
    // The typed secret is gone from the form: its row says it is set.
    expect(screen.getByTestId("endpoint-secret-value-0")).toHaveValue("");
    expect(screen.getByTestId("endpoint-secret-value-0")).toHaveAttribute("placeholder", "set — type to replace");
  });

  it("edits an endpoint and keeps the stored secret unless a new one is typed", async () => {
    backend.endpoints = [endpoint()];
    renderPanel();
    fireEvent.click(await screen.findByTestId("endpoint-edit-weather"));
    fireEvent.change(screen.getByLabelText("Description for the model"), { target: { value: "New words" } });
    fireEvent.click(screen.getByTestId("endpoint-save"));
    await waitFor(() => expect(backend.updated).toHaveLength(1));
    expect(backend.updated[0]).toMatchObject({ id: "weather", input: { slug: "weather", description: "New words", secretHeaders: [{ name: "Authorization", value: null }] } });
  });
});
