// The boundary error as the UI handles it. Every command rejects with the
// core's `{code, message, details}`; framework failures (an unknown command,
// a denied permission) reject with a bare string and become `internal`.

import type { AppError, ErrorCode, FieldError } from "../bindings";

export type { ErrorCode };

export interface FieldProblem {
  reason: string;
  message: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: NonNullable<AppError["details"]> | null;

  constructor(code: ErrorCode, message: string, details: AppError["details"] = null) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.details = details ?? null;
  }

  /** Problems per input field, from `details.fields` or `details.field`. */
  fieldProblems(): Record<string, FieldProblem> {
    const problems: Record<string, FieldProblem> = {};
    const listed: FieldError[] = this.details?.fields ?? [];
    for (const f of listed) {
      problems[f.field] ??= { reason: f.reason, message: f.message };
    }
    const field = this.details?.field;
    if (field && !problems[field]) {
      problems[field] = { reason: this.details?.reason ?? "invalid", message: this.message };
    }
    return problems;
  }

  /** Agents named by a refusal such as "model in use". */
  blockingAgents(): string[] {
    return this.details?.agents ?? [];
  }
}

export const ERROR_CODES: readonly ErrorCode[] = [
  "not_found",
  "validation",
  "conflict",
  "unauthorized",
  "forbidden",
  "precondition",
  "upstream",
  "cancelled",
  "internal",
  "rate_limited",
  "busy",
];

function isAppError(value: unknown): value is AppError {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.message === "string" && ERROR_CODES.includes(v.code as ErrorCode);
}

/** Normalises anything a command rejected with into an `ApiError`. */
export function toApiError(value: unknown): ApiError {
  if (value instanceof ApiError) return value;
  if (isAppError(value)) return new ApiError(value.code, value.message, value.details ?? null);
  if (value instanceof Error) return new ApiError("internal", value.message);
  return new ApiError("internal", typeof value === "string" ? value : JSON.stringify(value));
}
