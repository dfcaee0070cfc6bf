// Undo for destructive actions, honestly: the thing is hidden at once and a
// toast says "Deleted … — Undo" for a few seconds; only when the toast runs
// out is it really deleted. Undo never has to bring anything back, because
// nothing was gone yet. Leaving the view that scheduled a deletion carries
// it out at once (the person saw it go and did not undo it).
//
// Wrap a view in <UndoProvider>; anything inside calls useUndo() to
// schedule a deletion (`schedule`) and to know what to hide (`isHidden`).

import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { RotateCcw, X } from "lucide-react";

/** How long the toast offers Undo before the deletion is carried out. */
export const UNDO_MS = 6000;

export interface Undoable {
  /** What is being deleted, e.g. `variant:<id>`: what `isHidden` asks about. */
  key: string;
  /** The toast's text, e.g. "Deleted «X thread»". */
  label: string;
  /** Really deletes it (and waits for the lists to refresh). */
  commit(): Promise<unknown>;
  /** After Undo, e.g. to open the canvas again. */
  onUndo?(): void;
}

interface Entry extends Undoable {
  state: "waiting" | "deleting" | "failed";
  error?: string;
}

export interface UndoApi {
  schedule(item: Undoable): void;
  /** Whether `key` is waiting to be deleted (or being deleted): hide it. */
  isHidden(key: string): boolean;
  /** Carries out now every deletion whose key starts with `prefix`. */
  flush(prefix?: string): Promise<void>;
}

const UndoContext = createContext<UndoApi | null>(null);

/** The deletions waiting for their toast to run out, and the toasts. */
export function UndoProvider({ children, delayMs = UNDO_MS, describe }: { children: ReactNode; delayMs?: number; describe(error: unknown): string }) {
  const [entries, setEntries] = useState<Entry[]>([]);
  const live = useRef(new Map<string, Entry>());
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const describeRef = useRef(describe);
  useEffect(() => {
    describeRef.current = describe;
  }, [describe]);

  const publish = useCallback(() => setEntries([...live.current.values()]), []);

  const carryOut = useCallback(
    async (key: string) => {
      const entry = live.current.get(key);
      clearTimeout(timers.current.get(key));
      timers.current.delete(key);
      if (!entry || entry.state !== "waiting") return;
      live.current.set(key, { ...entry, state: "deleting" });
      publish();
      try {
        await entry.commit();
        live.current.delete(key);
      } catch (error) {
        live.current.set(key, { ...entry, state: "failed", error: describeRef.current(error) });
      }
      publish();
    },
    [publish],
  );

  const api = useMemo<UndoApi>(
    () => ({
      schedule(item) {
        if (live.current.has(item.key)) return;
        live.current.set(item.key, { ...item, state: "waiting" });
        timers.current.set(
          item.key,
          setTimeout(() => void carryOut(item.key), delayMs),
        );
        publish();
      },
      isHidden: (key) => {
        const entry = entries.find((e) => e.key === key);
        return Boolean(entry && entry.state !== "failed");
      },
      async flush(prefix = "") {
        const keys = [...live.current.keys()].filter((k) => k.startsWith(prefix));
        await Promise.all(keys.map((k) => carryOut(k)));
      },
    }),
    [carryOut, delayMs, entries, publish],
  );

  const undo = (key: string) => {
    const entry = live.current.get(key);
    if (!entry || entry.state !== "waiting") return;
    clearTimeout(timers.current.get(key));
    timers.current.delete(key);
    live.current.delete(key);
    publish();
    entry.onUndo?.();
  };
  const dismiss = (key: string) => {
    live.current.delete(key);
    publish();
  };

  // Leaving the view: what the person did not undo is deleted now.
  useEffect(() => {
    const pending = live.current;
    const waiting = timers.current;
    return () => {
      for (const [key, timer] of waiting) {
        clearTimeout(timer);
        const entry = pending.get(key);
        if (entry?.state === "waiting") entry.commit().catch((error: unknown) => console.warn("deletion failed:", error));
      }
      waiting.clear();
      pending.clear();
    };
  }, []);

  return (
    <UndoContext.Provider value={api}>
      {children}
      <UndoToasts entries={entries} onUndo={undo} onDismiss={dismiss} />
    </UndoContext.Provider>
  );
}

export function useUndo(): UndoApi {
  const value = useContext(UndoContext);
  if (!value) throw new Error("useUndo outside UndoProvider");
  return value;
}

function UndoToasts({ entries, onUndo, onDismiss }: { entries: Entry[]; onUndo(key: string): void; onDismiss(key: string): void }) {
  const { t } = useTranslation();
  if (entries.length === 0) return null;
  return (
    <div className="undo-toasts" role="status" aria-live="polite">
      {entries.map((e) => (
        <div key={e.key} className={e.state === "failed" ? "undo-toast failed" : "undo-toast"} data-testid="undo-toast" data-state={e.state}>
          <span className="undo-label">{e.state === "failed" ? t("undo.failed", { error: e.error }) : e.label}</span>
          {e.state === "failed" ? (
            <button type="button" className="icon-btn" aria-label={t("common.close")} title={t("common.close")} onClick={() => onDismiss(e.key)}>
              <X size={14} aria-hidden="true" />
            </button>
          ) : (
            <button type="button" className="undo-button" disabled={e.state !== "waiting"} onClick={() => onUndo(e.key)} data-testid="undo">
              <RotateCcw size={14} aria-hidden="true" /> {t("undo.undo")}
            </button>
          )}
        </div>
      ))}
    </div>
  );
}
