import { fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it } from "vitest";

import { filterList, ListFilter, matches, normalize } from "./ListFilter";

describe("matches", () => {
  it("matches everything when the query is empty or blank", () => {
    expect(matches("", "Researcher")).toBe(true);
    expect(matches("   ", "Researcher")).toBe(true);
  });

  it("ignores case and accents on both sides", () => {
    expect(normalize("  Acción ")).toBe("accion");
    expect(matches("accion", "Plan de acción")).toBe(true);
    expect(matches("ACCIÓN", "plan de accion")).toBe(true);
  });

  it("needs every word, each in any field, in any order", () => {
    expect(matches("web inv", "Investigadora", "web_search")).toBe(true);
    expect(matches("web git", "Investigadora", "web_search")).toBe(false);
  });

  it("skips missing fields and finds nothing in none", () => {
    expect(matches("x", null, undefined, "")).toBe(false);
    expect(matches("x", null, "box")).toBe(true);
  });
});

describe("filterList", () => {
  const agents = [
    { name: "Redactora", tools: "fs_read" },
    { name: "Investigadora", tools: "web_search" },
  ];
  it("keeps the order and only the matching items", () => {
    expect(filterList(agents, "ora", (a) => [a.name]).map((a) => a.name)).toEqual(["Redactora", "Investigadora"]);
    expect(filterList(agents, "web", (a) => [a.name, a.tools]).map((a) => a.name)).toEqual(["Investigadora"]);
  });
  it("returns a copy of everything for an empty query", () => {
    const all = filterList(agents, " ", (a) => [a.name]);
    expect(all).toEqual(agents);
    expect(all).not.toBe(agents);
  });
});

function Harness() {
  const [value, setValue] = useState("");
  return <ListFilter value={value} onChange={setValue} label="Filter agents" shown={value ? 1 : 3} total={3} testId="agents-filter" />;
}

describe("ListFilter", () => {
  it("is labelled, shows the count while filtering, and clears with the button or Escape", () => {
    render(<Harness />);
    const box = screen.getByRole("searchbox", { name: "Filter agents" });
    expect(screen.queryByTestId("agents-filter-count")).toBeNull();
    fireEvent.change(box, { target: { value: "inv" } });
    expect(screen.getByTestId("agents-filter-count")).toHaveTextContent("1 of 3");
    fireEvent.click(screen.getByRole("button", { name: "Clear filter" }));
    expect(box).toHaveValue("");
    fireEvent.change(box, { target: { value: "inv" } });
    fireEvent.keyDown(box, { key: "Escape" });
    expect(box).toHaveValue("");
  });
});
