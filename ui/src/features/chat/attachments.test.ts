import { describe, expect, it } from "vitest";

import { ApiError, type Artifact } from "../../api";
import { MAX_IMAGES, adding, canSend, failed, isImageFile, picked, readyIds, removed, stored } from "./attachments";

const artifact = (id: string, over: Partial<Artifact> = {}): Artifact => ({
  id,
  name: `${id}.jpg`,
  mime: "image/jpeg",
  width: 1600,
  height: 1200,
  format: "jpeg",
  sizeBytes: 1000,
  sha256: "x",
  sourceId: null,
  derivation: null,
  createdAt: "2026-01-01T00:00:00Z",
  ...over,
});
const jpeg = (name: string) => ({ name, type: "image/jpeg" });

describe("composer attachments", () => {
  it("knows image files by type or name", () => {
    expect(isImageFile(jpeg("a.jpg"))).toBe(true);
    expect(isImageFile({ name: "shot.PNG", type: "" })).toBe(true);
    expect(isImageFile({ name: "notes.txt", type: "text/plain" })).toBe(false);
    expect(isImageFile({ name: "clip.heic", type: "image/heic" })).toBe(false);
  });

  it("adds, stores, removes, and sends only the ready ones in order", () => {
    let list = adding([], "k1", jpeg("one.jpg"));
    list = adding(list, "k2", jpeg("two.jpg"));
    expect(canSend(list, "hello")).toBe(false); // still being added
    list = stored(list, "k2", artifact("b"));
    list = stored(list, "k1", artifact("a"));
    expect(readyIds(list)).toEqual(["a", "b"]);
    expect(canSend(list, "")).toBe(true); // images alone are a message
    list = removed(list, "k1");
    expect(readyIds(list)).toEqual(["b"]);
    expect(canSend([], "  ")).toBe(false);
  });

  it("refuses what is not an image instead of dropping it", () => {
    let list = adding([], "k1", { name: "notes.txt", type: "text/plain" });
    expect(list[0]).toMatchObject({ status: "refused", reason: "not_an_image", name: "notes.txt" });
    // Bytes the store could not read as an image come back without a format.
    list = adding(list, "k2", jpeg("broken.jpg"));
    list = stored(list, "k2", artifact("c", { name: "broken.jpg", format: null, mime: "application/octet-stream" }));
    expect(list[1]).toMatchObject({ status: "refused", reason: "not_an_image" });
    expect(readyIds(list)).toEqual([]);
    expect(canSend(list, "")).toBe(false);
  });

  it("keeps to the limit and shows a failed upload", () => {
    let list = picked(
      [],
      Array.from({ length: MAX_IMAGES }, (_, i) => artifact(`p${i}`)),
    );
    expect(readyIds(list)).toHaveLength(MAX_IMAGES);
    list = adding(list, "extra", jpeg("extra.jpg"));
    expect(list.at(-1)).toMatchObject({ status: "refused", reason: "too_many" });
    list = removed(list, "picked-p0");
    list = adding(list, "k", jpeg("late.jpg"));
    list = failed(list, "k", new ApiError("internal", "disk full"));
    expect(list.at(-1)).toMatchObject({ status: "failed", name: "late.jpg" });
    expect(readyIds(list)).toHaveLength(MAX_IMAGES - 1);
  });
});
