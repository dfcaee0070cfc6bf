// The palette and the app-wide keys, against a scripted backend: Ctrl+K
// opens it, typing narrows it, Enter goes; Ctrl+N runs the open view's
// "new"; Ctrl+digit switches view; a palette "New …" opens the view and
// runs its "new" once it is there.

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";

import { CommandPalette } from "./CommandPalette";
import { PaletteButton } from "./PaletteButton";
import { memoryPrefs, PreferencesProvider } from "./preferences";
import { useShortcutAction } from "./shortcutsHooks";

vi.mock("../api", async () => {
  const errors = await vi.importActual<typeof import("../api/errors")>("../api/errors");
  return {
    ...errors,
    api: {
      listAgents: async () => [{ id: "diseno", name: "Diseño", persona: null }],
    },
    canvasApi: { list: async () => [{ id: "c1", name: "Morning brief" }] },
    runtimeApi: { listSwarms: async () => [{ id: "equipo", name: "Equipo de research" }] },
  };
});

function renderPalette(extra: React.ReactNode = null) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <PreferencesProvider store={memoryPrefs({ theme: "light", language: "en" })}>
        <CommandPalette />
        {extra}
      </PreferencesProvider>
    </QueryClientProvider>,
  );
}

const ctrl = (key: string) => fireEvent.keyDown(window, { key, ctrlKey: true });

beforeEach(() => {
  window.location.hash = "#/catalog";
});

describe("the command palette", () => {
  it("opens with Ctrl+K, narrows as you type and goes where Enter says", async () => {
    renderPalette();
    expect(screen.queryByTestId("command-palette")).toBeNull();
    ctrl("k");
    const input = screen.getByTestId("palette-input");
    expect(input).toHaveFocus();
    fireEvent.change(input, { target: { value: "swarms" } });
    expect(screen.getByTestId("palette-go-swarms")).toHaveAttribute("aria-selected", "true");
    expect(screen.queryByTestId("palette-go-canvas")).toBeNull();
    fireEvent.keyDown(input, { key: "Enter" });
    expect(window.location.hash).toBe("#/swarms");
    expect(screen.queryByTestId("command-palette")).toBeNull();
  });

  it("finds agents, canvases and swarms by name", async () => {
    renderPalette();
    ctrl("k");
    fireEvent.change(screen.getByTestId("palette-input"), { target: { value: "morning" } });
    expect(await screen.findByTestId("palette-canvas-c1")).toHaveTextContent("Morning brief");
    fireEvent.keyDown(screen.getByTestId("palette-input"), { key: "Enter" });
    expect(window.location.hash).toBe("#/canvas/c1");
    ctrl("k");
    fireEvent.change(screen.getByTestId("palette-input"), { target: { value: "research" } });
    expect(await screen.findByTestId("palette-swarm-equipo")).toBeInTheDocument();
    fireEvent.keyDown(screen.getByTestId("palette-input"), { key: "Enter" });
    expect(window.location.hash).toBe("#/swarms/equipo");
  });

  it("opens from the sidebar button, which shows its keys", () => {
    renderPalette(<PaletteButton />);
    const button = screen.getByTestId("open-palette");
    expect(button).toHaveTextContent("Ctrl+K");
    fireEvent.click(button);
    expect(screen.getByTestId("command-palette")).toBeInTheDocument();
  });

  it("closes with Escape, and with Ctrl+K again", () => {
    renderPalette();
    ctrl("k");
    fireEvent.keyDown(screen.getByTestId("palette-input"), { key: "Escape" });
    expect(screen.queryByTestId("command-palette")).toBeNull();
    ctrl("k");
    ctrl("k");
    expect(screen.queryByTestId("command-palette")).toBeNull();
  });
});

function NewAgentHook({ onNew }: { onNew(): void }) {
  useShortcutAction("new", onNew, "catalog/agents");
  return null;
}

describe("the app-wide keys", () => {
  it("Ctrl+N runs the open view's new; Ctrl+digit switches view", () => {
    const onNew = vi.fn();
    renderPalette(<NewAgentHook onNew={onNew} />);
    ctrl("n");
    expect(onNew).toHaveBeenCalledTimes(1);
    ctrl("4");
    expect(window.location.hash).toBe("#/swarms");
  });

  it("the palette's New agent opens the agents tab and runs its new when it registers", async () => {
    const onNew = vi.fn();
    window.location.hash = "#/swarms";
    renderPalette();
    ctrl("k");
    fireEvent.change(screen.getByTestId("palette-input"), { target: { value: "new agent" } });
    fireEvent.keyDown(screen.getByTestId("palette-input"), { key: "Enter" });
    expect(window.location.hash).toBe("#/catalog/agents");
    expect(onNew).not.toHaveBeenCalled();
    // The agents tab mounts and offers its "new": the kept request runs.
    render(<NewAgentHook onNew={onNew} />);
    await act(async () => {});
    expect(onNew).toHaveBeenCalledTimes(1);
  });

  it("shows each view's shortcut in the palette", () => {
    renderPalette();
    ctrl("k");
    expect(screen.getByTestId("palette-go-catalog")).toHaveTextContent("Ctrl+3");
  });
});
