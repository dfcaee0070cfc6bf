// Which runs a view is showing right now (a run panel, a chat): their
// approval questions appear inline there, and the app-wide stack of
// questions leaves them out. A tiny external store for useSyncExternalStore.

import { useEffect, useSyncExternalStore } from "react";

import type { RunView } from "./runState";

let watched: ReadonlySet<string> = new Set();
const listeners = new Set<() => void>();

function publish(next: ReadonlySet<string>) {
  watched = next;
  for (const listener of listeners) listener();
}

export function watchRun(runId: string): () => void {
  publish(new Set([...watched, runId]));
  return () => {
    const next = new Set(watched);
    next.delete(runId);
    publish(next);
  };
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useWatchedRuns(): ReadonlySet<string> {
  return useSyncExternalStore(subscribe, () => watched);
}

/** Marks the runs of `view` — the top run and every run it delegated to —
 * as shown by the calling view while it runs and the view is mounted. */
export function useWatchRunView(view: RunView) {
  const ids = view.phase === "running" && view.runId ? [view.runId, ...Object.keys(view.runAgents)] : [];
  const key = ids.join(" ");
  useEffect(() => {
    const stops = key ? key.split(" ").map(watchRun) : [];
    return () => stops.forEach((stop) => stop());
  }, [key]);
}
