// Turns backend errors into sentences in the user's language: field problems
// by their stable `reason`, "in use" refusals by the agents they name, and
// anything else by the backend's own message.

import type { TFunction } from "i18next";

import type { ApiError, FieldProblem } from "../api";

export function fieldErrorText(t: TFunction, problem: FieldProblem | undefined): string | null {
  if (!problem) return null;
  return t(`errors.reasons.${problem.reason}`, { defaultValue: problem.message });
}

export function errorText(t: TFunction, error: ApiError): string {
  const agents = error.blockingAgents();
  if (agents.length > 0) return t("errors.inUse", { agents: agents.join(", ") });
  const reason = error.details?.reason;
  if (reason) return t(`errors.reasons.${reason}`, { defaultValue: error.message });
  return t("errors.generic", { message: error.message });
}
