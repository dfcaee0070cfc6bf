import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, render, screen, waitFor } from "@testing-library/react";
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
const library = [
  { id: "smollm2-135m", label: "SmolLM2 135M", bytes: 98_362_432, memoryBytes: 232_580_160, licence: "Apache-2.0", goodFor: "Trying Colmena", fits: true, recommended: false },
  { id: "qwen2.5-1.5b", label: "Qwen2.5 1.5B Instruct", bytes: 1_117_320_736, memoryBytes: 1_284_918_846, licence: "Apache-2.0", goodFor: "The best all-rounder", fits: true, recommended: true },
  { id: "gemma3-4b", label: "Gemma 3 4B", bytes: 2_489_757_856, memoryBytes: 2_863_221_534, licence: "Gemma Terms of Use", goodFor: "Writing", fits: false, recommended: false },
];
type OnProgress = (p: unknown) => void;
const pullsAtOnce = async (id: string, onProgress: OnProgress): Promise<unknown> => {
  onProgress({ name: id, downloaded: 558_000_000, total: 1_117_320_736, bytesPerSecond: 12_000_000, secondsLeft: 46 });
  return { id: `local/${id}`, providerId: "local", name: id, label: null };
};
const backend = {
  connected: [] as ConnectModel[],
  tested: [] as string[],
  servers: [] as unknown[],
  pulled: [] as string[],
  cancelled: [] as string[],
  // What each cancel answers, in order (then true): false = nothing to stop yet.
  cancelAnswers: [] as boolean[],
  pull: pullsAtOnce,
  test: streamsHello,
};

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return {
    ...errors,
    api: { listProviders: async () => [{ id: "local", name: "Local" }] },
    localModelsApi: {
      library: async () => library,
      list: async () => [],
      pull: (id: string, onProgress: OnProgress) => {
        backend.pulled.push(id);
        return backend.pull(id, onProgress);
      },
      cancel: async (name: string) => {
        backend.cancelled.push(name);
        return backend.cancelAnswers.shift() ?? true;
      },
    },
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

describe("a model on this computer", () => {
  beforeEach(() => {
    backend.servers = [];
    backend.pulled = [];
    backend.cancelled = [];
    backend.cancelAnswers = [];
    backend.tested = [];
    backend.pull = pullsAtOnce;
  });

  it("is offered first when nothing is found, with the recommended model chosen and what does not fit disabled", async () => {
    renderPanel();
    const choice = await screen.findByTestId("download-model-choice");
    const panel = screen.getByTestId("connect-model");
    expect(panel.firstElementChild).toBe(screen.getByTestId("download-model"));
    expect((choice as HTMLSelectElement).value).toBe("qwen2.5-1.5b");
    const tooBig = screen.getByRole("option", { name: /Gemma 3 4B/ }) as HTMLOptionElement;
    expect(tooBig.disabled).toBe(true);
    expect(screen.getByTestId("download-model-start").textContent).toContain("1.1 GB");
    expect(screen.getByTestId("download-model-facts").textContent).toContain("Apache-2.0");
  });

  it("downloads the chosen model, then tests it like any connected model", async () => {
    const user = userEvent.setup();
    renderPanel();
    await user.selectOptions(await screen.findByTestId("download-model-choice"), "smollm2-135m");
    await user.click(screen.getByTestId("download-model-start"));
    expect(backend.pulled).toEqual(["smollm2-135m"]);
    expect(await screen.findByTestId("connected-provider")).toHaveTextContent("Local");
    await user.click(screen.getByTestId("connect-test"));
    expect(backend.tested).toEqual(["local/smollm2-135m"]);
  });

  it("says a Cancel pressed before the download began again until it stops the download", async () => {
    const user = userEvent.setup();
    let end: (e: ApiError) => void = () => {};
    backend.pull = () =>
      new Promise((_resolve, reject) => {
        end = reject;
      });
    // The backend has not begun yet: the first two cancels find nothing.
    backend.cancelAnswers = [false, false];
    renderPanel();
    await user.selectOptions(await screen.findByTestId("download-model-choice"), "smollm2-135m");
    await user.click(screen.getByTestId("download-model-start"));
    await user.click(await screen.findByTestId("download-cancel"));
    await waitFor(() => expect(backend.cancelled).toEqual(["smollm2-135m", "smollm2-135m", "smollm2-135m"]), { timeout: 10_000 });
    act(() => end(new ApiError("cancelled", "the download was cancelled")));
    expect(await screen.findByTestId("download-cancelled")).toBeInTheDocument();
    // Once a cancel stopped it, none is said again.
    expect(backend.cancelled).toHaveLength(3);
  });
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
