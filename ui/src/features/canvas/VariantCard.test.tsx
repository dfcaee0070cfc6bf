// Editing a variant's output: the editor starts from the text shown, saving
// writes a new round (by hand) through the API, an unchanged or empty text
// cannot be saved, Escape leaves the round as it was; a round written by
// hand says so on the card.

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";

import type { CanvasDetail, Variant } from "../../api";
import { VariantCard } from "./VariantCard";

const writeRound = vi.fn<(id: string, text: string) => Promise<unknown>>(() => Promise.resolve({ index: 1, byHand: true }));

vi.mock("../../api", async (original) => ({
  ...(await original<typeof import("../../api")>()),
  canvasApi: { writeRound: (id: string, text: string) => writeRound(id, text) },
}));

const variant = (over: Partial<Variant> = {}): Variant =>
  ({
    id: "v1",
    canvasId: "c1",
    presetId: "x-thread",
    userPresetId: null,
    prompt: "Serio",
    style: "",
    typeTag: "thread",
    status: "done",
    errorMessage: null,
    activeRound: 0,
    roundCount: 1,
    activeOutput: "1/ Las abejas **polinizan**.",
    activeByHand: false,
    modelId: null,
    hasApiKey: false,
    apiKeyMasked: null,
    createdAt: "2026-12-02T05:00:00Z",
    updatedAt: "2026-12-02T05:00:00Z",
    ...over,
  }) as Variant;

function renderCard(v: Variant) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <VariantCard variant={v} canvas={{ id: "c1", name: "Abejas" } as CanvasDetail} live={undefined} onEvent={() => undefined} onRemove={() => undefined} />
    </QueryClientProvider>,
  );
}

beforeEach(() => writeRound.mockClear());

describe("VariantCard editing", () => {
  it("shows the output as markdown, and edits it from its source", () => {
    renderCard(variant());
    expect(screen.getByTestId("variant-output").querySelector("strong")).toHaveTextContent("polinizan");
    fireEvent.click(screen.getByTestId("edit-variant"));
    expect(screen.getByTestId("variant-edit")).toHaveValue("1/ Las abejas **polinizan**.");
    expect(screen.getByTestId("save-edit")).toBeDisabled();
  });

  it("saves the new text as a round written by hand", async () => {
    renderCard(variant());
    fireEvent.click(screen.getByTestId("edit-variant"));
    fireEvent.change(screen.getByTestId("variant-edit"), { target: { value: "1/ Mi versión." } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("save-edit"));
    });
    expect(writeRound).toHaveBeenCalledWith("v1", "1/ Mi versión.");
    expect(screen.queryByTestId("variant-edit")).toBeNull();
  });

  it("cannot save an empty text, and Escape gives the round back untouched", () => {
    renderCard(variant());
    fireEvent.click(screen.getByTestId("edit-variant"));
    fireEvent.change(screen.getByTestId("variant-edit"), { target: { value: "   " } });
    expect(screen.getByTestId("save-edit")).toBeDisabled();
    fireEvent.keyDown(screen.getByTestId("variant-edit"), { key: "Escape" });
    expect(screen.queryByTestId("variant-edit")).toBeNull();
    expect(writeRound).not.toHaveBeenCalled();
  });

  it("marks a round written by hand", () => {
    renderCard(variant({ activeByHand: true }));
    expect(screen.getByTestId("by-hand")).toBeInTheDocument();
  });
});
