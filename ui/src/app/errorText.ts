// Turns backend errors into sentences in the user's language: field problems
// by their stable `reason` (with the names the backend listed, such as the
// unknown skills), "in use" refusals by the agents they name, and anything
// else by the backend's own message.

import type { TFunction } from "i18next";

import type { ApiError, FieldProblem } from "../api";

/** The lists in `details` (unknownSkills, agents…), joined for sentences. */
function params(error: ApiError | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(error?.details ?? {})) {
    if (Array.isArray(value)) out[key] = value.join(", ");
    else if (typeof value === "string") out[key] = value;
  }
  return out;
}

export function fieldErrorText(t: TFunction, problem: FieldProblem | undefined, error?: ApiError | null): string | null {
  if (!problem) return null;
  return t(`errors.reasons.${problem.reason}`, { ...params(error), defaultValue: problem.message });
}

export function errorText(t: TFunction, error: ApiError): string {
  const agents = error.blockingAgents();
  if (agents.length > 0) return t("errors.inUse", { agents: agents.join(", ") });
  const reason = error.details?.reason;
  if (reason) return t(`errors.reasons.${reason}`, { ...params(error), message: error.message, defaultValue: error.message });
  return t("errors.generic", { message: error.message });
}
