import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";

import i18n from "../../i18n";
import { PresetTiles } from "./PresetTiles";

const added: { canvasId: string; presetId: string }[] = [];

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return {
    ...errors,
    canvasApi: {
      addVariant: async (canvasId: string, input: { presetId: string }) => {
        added.push({ canvasId, presetId: input.presetId });
        return { id: "v1" };
      },
    },
  };
});

describe("an empty canvas's preset tiles", () => {
  beforeEach(async () => {
    added.length = 0;
    await i18n.changeLanguage("en");
  });

  it("offers every built-in format in words, and one click adds it", async () => {
    render(
      <QueryClientProvider client={new QueryClient()}>
        <PresetTiles canvasId="c1" />
      </QueryClientProvider>,
    );
    expect(screen.getByTestId("preset-tile-tldr-brief")).toHaveTextContent("TL;DR brief");
    expect(screen.getByTestId("preset-tile-tldr-brief")).toHaveTextContent("The gist in a few lines");
    expect(screen.getAllByRole("button")).toHaveLength(6);
    fireEvent.click(screen.getByTestId("preset-tile-x-thread"));
    await waitFor(() => expect(added).toEqual([{ canvasId: "c1", presetId: "x-thread" }]));
  });
});
