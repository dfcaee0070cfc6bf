import { queryOptions, type QueryClient } from "@tanstack/react-query";

import { canvasApi, type Change } from "../../api";

export const canvasKeys = {
  all: ["canvas"] as const,
  list: ["canvas", "list"] as const,
  detail: (id: string) => ["canvas", "detail", id] as const,
  rounds: (variant: string) => ["canvas", "rounds", variant] as const,
  presets: ["canvas", "presets"] as const,
  sources: ["canvas", "sources"] as const,
  sourceItems: (id: string) => ["canvas", "source-items", id] as const,
  itemImage: (item: string) => ["canvas", "item-image", item] as const,
  activity: ["canvas", "activity"] as const,
  exports7d: ["canvas", "exports-7d"] as const,
};

export const canvasesQuery = queryOptions({ queryKey: canvasKeys.list, queryFn: canvasApi.list });
export const canvasQuery = (id: string) => queryOptions({ queryKey: canvasKeys.detail(id), queryFn: () => canvasApi.get(id) });
export const roundsQuery = (variant: string) =>
  queryOptions({ queryKey: canvasKeys.rounds(variant), queryFn: () => canvasApi.rounds(variant) });
export const presetsQuery = queryOptions({ queryKey: canvasKeys.presets, queryFn: canvasApi.presets });
export const sourcesQuery = queryOptions({ queryKey: canvasKeys.sources, queryFn: canvasApi.sources });
export const sourceItemsQuery = (id: string) =>
  queryOptions({ queryKey: canvasKeys.sourceItems(id), queryFn: () => canvasApi.sourceItems(id) });
export const activityQuery = queryOptions({ queryKey: canvasKeys.activity, queryFn: () => canvasApi.activity(null, 50) });
export const exports7dQuery = queryOptions({ queryKey: canvasKeys.exports7d, queryFn: canvasApi.exportsLast7Days });

/** The built-in presets (their names are translated: `canvas.presets.<id>`). */
export const BUILTIN_PRESETS = ["x-thread", "blog-with-images", "linkedin-long", "newsletter-section", "tldr-brief", "custom"] as const;

/** What to refetch when the backend reports a committed change. */
export function invalidateCanvasFor(client: QueryClient, change: Change) {
  if (change === "canvases" || change === "models") void client.invalidateQueries({ queryKey: canvasKeys.all });
}
