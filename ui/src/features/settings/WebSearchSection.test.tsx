import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";

import { ApiError } from "../../api/errors";
import type { WebSearchConfig, WebSearchSettings } from "../../api";
import { WebSearchSection } from "./WebSearchSection";

const NONE: WebSearchConfig = {
  backend: null,
  baseUrl: null,
  hasApiKey: false,
  apiKeyMasked: null,
  toolActive: false,
  updatedAt: null,
};

// The IPC layer is replaced by a scripted backend: what it answers, and what it was sent.
const backend = {
  config: NONE,
  sent: [] as WebSearchSettings[],
  tested: [] as (string | null)[],
  test: (): Promise<unknown> => Promise.resolve({ backend: "searxng", query: "Colmena", results: [] }),
};

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return {
    ...errors,
    webSearchApi: {
      backends: async () => [
        { backend: "searxng", label: "SearXNG", defaultBaseUrl: null, needsApiKey: false },
        { backend: "brave", label: "Brave Search", defaultBaseUrl: "https://api.search.brave.com", needsApiKey: true },
        { backend: "tavily", label: "Tavily", defaultBaseUrl: "https://api.tavily.com", needsApiKey: true },
      ],
      get: async () => backend.config,
      set: async (input: WebSearchSettings) => {
        backend.sent.push(input);
        backend.config = {
          backend: input.backend as WebSearchConfig["backend"],
          baseUrl: input.baseUrl || "https://api.search.brave.com",
          hasApiKey: Boolean(input.apiKey),
          apiKeyMasked: input.apiKey ? "BSA…e8b6" : null,
          toolActive: true,
          updatedAt: "2026-01-01T00:00:00Z",
        };
        return backend.config;
      },
      clear: async () => {
        backend.config = NONE;
        return NONE;
      },
      test: (query: string | null) => {
        backend.tested.push(query);
        return backend.test();
      },
    },
  };
});

function renderSection() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <WebSearchSection />
    </QueryClientProvider>,
  );
}

describe("WebSearchSection", () => {
  beforeEach(() => {
    backend.config = NONE;
    backend.sent = [];
    backend.tested = [];
  });

  it("saves a backend with its key and then shows only the mask", async () => {
    renderSection();
    expect(await screen.findByTestId("web-search-state")).toHaveTextContent("No search service is set up");
    expect(screen.queryByTestId("web-search-key")).toBeNull();
    await userEvent.selectOptions(screen.getByTestId("web-search-backend"), "brave");
    const key = screen.getByTestId("web-search-key");
    expect(key).toHaveAttribute("type", "password");
    await userEvent.type(key, "BSA-test-key-7f3a9c21d4e8b6");
    await userEvent.click(screen.getByTestId("web-search-save"));

    await waitFor(() => expect(screen.getByTestId("web-search-state")).toHaveTextContent("Brave Search"));
    expect(backend.sent).toEqual([{ backend: "brave", baseUrl: null, apiKey: "BSA-test-key-7f3a9c21d4e8b6" }]);
    const stored = screen.getByTestId("web-search-key");
    expect(stored).toHaveValue("");
    expect(stored).toHaveAttribute("placeholder", expect.stringContaining("BSA…e8b6"));
    expect(document.body.textContent).not.toContain("7f3a9c21d4e8b6");
  });

  it("runs a test query and shows the results, or why it failed", async () => {
    backend.config = {
      backend: "searxng",
      baseUrl: "http://localhost:8080",
      hasApiKey: false,
      apiKeyMasked: null,
      toolActive: true,
      updatedAt: "2026-01-01T00:00:00Z",
    };
    backend.test = () =>
      Promise.resolve({
        backend: "searxng",
        query: "bees",
        results: [{ title: "How bees make honey", url: "https://bees.example/honey", snippet: "Nectar." }],
      });
    renderSection();
    await userEvent.type(await screen.findByTestId("web-search-query"), "bees");
    await userEvent.click(screen.getByTestId("web-search-test"));
    const results = await screen.findByTestId("web-search-results");
    expect(results).toHaveTextContent("1 result");
    expect(results).toHaveTextContent("How bees make honey");
    expect(backend.tested).toEqual(["bees"]);

    backend.test = () =>
      Promise.reject(new ApiError("upstream", "SearXNG answered 403", { reason: "json_disabled" }));
    await userEvent.click(screen.getByTestId("web-search-test"));
    expect(await screen.findByTestId("web-search-test-error")).toHaveTextContent("search.formats");
  });

  it("clears the service", async () => {
    backend.config = {
      backend: "searxng",
      baseUrl: "http://localhost:8080",
      hasApiKey: false,
      apiKeyMasked: null,
      toolActive: true,
      updatedAt: "2026-01-01T00:00:00Z",
    };
    renderSection();
    await userEvent.click(await screen.findByTestId("web-search-clear"));
    await waitFor(() => expect(screen.getByTestId("web-search-state")).toHaveTextContent("web_search is off"));
  });
});
