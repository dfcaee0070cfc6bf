// The images attached in the composer before a message is sent (issue 14):
// each is stored first (a drop is uploaded, a pick comes back stored), shown
// as a thumbnail, can be removed, and goes with the message by artifact id.
// A file that is not an image is listed as refused, never silently dropped.

import type { ApiError, Artifact } from "../../api";

/** Most images one message carries (the core's limit). */
export const MAX_IMAGES = 10;

export type Attachment =
  | { key: string; name: string; status: "adding" }
  | { key: string; name: string; status: "ready"; artifactId: string }
  | { key: string; name: string; status: "refused"; reason: "not_an_image" | "too_many" }
  | { key: string; name: string; status: "failed"; error: ApiError };

/** Whether a file looks like an image a model can be sent. */
export function isImageFile(file: { name: string; type: string }): boolean {
  return /^image\/(jpeg|png|webp|gif)$/.test(file.type) || /\.(jpe?g|png|webp|gif)$/i.test(file.name);
}

/** How many attachments count towards the limit (refused ones do not). */
function counted(list: Attachment[]): number {
  return list.filter((a) => a.status === "adding" || a.status === "ready").length;
}

/** A file starts being added; one over the limit, or not an image, is refused. */
export function adding(list: Attachment[], key: string, file: { name: string; type: string }): Attachment[] {
  if (!isImageFile(file)) return [...list, { key, name: file.name, status: "refused", reason: "not_an_image" }];
  if (counted(list) >= MAX_IMAGES) return [...list, { key, name: file.name, status: "refused", reason: "too_many" }];
  return [...list, { key, name: file.name, status: "adding" }];
}

/** A stored artifact becomes ready; bytes that could not be read as an
 * image (the store keeps them, with no format) are refused. */
export function stored(list: Attachment[], key: string, artifact: Artifact): Attachment[] {
  return list.map((a) => {
    if (a.key !== key) return a;
    if (artifact.format === null || !artifact.mime.startsWith("image/")) {
      return { key, name: artifact.name, status: "refused", reason: "not_an_image" };
    }
    return { key, name: artifact.name, status: "ready", artifactId: artifact.id };
  });
}

/** Artifacts picked in the native dialog (already stored). */
export function picked(list: Attachment[], artifacts: Artifact[]): Attachment[] {
  let out = list;
  for (const artifact of artifacts) {
    const key = `picked-${artifact.id}`;
    out = adding(out, key, { name: artifact.name, type: artifact.mime });
    out = out.some((a) => a.key === key && a.status === "adding") ? stored(out, key, artifact) : out;
  }
  return out;
}

export function failed(list: Attachment[], key: string, error: ApiError): Attachment[] {
  return list.map((a) => (a.key === key ? { key, name: a.name, status: "failed", error } : a));
}

export function removed(list: Attachment[], key: string): Attachment[] {
  return list.filter((a) => a.key !== key);
}

/** The artifact ids the message carries, in order. */
export function readyIds(list: Attachment[]): string[] {
  return list.flatMap((a) => (a.status === "ready" ? [a.artifactId] : []));
}

/** A message can go: some text or an image, and no image still being added. */
export function canSend(list: Attachment[], text: string): boolean {
  if (list.some((a) => a.status === "adding")) return false;
  return text.trim().length > 0 || readyIds(list).length > 0;
}
