// A view that throws shows its error in its place; the rest stays, and
// another view (or Try again) renders afresh.

import { useState } from "react";
import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";

import { ViewBoundary } from "./ViewBoundary";

let broken = true;
function Fragile() {
  if (broken) throw new Error("the graph has no nodes");
  return <p>the view</p>;
}

function Shell() {
  const [view, setView] = useState("swarms");
  return (
    <>
      <nav>
        <button onClick={() => setView("catalog")}>go to catalog</button>
      </nav>
      <ViewBoundary resetKey={view}>{view === "swarms" ? <Fragile /> : <p>the catalog</p>}</ViewBoundary>
    </>
  );
}

describe("ViewBoundary", () => {
  it("keeps the window when a view throws, and renders another view afresh", () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    broken = true;
    render(<Shell />);
    expect(screen.getByTestId("view-failed")).toHaveTextContent("the graph has no nodes");
    expect(screen.getByText("go to catalog")).toBeInTheDocument();
    fireEvent.click(screen.getByText("go to catalog"));
    expect(screen.getByText("the catalog")).toBeInTheDocument();
    expect(screen.queryByTestId("view-failed")).not.toBeInTheDocument();
  });

  it("tries the same view again", () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    broken = true;
    render(<Shell />);
    broken = false;
    fireEvent.click(screen.getByTestId("view-retry"));
    expect(screen.getByText("the view")).toBeInTheDocument();
  });
});
