import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

import { CopyId } from "./CopyId";

describe("Copy id", () => {
  it("keeps the id in its tooltip and puts it on the clipboard", async () => {
    const user = userEvent.setup();
    const writeText = vi.spyOn(navigator.clipboard, "writeText");
    render(<CopyId id="0190f3c2-aebc3ab9" />);
    const button = screen.getByRole("button", { name: "Copy the id 0190f3c2-aebc3ab9" });
    expect(button).toHaveAttribute("title", "0190f3c2-aebc3ab9");
    expect(button).toHaveTextContent("Copy id");
    await user.click(button);
    expect(writeText).toHaveBeenCalledWith("0190f3c2-aebc3ab9");
    expect(await screen.findByText("Copied")).toBeInTheDocument();
  });

  it("says so when the clipboard refuses", async () => {
    const user = userEvent.setup();
    vi.spyOn(navigator.clipboard, "writeText").mockRejectedValueOnce(new Error("denied"));
    render(<CopyId id="r1" />);
    await user.click(screen.getByRole("button"));
    expect(await screen.findByText("Could not copy")).toBeInTheDocument();
  });
});
