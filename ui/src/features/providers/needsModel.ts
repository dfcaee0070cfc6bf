// When an agent cannot run for lack of a model or key (issue 12), and which
// errors mean exactly that — so one banner can say it once, with the fix.

import { toApiError, type ApiError, type Model } from "../../api";

/** Error reasons whose fix is "connect a model" (or give its key again). */
export const MODEL_PROBLEMS: ReadonlySet<string> = new Set(["no_model", "no_default", "model_disabled", "provider_disabled", "auth_refused"]);

export type MissingModel = "no_models" | "no_default";

/** Why agents without a model of their own cannot run, or null when they
 * can: no enabled model at all, or no default (or one that is off). */
export function missingModel(enabled: readonly Model[] | undefined, defaultId: string | null | undefined): MissingModel | null {
  if (enabled === undefined || defaultId === undefined) return null; // still loading
  if (enabled.length === 0) return "no_models";
  if (!defaultId || !enabled.some((m) => m.id === defaultId)) return "no_default";
  return null;
}

/** The error (an `ApiError` or the backend's raw `{code, message,
 * details}`), when it is one that "connect a model" fixes. */
export function modelProblem(error: unknown): ApiError | null {
  if (error === null || typeof error !== "object") return null;
  const reason = (error as { details?: { reason?: unknown } | null }).details?.reason;
  if (typeof reason !== "string" || !MODEL_PROBLEMS.has(reason)) return null;
  return toApiError(error);
}

/** What a finished action says about models: its error, or the first
 * per-item failure of an outcome that failed in parts (`generate_all`'s
 * `{done, failed: [{error}]}`). */
export function modelProblemOf(state: { status: string; error: unknown; data: unknown }): ApiError | null {
  if (state.status === "error") return modelProblem(state.error);
  if (state.status !== "success" || state.data === null || typeof state.data !== "object") return null;
  const failed = (state.data as { failed?: unknown }).failed;
  if (!Array.isArray(failed)) return null;
  for (const failure of failed as { error?: unknown }[]) {
    const problem = modelProblem(failure?.error);
    if (problem) return problem;
  }
  return null;
}

type ProblemListener = (problem: ApiError) => void;
const listeners = new Set<ProblemListener>();

/** Runs (chat, swarms, agents) end through their own events, not the
 * query library: they report here what failed, and the banner hears the
 * failures "connect a model" fixes. Anything else is ignored. */
export function reportModelProblem(error: unknown): void {
  const problem = modelProblem(error);
  if (problem) for (const listener of listeners) listener(problem);
}

/** Hears the model problems runs report; returns the unsubscribe. */
export function onModelProblem(listener: ProblemListener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
