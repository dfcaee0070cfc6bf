import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";

import { ApiError } from "../../api/errors";
import type { ConnectModel } from "../../api";
import { ConnectModelPanel } from "./ConnectModelPanel";

// A scripted backend: the servers it finds, what it was asked to connect,
// and a connection test that streams its answer in pieces.
const streamsHello = (onDelta: (text: string) => void): Promise<unknown> => {
  for (const piece of ["Hello, ", "I am ", "qwen."]) onDelta(piece);
  return Promise.resolve({ modelId: "lm_studio/qwen", text: "Hello, I am qwen.", latencyMs: 5, becameDefault: true });
};
const backend = {
  connected: [] as ConnectModel[],
  tested: [] as string[],
  servers: [] as unknown[],
  test: streamsHello,
};

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return {
    ...errors,
    api: {},
    runtimeApi: { defaultModel: async () => null },
    canvasApi: {},
    onboardingApi: {
      detectLocalServers: async () => backend.servers,
      connectModel: async (input: ConnectModel) => {
        backend.connected.push(input);
        return {
          provider: { id: "lm_studio", name: input.name },
          models: input.models.map((name) => ({ id: `lm_studio/${name}`, name, label: null })),
        };
      },
      testConnection: (id: string, onDelta: (text: string) => void) => {
        backend.tested.push(id);
        return backend.test(onDelta);
      },
    },
  };
});

function renderPanel() {
  const onWorking = vi.fn();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <ConnectModelPanel onWorking={onWorking} />
    </QueryClientProvider>,
  );
  return onWorking;
}

const lmStudio = {
  kind: "lm_studio",
  name: "LM Studio",
  providerKind: "openai_compatible",
  baseUrl: "http://127.0.0.1:1234/v1",
  models: ["llama", "qwen"],
  providerId: null,
};

describe("ConnectModelPanel", () => {
  beforeEach(() => {
    backend.connected = [];
    backend.tested = [];
    backend.servers = [lmStudio];
    backend.test = streamsHello;
  });

  it("connects a detected server with the chosen model first and streams the test answer", async () => {
    const onWorking = renderPanel();
    await userEvent.selectOptions(await screen.findByTestId("local-model-lm_studio"), "qwen");
    await userEvent.click(screen.getByTestId("connect-local-lm_studio"));
    expect(backend.connected[0]).toMatchObject({ name: "LM Studio", baseUrl: "http://127.0.0.1:1234/v1", models: ["qwen", "llama"] });

    await userEvent.click(await screen.findByTestId("connect-test"));
    expect(await screen.findByTestId("connect-works")).toHaveTextContent("this is now your default model");
    expect(screen.getByTestId("connect-answer")).toHaveTextContent("Hello, I am qwen.");
    expect(backend.tested).toEqual(["lm_studio/qwen"]);
    expect(onWorking).toHaveBeenCalledWith(expect.objectContaining({ becameDefault: true }));
  });

  it("says so when nothing answers and connects a pasted key instead", async () => {
    backend.servers = [];
    renderPanel();
    expect(await screen.findByTestId("connect-none-found")).toBeInTheDocument();
    expect(screen.getByTestId("connect-key")).toBeDisabled();
    await userEvent.click(screen.getByTestId("key-preset-openrouter"));
    await userEvent.type(screen.getByTestId("connect-key-input"), "sk-or-123");
    await userEvent.click(screen.getByTestId("connect-key"));
    expect(backend.connected).toEqual([
      { name: "OpenRouter", kind: "openai_compatible", baseUrl: "https://openrouter.ai/api/v1", apiKey: "sk-or-123", models: ["openrouter/auto"] },
    ]);
    expect(await screen.findByTestId("connected-provider")).toHaveTextContent("OpenRouter is connected");
  });

  it("shows a failed test by its reason, not the raw message", async () => {
    backend.test = () => Promise.reject(new ApiError("upstream", "error sending request", { reason: "unreachable" }));
    const onWorking = renderPanel();
    await userEvent.click(await screen.findByTestId("connect-local-lm_studio"));
    await userEvent.click(await screen.findByTestId("connect-test"));
    expect(await screen.findByTestId("connect-test-error")).toHaveTextContent("Nothing answered at the provider's address");
    expect(onWorking).not.toHaveBeenCalled();
  });
});
