// The keyboard shortcuts: which keys do what, how they are written in a
// tooltip, and the registry through which the open view offers its "new",
// "run", "save" and "open" actions.
//
// Pure on purpose (no React, no DOM globals): the keys are matched from a
// plain event-like object and the registry is a value, so all of it is
// unit-tested; `shortcutsHooks.ts` binds it to React.

/** What a shortcut does. `view-N` switches to the N-th view (1-based). */
export type ShortcutId = "palette" | "new" | "run" | "save" | `view-${number}`;

/** Actions a view can register; the palette and the keys trigger them. */
export type ActionKind = "new" | "run" | "save" | "open";

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

/** Apple keyboards use ⌘ where others use Ctrl. */
export function isApple(platform: string): boolean {
  return /mac|iphone|ipad/i.test(platform);
}

/** The shortcut an event stands for, or null. Ctrl (⌘ on a Mac) plus K, N,
 * S, Enter or a digit 1–9; with Alt or Shift it is not ours. */
export function matchShortcut(event: KeyLike, apple = false): ShortcutId | null {
  const mod = apple ? event.metaKey : event.ctrlKey;
  if (!mod || event.altKey || event.shiftKey) return null;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  if (key === "k") return "palette";
  if (key === "n") return "new";
  if (key === "s") return "save";
  if (key === "Enter") return "run";
  if (/^[1-9]$/.test(key)) return `view-${Number(key)}`;
  return null;
}

const KEY_LABEL: Record<string, string> = { palette: "K", new: "N", save: "S", run: "Enter" };

/** How a shortcut is written: "Ctrl+N", "Ctrl+3"; "⌘N" on a Mac. */
export function formatShortcut(id: ShortcutId, apple = false): string {
  const key = KEY_LABEL[id] ?? id.replace(/^view-/, "");
  return apple ? `⌘${key === "Enter" ? "↩" : key}` : `Ctrl+${key}`;
}

/** A tooltip with its shortcut: "New agent (Ctrl+N)". */
export function withShortcut(label: string, id: ShortcutId, apple = false): string {
  return `${label} (${formatShortcut(id, apple)})`;
}

export type ActionFn = (arg?: string) => void;

interface Registration {
  kind: ActionKind;
  scope: string;
  fn: ActionFn;
}

/** Whether a registration's scope ("catalog/agents", "swarms") lies in
 * `view` ("catalog"). */
const within = (scope: string, view: string) => scope === view || scope.startsWith(`${view}/`);

export interface ActionRegistry {
  /** Offers `fn` for `kind` in `scope` — a view ("swarms") or a part of one
   * ("catalog/agents") — and returns how to withdraw it. A request made for
   * this scope before it registered runs now. */
  register(kind: ActionKind, scope: string, fn: ActionFn): () => void;
  /** Runs the newest `kind` action registered in `view` or one of its parts;
   * false if there is none. This is what a key press does. */
  trigger(kind: ActionKind, view: string, arg?: string): boolean;
  /** Runs `kind` of exactly `scope`, or, if that scope is still being opened
   * and has not registered it, keeps the request until it does. The palette
   * uses it right after navigating. A new request replaces a kept one. */
  request(kind: ActionKind, scope: string, arg?: string): void;
  /** Whether `view` (or a part of it) currently offers `kind`. */
  has(kind: ActionKind, view: string): boolean;
}

export function createActionRegistry(): ActionRegistry {
  let registrations: Registration[] = [];
  let pending: { kind: ActionKind; scope: string; arg?: string } | null = null;
  const newest = (accept: (r: Registration) => boolean) => [...registrations].reverse().find(accept);

  return {
    register(kind, scope, fn) {
      const entry: Registration = { kind, scope, fn };
      registrations = [...registrations, entry];
      if (pending && pending.kind === kind && pending.scope === scope) {
        const { arg } = pending;
        pending = null;
        fn(arg);
      }
      return () => {
        registrations = registrations.filter((r) => r !== entry);
      };
    },
    trigger(kind, view, arg) {
      const found = newest((r) => r.kind === kind && within(r.scope, view));
      if (!found) return false;
      found.fn(arg);
      return true;
    },
    request(kind, scope, arg) {
      pending = null;
      const found = newest((r) => r.kind === kind && r.scope === scope);
      if (found) found.fn(arg);
      else pending = { kind, scope, arg };
    },
    has: (kind, view) => newest((r) => r.kind === kind && within(r.scope, view)) !== undefined,
  };
}
