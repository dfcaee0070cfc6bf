import { QueryClient, QueryClientProvider, useMutation } from "@tanstack/react-query";
import { act, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";

import { ApiError } from "../../api/errors";
import { NeedsModelBanner } from "./NeedsModelBanner";
import { reportModelProblem } from "./needsModel";

const backend = { models: [] as unknown[], defaultModel: null as string | null };

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return {
    ...errors,
    api: { listModels: async () => backend.models },
    runtimeApi: { defaultModel: async () => backend.defaultModel },
    canvasApi: {},
    onboardingApi: { detectLocalServers: async () => [] },
    localModelsApi: { library: async () => [], list: async () => [] },
  };
});

/** A view whose action fails because no model can run it. */
function FailingGenerate() {
  const generate = useMutation({
    mutationFn: () => Promise.reject(new ApiError("precondition", "this variant has no model", { reason: "no_model" })),
  });
  return (
    <button type="button" onClick={() => generate.mutate()}>
      generate
    </button>
  );
}

function renderBanner() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <NeedsModelBanner />
      <FailingGenerate />
    </QueryClientProvider>,
  );
}

const model = { id: "lm_studio/qwen", providerId: "lm_studio", name: "qwen", label: null, enabled: true, providerEnabled: true };

describe("NeedsModelBanner", () => {
  beforeEach(() => {
    backend.models = [];
    backend.defaultModel = null;
  });

  it("says once that no model is connected, and its button opens the connect step", async () => {
    renderBanner();
    expect(await screen.findByTestId("needs-model-banner")).toHaveTextContent("No model is connected");
    expect(screen.getAllByTestId("needs-model-banner")).toHaveLength(1);
    await userEvent.click(screen.getByTestId("needs-model-fix"));
    expect(await screen.findByTestId("connect-dialog")).toBeInTheDocument();
    expect(await screen.findByTestId("connect-model")).toBeInTheDocument();
  });

  it("stays away while a default model can run, and comes back when an action fails for lack of one", async () => {
    backend.models = [model];
    backend.defaultModel = "lm_studio/qwen";
    renderBanner();
    await screen.findByText("generate");
    expect(screen.queryByTestId("needs-model-banner")).toBeNull();
    await userEvent.click(screen.getByText("generate"));
    const banner = await screen.findByTestId("needs-model-banner");
    expect(banner).toHaveTextContent("An agent could not run");
    expect(banner).toHaveTextContent("Connect a model");
    await userEvent.click(screen.getByTestId("needs-model-dismiss"));
    expect(screen.queryByTestId("needs-model-banner")).toBeNull();
  });

  it("hears a run that ended for lack of a model (runs end through events, not mutations)", async () => {
    backend.models = [model];
    backend.defaultModel = "lm_studio/qwen";
    renderBanner();
    await screen.findByText("generate");
    act(() => reportModelProblem({ code: "precondition", message: "the key was refused", details: { reason: "auth_refused" } }));
    expect(await screen.findByTestId("needs-model-banner")).toHaveTextContent("An agent could not run");
    await userEvent.click(screen.getByTestId("needs-model-dismiss"));
    act(() => reportModelProblem({ code: "internal", message: "disk full", details: null }));
    expect(screen.queryByTestId("needs-model-banner")).toBeNull();
  });
});
