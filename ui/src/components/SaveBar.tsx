// The Save bar every editing form ends with, and the guard that keeps
// unsaved work from being lost by a click elsewhere.
//
// The bar sticks to the bottom of the window while the form is longer than
// it, says whether (and how many) fields changed — with their names in its
// tooltip — and holds Save and Discard; Ctrl+S saves. While a form has
// changes, leaving it (another item of the list, another tab or view, the
// palette) goes through `guardLeave`, which asks first.

import { useEffect, useRef, useState } from "react";
import { createPortal } from "react-dom";
import { useTranslation } from "react-i18next";
import { Undo2 } from "lucide-react";

import { shortcutTitle, useShortcutAction } from "../app/shortcutsHooks";
import { Button } from "./Button";
import { Dialog } from "./Dialog";

/** A canonical text of a value: arrays as sorted sets, object keys sorted. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return JSON.stringify(value.map(canonical).sort());
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
    return JSON.stringify(entries.map(([k, v]) => [k, canonical(v)]));
  }
  return JSON.stringify(value ?? null);
}

/** The fields of `current` that differ from `initial`, in `current`'s order.
 * Lists compare as sets (order and repeats do not count as a change). */
export function changedKeys<T extends object>(initial: T, current: T): (keyof T & string)[] {
  return (Object.keys(current) as (keyof T & string)[]).filter((key) => canonical(initial[key]) !== canonical(current[key]));
}

export interface Draft<T extends object> {
  /** What is saved. */
  saved: T;
  /** What the form shows. */
  draft: T;
  setDraft(next: T | ((was: T) => T)): void;
  /** A setter for one field, for `onChange`. */
  set<K extends keyof T>(key: K): (value: T[K]) => void;
  /** Back to what is saved. */
  discard(): void;
  /** After a save: what the backend kept is the new clean state. */
  commit(value: T, version: string | undefined): void;
}

/** A form's draft of `source`, which is saved at `version` (its updatedAt).
 * When the source changes elsewhere (a switch, another client), an untouched
 * form follows it and a changed one keeps its changes. */
export function useDraft<T extends object>(source: T, version: string | undefined, changed: (a: T, b: T) => unknown[] = changedKeys): Draft<T> {
  const [saved, setSaved] = useState({ at: version, value: source });
  const [draft, setDraft] = useState<T>(source);
  if (version !== saved.at) {
    if (changed(saved.value, draft).length === 0) setDraft(source);
    setSaved({ at: version, value: source });
  }
  return {
    saved: saved.value,
    draft,
    setDraft,
    set: (key) => (value) => setDraft((was) => ({ ...was, [key]: value })),
    discard: () => setDraft(saved.value),
    commit: (value, at) => {
      setSaved({ at, value });
      setDraft(value);
    },
  };
}

type Asker = (go: () => void) => void;
let asker: Asker | null = null;

/** Runs `go` (a navigation) now — or, while a form has unsaved changes,
 * once the person agrees to discard them. */
export function guardLeave(go: () => void): void {
  if (asker) asker(go);
  else go();
}

interface SaveBarProps {
  /** Labels of the fields that changed; empty when nothing did. */
  changes: string[];
  onDiscard(): void;
  /** For a form that closes (an inline editor): Cancel closes it, changes
   * and all, in place of Discard. */
  onCancel?: () => void;
  busy?: boolean;
  /** The submit button's text ("Save", "Create agent"). */
  saveLabel: string;
  saveTestId?: string;
  /** A new item can be saved before anything changed; an existing one not. */
  isNew?: boolean;
  /** What is edited, for the leave question ("«Researcher»"). */
  subject: string;
}

/** The sticky bar at the end of a form: its Save is the form's submit. */
export function SaveBar({ changes, onDiscard, onCancel, busy = false, saveLabel, saveTestId, isNew = false, subject }: SaveBarProps) {
  const { t } = useTranslation();
  const bar = useRef<HTMLDivElement>(null);
  const [leaving, setLeaving] = useState<(() => void) | null>(null);
  const dirty = changes.length > 0;

  useEffect(() => {
    if (!dirty) return;
    const mine: Asker = (go) => setLeaving(() => go);
    asker = mine;
    return () => {
      if (asker === mine) asker = null;
    };
  }, [dirty]);

  useShortcutAction("save", () => {
    if (!busy && (dirty || isNew)) bar.current?.closest("form")?.requestSubmit();
  });

  const leave = () => {
    const go = leaving;
    setLeaving(null);
    asker = null;
    go?.();
  };

  const leaveDialog =
    leaving &&
    createPortal(
      <Dialog
        title={t("forms.leave.title")}
        onClose={() => setLeaving(null)}
        closeLabel={t("common.close")}
        testId="leave-dialog"
        footer={
          <>
            <span className="spacer" />
            <Button variant="ghost" onClick={() => setLeaving(null)} data-testid="keep-editing">
              {t("forms.leave.stay")}
            </Button>
            <Button variant="danger" onClick={leave} data-testid="discard-and-leave">
              {t("forms.leave.discard")}
            </Button>
          </>
        }
      >
        <p>{t("forms.leave.body", { count: changes.length, subject, fields: changes.join(", ") })}</p>
      </Dialog>,
      document.body,
    );

  const status = dirty ? t("forms.save.changed", { count: changes.length }) : isNew ? t("forms.save.new") : t("forms.save.clean");
  return (
    <div ref={bar} className={dirty ? "save-bar save-bar-dirty" : "save-bar"} data-testid="save-bar" data-dirty={dirty || undefined}>
      <span className="save-bar-status" title={dirty ? t("forms.save.fields", { fields: changes.join(", ") }) : undefined} aria-live="polite" data-testid="save-bar-status">
        {dirty && <span className="save-bar-dot" aria-hidden="true" />}
        {status}
      </span>
      <span className="spacer" />
      {onCancel ? (
        <Button variant="ghost" disabled={busy} onClick={onCancel} data-testid="cancel-edit">
          {t("common.cancel")}
        </Button>
      ) : (
        <Button variant="ghost" icon={<Undo2 size={15} />} disabled={!dirty || busy} onClick={onDiscard} data-testid="discard-changes">
          {t("forms.save.discard")}
        </Button>
      )}
      <Button
        variant="primary"
        type="submit"
        busy={busy}
        disabled={!dirty && !isNew}
        title={shortcutTitle(saveLabel, "save")}
        data-testid={saveTestId}
      >
        {saveLabel}
      </Button>
      {leaveDialog}
    </div>
  );
}
