// Errors carry their fix (issue 37, item 4): every error the window shows
// maps to what the person can do about it in one click — give the refused
// key again, send images to a model, choose a default model, switch a
// provider or model back on, try again, open where it is fixed — or, said
// explicitly, nothing (a field error is fixed in its field; a bug has no
// fix the person can make). Every reason the window has words for is
// classified here; `remedies.test.ts` fails on one that is not.

import type { ApiError, ErrorCode } from "../api";
import type { ViewId } from "./views";

export type Remedy =
  /** The provider refused its key: its dialog, the key field focused. */
  | { kind: "providerKey"; providerId: string }
  /** The model was given images it is not set to take: switch them on. */
  | { kind: "modelImages"; modelId: string }
  /** Models exist but none is the default: choose one. */
  | { kind: "chooseDefault" }
  /** No model to run on: connect one. */
  | { kind: "connectModel" }
  | { kind: "enableProvider"; providerId: string }
  | { kind: "enableModel"; modelId: string }
  /** Passing trouble: the same action again. */
  | { kind: "retry" }
  /** Fixed elsewhere in the window. */
  | { kind: "open"; view: ViewId; section?: string }
  /** The form shows the problem at its field; editing it is the fix. */
  | { kind: "editField" }
  | { kind: "none" };

type Details = Record<string, unknown>;

const text = (d: Details, key: string): string | null => (typeof d[key] === "string" ? (d[key] as string) : null);

/** Reasons with a fix of their own, given the error's details. */
const ACTIONS: Record<string, (d: Details) => Remedy> = {
  auth_refused: (d) => (text(d, "providerId") ? { kind: "providerKey", providerId: text(d, "providerId") as string } : { kind: "open", view: "settings", section: "providers" }),
  model_without_images: (d) => (text(d, "modelId") ? { kind: "modelImages", modelId: text(d, "modelId") as string } : { kind: "open", view: "settings", section: "providers" }),
  no_default: () => ({ kind: "chooseDefault" }),
  no_model: () => ({ kind: "connectModel" }),
  unknown_model: () => ({ kind: "connectModel" }),
  provider_disabled: (d) => (text(d, "providerId") ? { kind: "enableProvider", providerId: text(d, "providerId") as string } : { kind: "open", view: "settings", section: "providers" }),
  model_disabled: (d) => (text(d, "modelId") ? { kind: "enableModel", modelId: text(d, "modelId") as string } : { kind: "open", view: "settings", section: "providers" }),
  agent_disabled: () => ({ kind: "open", view: "catalog", section: "agents" }),
  unknown_agent: () => ({ kind: "open", view: "catalog", section: "agents" }),
  swarm_disabled: () => ({ kind: "open", view: "swarms" }),
  role_without_agent: () => ({ kind: "open", view: "inbox" }),
  no_team_bus: () => ({ kind: "open", view: "settings", section: "server" }),
  unknown_backend: () => ({ kind: "open", view: "settings", section: "data" }),
  not_used: () => ({ kind: "open", view: "settings", section: "data" }),
  no_scheduler: () => ({ kind: "retry" }),
};

/** Passing trouble: trying again is the fix. */
const RETRY = [
  "rate_limited",
  "rate_limit",
  "provider_error",
  "empty_answer",
  "unreachable",
  "timeout",
  "stream_broken",
  "store_busy",
  "conflicting_change",
  "outbox_waiting",
  "inbox_full",
];

/** Problems with what was typed: the form marks the field. */
const FIELD = [
  "required",
  "too_long",
  "control_characters",
  "no_letters",
  "unknown_kind",
  "invalid_url",
  "invalid_key",
  "duplicate",
  "duplicate_id",
  "invalid_model_name",
  "unknown_provider",
  "invalid_skill_name",
  "unknown_tools",
  "unknown_skills",
  "unknown_mcp_servers",
  "invalid_pattern",
  "not_text",
  "missing_front_matter",
  "invalid_yaml",
  "name_differs_from_folder",
  "no_skill_md",
  "invalid_user",
  "unknown_specialists",
  "unknown_agents",
  "not_a_folder",
  "duplicate_member",
  "no_members",
  "no_orchestrator",
  "several_orchestrators",
  "orchestrator_not_hierarchical",
  "duplicate_name",
  "out_of_range",
  "needs_agent",
  "invalid_priority",
  "unknown_author",
  "invalid_time",
  "unknown_preset",
  "not_an_object",
  "unknown_format",
  "not_an_image",
  "not_base64",
  "key_required_for_new_origin",
  "not_absolute",
  "scheme",
  "too_many",
  "invalid_name",
  "invalid_value",
  "too_large",
  "not_a_file",
  "unreadable",
  "unknown_name",
  "colmena_reference",
  "invalid_placeholder",
  "placeholder_in_key",
  "placeholder_in_origin",
  "placeholder_in_query",
  "credentials_in_url",
  "fragment",
  "reserved_header",
  "body_with_get",
  "not_an_object_schema",
  "invalid_slug",
  "dot_segment",
  "origin_changed",
  "invalid_cron",
  "never_fires",
  "interval_out_of_range",
  "unknown_time_zone",
  "unknown_target",
  "https_required",
  "token_in_url",
  "invalid_pem",
  "unchanged",
  "image_missing",
  "not_writable",
];

/** Said, with nothing to click: the sentence is the whole answer (a rule
 * that holds, a state that is already so, a door only a person has). */
const NONE = [
  "secrets_locked",
  "catalog_agent",
  "step_limit",
  "no_checkpoint",
  "not_interrupted",
  "not_running",
  "already_decided",
  "not_a_person",
  "use_dialog",
  "not_listed",
  "local_only",
  "immutable",
  "no_result",
];

const BY_CODE: Record<ErrorCode, Remedy> = {
  not_found: { kind: "none" },
  validation: { kind: "editField" },
  conflict: { kind: "editField" },
  unauthorized: { kind: "none" },
  forbidden: { kind: "none" },
  precondition: { kind: "none" },
  upstream: { kind: "retry" },
  cancelled: { kind: "none" },
  internal: { kind: "none" },
  rate_limited: { kind: "retry" },
  busy: { kind: "retry" },
};

/** Every reason this build classifies (the test holds the catalogs to it). */
export const CLASSIFIED: ReadonlySet<string> = new Set([...Object.keys(ACTIONS), ...RETRY, ...FIELD, ...NONE]);

/** The remedy of a reason; `null` for one this build does not know. */
export function remedyOfReason(reason: string, details: Details = {}): Remedy | null {
  const action = ACTIONS[reason];
  if (action) return action(details);
  if (RETRY.includes(reason)) return { kind: "retry" };
  if (FIELD.includes(reason)) return { kind: "editField" };
  if (NONE.includes(reason)) return { kind: "none" };
  return null;
}

export function remedyOfCode(code: ErrorCode): Remedy {
  return BY_CODE[code];
}

/** What fixes `error`: its reason's remedy, else its code's. */
export function remedyFor(error: ApiError): Remedy {
  const details = (error.details ?? {}) as Details;
  const reason = typeof details.reason === "string" ? details.reason : null;
  return (reason ? remedyOfReason(reason, details) : null) ?? remedyOfCode(error.code);
}
