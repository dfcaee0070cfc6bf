import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";

import type { CatalogPersona, SetupStatus } from "../../api";
import { PreferencesProvider, memoryPrefs } from "../../app/preferences";
import { FirstRunScreen } from "./FirstRunScreen";

// A scripted backend that records what the first run asked for, in order.
const calls: string[] = [];
const persona = (id: string, runsPrograms = false): CatalogPersona => ({
  id,
  name: id,
  description: `${id} does a job`,
  toolPatterns: [`${id}_*`],
  tools: [],
  skills: [],
  enabled: false,
  runsPrograms,
  missing: [],
});
const status: SetupStatus = {
  completed: false,
  personas: [persona("web_researcher"), persona("software_engineer", true), persona("content_writer")],
  activeTools: 8,
  activeSkills: 0,
};

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return {
    ...errors,
    api: {
      planSeed: async (ids: string[]) => ({ agents: ids, tools: [], skills: [] }),
      applySeed: async (ids: string[]) => {
        calls.push(`applySeed:${ids.join(",")}`);
        return { ...status, completed: true };
      },
    },
    runtimeApi: { defaultModel: async () => null },
    canvasApi: {},
    inboxApi: {
      listAuthors: async () => [],
      setMyName: async (name: string) => {
        calls.push(`setMyName:${name}`);
        return { id: "owner", name };
      },
    },
    localModelsApi: { library: async () => [], list: async () => [] },
    onboardingApi: {
      detectLocalServers: async () => [],
      openSampleCanvas: async (language: string) => {
        calls.push(`openSampleCanvas:${language}`);
        return { id: "c1", items: [], variants: [] };
      },
    },
  };
});

function renderFirstRun() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <PreferencesProvider store={memoryPrefs({ theme: "light", language: "en" })}>
        <FirstRunScreen status={status} />
      </PreferencesProvider>
    </QueryClientProvider>,
  );
}

describe("FirstRunScreen", () => {
  beforeEach(() => {
    calls.length = 0;
    window.location.hash = "";
  });

  it("skipping the model and the sample installs only the chosen specialists", async () => {
    renderFirstRun();
    expect(screen.getByTestId("step-connect")).toBeInTheDocument();
    expect(screen.getByTestId("connect-continue")).toBeDisabled();
    await userEvent.click(screen.getByTestId("connect-skip"));

    expect(screen.getByTestId("persona-web_researcher")).toHaveAttribute("aria-checked", "true");
    expect(screen.getByTestId("persona-software_engineer")).toHaveAttribute("aria-checked", "false");
    expect(calls).toEqual([]); // nothing is installed before the last step
    await userEvent.click(screen.getByTestId("persona-content_writer"));
    await userEvent.click(screen.getByTestId("install-specialists"));

    expect(await screen.findByTestId("sample-summary")).toHaveTextContent("not connected a model");
    await userEvent.click(screen.getByTestId("sample-skip"));
    await waitFor(() => expect(calls).toEqual(["applySeed:web_researcher"]));
    expect(window.location.hash).toBe("");
  });

  it("the sample canvas is made in the chosen language before the install, and the app lands on it", async () => {
    renderFirstRun();
    await userEvent.click(screen.getByTestId("first-run-lang-es"));
    await userEvent.click(screen.getByTestId("connect-skip"));
    await userEvent.click(screen.getByTestId("start-empty"));
    await userEvent.click(await screen.findByTestId("sample-open"));
    await waitFor(() => expect(calls).toEqual(["openSampleCanvas:es", "applySeed:"]));
    expect(window.location.hash).toBe("#/canvas");
  });
});
