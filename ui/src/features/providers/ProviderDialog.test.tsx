import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";

import { ApiError } from "../../api/errors";
import type { NewProvider } from "../../api";
import { ProviderDialog } from "./ProviderDialog";

// The IPC layer is replaced by a scripted backend: what it answers, and what it was sent.
const backend = {
  sent: [] as NewProvider[],
  answer: (): Promise<unknown> => Promise.resolve({ id: "x" }),
};

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return {
    ...errors,
    api: {
      providerKinds: async () => [
        { kind: "openai_compatible", defaultBaseUrl: "https://api.openai.com/v1", needsApiKey: true },
        { kind: "anthropic", defaultBaseUrl: "https://api.anthropic.com", needsApiKey: true },
        { kind: "ollama", defaultBaseUrl: "http://127.0.0.1:11434", needsApiKey: false },
      ],
      createProvider: (input: NewProvider) => {
        backend.sent.push(input);
        return backend.answer();
      },
    },
  };
});

function renderDialog() {
  const onClose = vi.fn();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <ProviderDialog onClose={onClose} />
    </QueryClientProvider>,
  );
  return onClose;
}

describe("ProviderDialog", () => {
  beforeEach(() => {
    backend.sent = [];
  });

  it("shows each backend field error under its own field", async () => {
    backend.answer = () =>
      Promise.reject(
        new ApiError("validation", "name must not be empty; 'x' is not a usable base URL", {
          field: "name",
          reason: "required",
          fields: [
            { field: "name", reason: "required", message: "name must not be empty" },
            { field: "baseUrl", reason: "invalid_url", message: "'x' is not a usable base URL" },
          ],
        }),
      );
    const onClose = renderDialog();
    await userEvent.type(screen.getByLabelText("Base URL"), "x");
    await userEvent.click(screen.getByTestId("provider-submit"));

    expect(await screen.findByTestId("error-name")).toHaveTextContent("This field is required.");
    expect(screen.getByTestId("error-baseUrl")).toHaveTextContent("starts with http://");
    expect(screen.queryByTestId("error-apiKey")).toBeNull();
    expect(screen.getByLabelText("Name")).toHaveAttribute("aria-invalid", "true");
    expect(onClose).not.toHaveBeenCalled();
  });

  it("sends what was typed and closes on success", async () => {
    backend.answer = () => Promise.resolve({ id: "groq" });
    const onClose = renderDialog();
    await userEvent.type(screen.getByLabelText("Name"), "Groq");
    await userEvent.type(screen.getByLabelText("API key"), "gsk_0123456789abcdef");
    await userEvent.click(screen.getByTestId("provider-submit"));

    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(backend.sent).toEqual([
      { name: "Groq", kind: "openai_compatible", baseUrl: null, apiKey: "gsk_0123456789abcdef" },
    ]);
  });

  it("falls back to the backend's message for a reason it does not know", async () => {
    backend.answer = () =>
      Promise.reject(new ApiError("precondition", "the store is busy", { field: "name", reason: "brand_new_reason" }));
    renderDialog();
    await userEvent.type(screen.getByLabelText("Name"), "X");
    await userEvent.click(screen.getByTestId("provider-submit"));
    expect(await screen.findByTestId("error-name")).toHaveTextContent("the store is busy");
  });
});
