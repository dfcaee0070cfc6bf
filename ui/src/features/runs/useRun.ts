// Starting a streamed run from a view and following it: the events fold
// into a `RunView` as they arrive; the command's own answer (or refusal)
// settles it. Cancel asks the backend; the run then ends as cancelled.

import { useCallback, useRef, useState } from "react";

import { runtimeApi, toApiError, type ApiError, type Run, type RunEvent } from "../../api";
import { reportModelProblem } from "../providers/needsModel";
import { IDLE, applyRunEvent, type RunView } from "./runState";

export type RunStarter = (onEvent: (event: RunEvent) => void) => Promise<Run>;

export interface RunHandle {
  view: RunView;
  /** The refusal of the command itself (the run never started). */
  refusal: ApiError | null;
  start(starter: RunStarter): Promise<Run | null>;
  cancel(): Promise<void>;
  reset(): void;
}

export function useRun(): RunHandle {
  const [view, setView] = useState<RunView>(IDLE);
  const [refusal, setRefusal] = useState<ApiError | null>(null);
  const runId = useRef<string | null>(null);

  const start = useCallback(async (starter: RunStarter) => {
    setView(IDLE);
    setRefusal(null);
    runId.current = null;
    try {
      const run = await starter((event) => {
        const first = event.type === "started" && runId.current === null;
        if (first) runId.current = event.runId;
        const seen = first ? new Date().toISOString() : null;
        setView((current) => {
          const next = applyRunEvent(current, event);
          return seen && !next.startedAt ? { ...next, startedAt: seen } : next;
        });
      });
      // The record is the truth, also when an event was missed.
      setView((current) => ({
        ...current,
        runId: run.id,
        kind: run.kind,
        targetId: run.targetId,
        startedAt: run.startedAt,
        phase: run.status,
        output: run.output,
        error: run.error ?? current.error,
        usage: run.usage,
      }));
      if (run.error) reportModelProblem(run.error);
      return run;
    } catch (error) {
      reportModelProblem(error);
      setRefusal(toApiError(error));
      setView((current) => (current.phase === "running" ? { ...current, phase: "failed" } : current));
      return null;
    }
  }, []);

  const cancel = useCallback(async () => {
    if (runId.current) await runtimeApi.cancelRun(runId.current);
  }, []);

  const reset = useCallback(() => {
    setView(IDLE);
    setRefusal(null);
    runId.current = null;
  }, []);

  return { view, refusal, start, cancel, reset };
}
