import { act, fireEvent, render, renderHook, screen } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";

import { changedKeys, guardLeave, SaveBar, useDraft } from "./SaveBar";

describe("changedKeys", () => {
  it("names the fields that differ; lists compare as sets", () => {
    const saved = { name: "A", tools: ["web_fetch", "fs_read"], rules: { read: "allow", write: "ask" } };
    expect(changedKeys(saved, { ...saved })).toEqual([]);
    expect(changedKeys(saved, { ...saved, tools: ["fs_read", "web_fetch"] })).toEqual([]);
    expect(changedKeys(saved, { ...saved, name: "B", tools: ["fs_read"] })).toEqual(["name", "tools"]);
    expect(changedKeys(saved, { ...saved, rules: { write: "ask", read: "deny" } })).toEqual(["rules"]);
  });
});

describe("useDraft", () => {
  it("follows the saved value while untouched, and keeps changes when it moves", () => {
    const { result, rerender } = renderHook(({ source, at }) => useDraft(source, at), {
      initialProps: { source: { name: "A", note: "x" }, at: "1" },
    });
    rerender({ source: { name: "A2", note: "x" }, at: "2" });
    expect(result.current.draft.name).toBe("A2");

    act(() => result.current.set("note")("mine"));
    rerender({ source: { name: "A3", note: "x" }, at: "3" });
    expect(result.current.draft).toEqual({ name: "A2", note: "mine" });
    expect(result.current.saved.name).toBe("A3");

    act(() => result.current.discard());
    expect(result.current.draft).toEqual({ name: "A3", note: "x" });
  });
});

function Form({ onSubmit }: { onSubmit(): void }) {
  const [name, setName] = useState("A");
  const changes = name === "A" ? [] : ["Name"];
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      <input aria-label="Name" value={name} onChange={(e) => setName(e.target.value)} />
      <SaveBar changes={changes} onDiscard={() => setName("A")} saveLabel="Save" saveTestId="save" subject="A" />
    </form>
  );
}

describe("SaveBar", () => {
  it("lets leaving go ahead while clean, and asks while there are changes", () => {
    const submit = vi.fn();
    render(<Form onSubmit={submit} />);
    const go = vi.fn();
    guardLeave(go);
    expect(go).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId("save")).toBeDisabled();
    expect(screen.getByTestId("save")).toHaveAttribute("title", "Save (Ctrl+S)");

    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "B" } });
    expect(screen.getByTestId("save-bar")).toHaveAttribute("data-dirty", "true");
    act(() => guardLeave(go));
    expect(go).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId("leave-dialog")).toHaveTextContent("You changed Name of A.");
    fireEvent.click(screen.getByTestId("discard-and-leave"));
    expect(go).toHaveBeenCalledTimes(2);

    fireEvent.click(screen.getByTestId("save"));
    expect(submit).toHaveBeenCalledTimes(1);
  });
});
