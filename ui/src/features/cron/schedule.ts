// The Cron view's logic, out of its components: the job form's draft and
// the input it becomes, schedules said as people say them, and times shown
// in a job's time zone and in the computer's.

import type { CronJob, CronJobUpdate, CronRun, CronSchedule, CronTarget, MissedPolicy, NewCronJob, Risk } from "../../api";

export type ScheduleMode = "cron" | "interval";
export type IntervalUnit = "seconds" | "minutes" | "hours" | "days";
export type TargetKind = CronTarget["kind"];

/** The classes a person may allow a job's runs with nobody watching (as
 * for a role's wake-ups in the Inbox); reading needs no grant. */
export const UNATTENDED: Risk[] = ["write", "run", "network", "send", "act"];

const UNIT_SECONDS: Record<IntervalUnit, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 };

/** What the job form holds while it is filled in (text as typed). */
export interface JobDraft {
  name: string;
  mode: ScheduleMode;
  expression: string;
  every: string;
  unit: IntervalUnit;
  timeZone: string;
  targetKind: TargetKind;
  targetId: string;
  prompt: string;
  missed: MissedPolicy;
  /** What its runs may also do with nobody watching (agents and swarms;
   * a role's wake-up keeps the role's grant). */
  unattended: Risk[];
}

/** The computer's IANA time zone, as the browser knows it. */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** Every IANA zone the browser knows (UTC first), with `extra` kept when
 * it is missing (a job saved elsewhere in a zone this list lacks). */
export function timeZones(extra?: string): string[] {
  let zones: string[] = [];
  try {
    zones = (Intl as unknown as { supportedValuesOf?(key: string): string[] }).supportedValuesOf?.("timeZone") ?? [];
  } catch {
    zones = [];
  }
  const all = new Set(["UTC", ...zones]);
  if (extra) all.add(extra);
  const local = browserTimeZone();
  all.add(local);
  return [...all].sort((a, b) => (a === "UTC" ? -1 : b === "UTC" ? 1 : a.localeCompare(b)));
}

/** The largest whole unit an interval is made of, and how many. */
export function splitInterval(seconds: number): { every: number; unit: IntervalUnit } {
  for (const unit of ["days", "hours", "minutes"] as const) {
    const size = UNIT_SECONDS[unit];
    if (seconds >= size && seconds % size === 0) return { every: seconds / size, unit };
  }
  return { every: seconds, unit: "seconds" };
}

/** A fresh draft: every weekday at 9:00 in the computer's zone. */
export function emptyDraft(timeZone = browserTimeZone()): JobDraft {
  return {
    name: "",
    mode: "cron",
    expression: "0 9 * * 1-5",
    every: "15",
    unit: "minutes",
    timeZone,
    targetKind: "agent",
    targetId: "",
    prompt: "",
    missed: "skip",
    unattended: [],
  };
}

/** A saved job as a draft to edit. */
export function draftOf(job: CronJob): JobDraft {
  const base = emptyDraft(job.timeZone);
  const schedule =
    job.schedule.kind === "cron"
      ? { mode: "cron" as const, expression: job.schedule.expression }
      : (() => {
          const { every, unit } = splitInterval(job.schedule.seconds);
          return { mode: "interval" as const, every: String(every), unit };
        })();
  return {
    ...base,
    ...schedule,
    name: job.name,
    targetKind: job.target.kind,
    targetId: job.target.id,
    prompt: job.prompt,
    missed: job.missed,
    unattended: job.unattended,
  };
}

/** The schedule the draft says; an interval that is not a whole number is
 * sent as 0 seconds, for the backend to refuse by field. */
export function scheduleOf(draft: JobDraft): CronSchedule {
  if (draft.mode === "cron") return { kind: "cron", expression: draft.expression.trim() };
  const count = Number(draft.every.trim());
  const seconds = Number.isInteger(count) && count > 0 ? count * UNIT_SECONDS[draft.unit] : 0;
  return { kind: "interval", seconds };
}

/** The input of `create_cron_job` from a draft. */
export function inputOf(draft: JobDraft): NewCronJob {
  const prompt = draft.prompt.trim();
  return {
    name: draft.name.trim(),
    schedule: scheduleOf(draft),
    timeZone: draft.timeZone,
    target: { kind: draft.targetKind, id: draft.targetId } as CronTarget,
    prompt: prompt ? prompt : null,
    missed: draft.missed,
    paused: null,
    unattended: draft.targetKind === "role" ? [] : UNATTENDED.filter((r) => draft.unattended.includes(r)),
  };
}

/** How a schedule reads in a list: the expression, or "every 15 minutes". */
export function scheduleKey(schedule: CronSchedule): { key: string; count?: number; expression?: string } {
  if (schedule.kind === "cron") return { key: "cron.schedule.cron", expression: schedule.expression };
  const { every, unit } = splitInterval(schedule.seconds);
  return { key: `cron.schedule.every.${unit}`, count: every };
}

/** "Mon 30 Mar, 09:00 CEST": a moment on the clock of `timeZone`. */
export function formatInZone(iso: string, language: string, timeZone: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  try {
    return new Intl.DateTimeFormat(language, {
      weekday: "short",
      day: "numeric",
      month: "short",
      hour: "2-digit",
      minute: "2-digit",
      timeZone,
      timeZoneName: "short",
    }).format(date);
  } catch {
    return date.toISOString();
  }
}

/** Whether the job's zone shows the same wall clock as the computer's at `iso`. */
export function sameClock(iso: string, timeZone: string, localZone = browserTimeZone()): boolean {
  if (timeZone === localZone) return true;
  const date = new Date(iso);
  const clock = (zone: string) =>
    new Intl.DateTimeFormat("en", { hour: "2-digit", minute: "2-digit", day: "numeric", timeZone: zone }).format(date);
  try {
    return clock(timeZone) === clock(localZone);
  } catch {
    return false;
  }
}

/** "1.2 s", "3 min 4 s", "250 ms". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

/** What an edit changes: only the fields that differ from the saved job
 * (a schedule or zone sent unchanged would restart an interval's cadence). */
export function changesOf(draft: JobDraft, job: CronJob): CronJobUpdate {
  const input = inputOf(draft);
  const changes: CronJobUpdate = {};
  if (input.name !== job.name) changes.name = input.name;
  if (JSON.stringify(input.schedule) !== JSON.stringify(job.schedule)) changes.schedule = input.schedule;
  if (input.timeZone !== job.timeZone) changes.timeZone = input.timeZone;
  if (input.target.kind !== job.target.kind || input.target.id !== job.target.id) changes.target = input.target;
  if ((input.prompt ?? "") !== job.prompt) changes.prompt = input.prompt ?? "";
  if (input.missed !== job.missed) changes.missed = input.missed;
  const granted = input.unattended ?? [];
  const saved = UNATTENDED.filter((r) => job.unattended.includes(r));
  if (granted.join() !== saved.join()) changes.unattended = granted;
  return changes;
}

/** Which sentence a history entry's note is (the note itself, with counts
 * and times in English, is kept for the tooltip). */
export function noteKind(entry: Pick<CronRun, "status" | "trigger" | "runId">): "missed" | "caughtUp" | "expired" | "overlap" | "nothingUnread" {
  if (entry.trigger === "catch_up") return entry.status === "skipped" ? "missed" : "caughtUp";
  if (entry.status === "skipped") return entry.trigger === "manual" ? "expired" : "overlap";
  return "nothingUnread";
}
