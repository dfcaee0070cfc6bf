// The undo toast: a scheduled deletion hides the thing at once and happens
// only when the toast runs out; Undo before then means it never happened;
// a deletion that fails shows the thing again with the reason; leaving the
// view carries out what was not undone.

import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { UNDO_MS, UndoProvider, useUndo, type Undoable } from "./UndoToast";

function Thing({ item }: { item: Undoable }) {
  const undo = useUndo();
  return undo.isHidden(item.key) ? null : (
    <button onClick={() => undo.schedule(item)} data-testid="thing">
      delete me
    </button>
  );
}

function setup(commit: () => Promise<unknown>, onUndo = vi.fn()) {
  const item: Undoable = { key: "variant:1", label: "Deleted «X thread»", commit, onUndo };
  const view = render(
    <UndoProvider describe={(e) => String(e)}>
      <Thing item={item} />
    </UndoProvider>,
  );
  fireEvent.click(screen.getByTestId("thing"));
  return view;
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("UndoProvider", () => {
  it("hides the thing at once and deletes it only when the toast runs out", async () => {
    const commit = vi.fn(() => Promise.resolve());
    setup(commit);
    expect(screen.queryByTestId("thing")).toBeNull();
    expect(screen.getByTestId("undo-toast")).toHaveTextContent("Deleted «X thread»");
    act(() => vi.advanceTimersByTime(UNDO_MS - 1));
    expect(commit).not.toHaveBeenCalled();
    await act(async () => {
      vi.advanceTimersByTime(1);
      await Promise.resolve();
    });
    expect(commit).toHaveBeenCalledTimes(1);
    expect(screen.queryByTestId("undo-toast")).toBeNull();
  });

  it("undo brings it back and nothing is ever deleted", () => {
    const commit = vi.fn(() => Promise.resolve());
    const onUndo = vi.fn();
    setup(commit, onUndo);
    fireEvent.click(screen.getByTestId("undo"));
    expect(screen.getByTestId("thing")).toBeInTheDocument();
    expect(screen.queryByTestId("undo-toast")).toBeNull();
    expect(onUndo).toHaveBeenCalledTimes(1);
    act(() => vi.advanceTimersByTime(UNDO_MS * 2));
    expect(commit).not.toHaveBeenCalled();
  });

  it("a deletion that fails shows the thing again, with the reason", async () => {
    setup(() => Promise.reject(new Error("the store is locked")));
    await act(async () => {
      vi.advanceTimersByTime(UNDO_MS);
      await Promise.resolve();
    });
    expect(screen.getByTestId("thing")).toBeInTheDocument();
    expect(screen.getByTestId("undo-toast")).toHaveTextContent("the store is locked");
  });

  it("leaving the view deletes what was not undone", () => {
    const commit = vi.fn(() => Promise.resolve());
    const view = setup(commit);
    view.unmount();
    expect(commit).toHaveBeenCalledTimes(1);
  });
});
