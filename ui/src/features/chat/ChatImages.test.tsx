// The composer's attachments as a person sees them: a dropped image is
// uploaded and shows its thumbnail, a file that is not an image is listed
// as refused (never dropped silently), and any can be removed before
// sending; a sent message whose image is gone says so.

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";

import type { Artifact } from "../../api";
import { AttachmentStrip, MessageImages, useAttachments } from "./ChatImages";

const uploads: string[] = [];

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  const artifact = (name: string): Artifact => ({
    id: `art-${name}`,
    name,
    mime: "image/jpeg",
    width: 10,
    height: 10,
    format: "jpeg",
    sizeBytes: 3,
    sha256: "x",
    sourceId: null,
    derivation: null,
    createdAt: "2026-01-01T00:00:00Z",
  });
  return {
    ...errors,
    runtimeApi: {
      uploadChatImage: (name: string) => {
        uploads.push(name);
        return Promise.resolve(artifact(name));
      },
      pickChatImages: () => Promise.resolve([]),
      chatImagePreview: () => Promise.resolve({ mime: "image/webp", width: 10, height: 10, dataBase64: "AAAA" }),
    },
  };
});

function Composer({ onIds }: { onIds(ids: string[]): void }) {
  const attachments = useAttachments();
  onIds(attachments.ids);
  return (
    <div>
      <input data-testid="files" type="file" multiple onChange={(e) => attachments.addFiles([...(e.target.files ?? [])])} />
      <AttachmentStrip list={attachments.list} onRemove={attachments.remove} />
    </div>
  );
}

function wrap(node: React.ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(<QueryClientProvider client={client}>{node}</QueryClientProvider>);
}

describe("composer attachments", () => {
  it("upload a dropped image, refuse a text file, and remove before sending", async () => {
    let ids: string[] = [];
    wrap(<Composer onIds={(next) => (ids = next)} />);
    const photo = new File([new Uint8Array([1, 2, 3])], "bees.jpg", { type: "image/jpeg" });
    const notes = new File(["hello"], "notes.txt", { type: "text/plain" });
    await act(async () => {
      fireEvent.change(screen.getByTestId("files"), { target: { files: [photo, notes] } });
    });
    await waitFor(() => expect(screen.getByTestId("chat-thumb")).toBeTruthy());
    expect(uploads).toEqual(["bees.jpg"]);
    expect(ids).toEqual(["art-bees.jpg"]);
    expect(screen.getByRole("alert").textContent).toContain("notes.txt is not an image");
    expect((screen.getByTestId("chat-thumb") as HTMLImageElement).src).toBe("data:image/webp;base64,AAAA");

    const removes = screen.getAllByTestId("remove-attachment");
    fireEvent.click(removes[0]!);
    expect(ids).toEqual([]);
    expect(screen.queryByTestId("chat-thumb")).toBeNull();
    fireEvent.click(screen.getByTestId("remove-attachment"));
    expect(screen.queryByTestId("chat-attachments")).toBeNull();
  });

  it("show a sent image, and say when one is no longer stored", async () => {
    wrap(
      <MessageImages
        images={[
          { artifactId: "a", modelArtifactId: "a-model", name: "bees.jpg" },
          { artifactId: null, modelArtifactId: null, name: "old.png" },
        ]}
      />,
    );
    await waitFor(() => expect(screen.getByTestId("chat-thumb")).toBeTruthy());
    expect(screen.getByText("old.png is no longer stored")).toBeTruthy();
  });
});
