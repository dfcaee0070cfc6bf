// The Rounds dialog never compares a round with itself: one round is shown
// alone, with no A/B column; two rounds are compared; A and B on the same
// round show it alone with a hint.

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";

import type { Round, Variant } from "../../api";
import { RoundsDialog } from "./RoundsDialog";

const backend = { rounds: [] as Round[] };

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return { ...errors, api: {}, runtimeApi: {}, canvasApi: { rounds: async () => backend.rounds } };
});

function round(index: number, output: string): Round {
  return {
    id: `r${index}`,
    variantId: "v1",
    index,
    output,
    promptSnapshot: "Write about bees",
    styleSnapshot: "",
    provider: "scripted",
    model: "gpt-test",
    promptTokens: 10,
    completionTokens: 20,
    latencyMs: 50,
    client: "ui",
    generatedAt: "2026-12-07T10:00:00Z",
    byHand: false,
  } as Round;
}

const variant = { id: "v1", canvasId: "c1", activeRound: 0 } as Variant;

function show(rounds: Round[]) {
  backend.rounds = rounds;
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <RoundsDialog variant={{ ...variant, activeRound: rounds.length - 1 }} onClose={() => {}} />
    </QueryClientProvider>,
  );
}

describe("RoundsDialog", () => {
  it("shows a single round alone, with nothing to compare", async () => {
    show([round(0, "Bees pollinate.")]);
    expect(await screen.findByTestId("round-single")).toHaveTextContent("Bees pollinate.");
    expect(screen.queryByTestId("round-compare")).toBeNull();
    expect(screen.queryByTestId("compare-a-0")).toBeNull();
  });

  it("compares two rounds, and shows one alone when A and B are the same", async () => {
    show([round(0, "Bees pollinate."), round(1, "Bees pollinate flowers.")]);
    expect(await screen.findByTestId("round-compare")).toBeInTheDocument();
    expect(screen.queryByTestId("round-single")).toBeNull();
    fireEvent.click(screen.getByTestId("compare-a-1"));
    expect(await screen.findByTestId("round-single")).toHaveTextContent("Bees pollinate flowers.");
    expect(screen.queryByTestId("round-compare")).toBeNull();
  });
});
