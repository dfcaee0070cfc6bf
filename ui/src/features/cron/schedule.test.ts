import { describe, expect, it } from "vitest";

import type { CronJob } from "../../api";
import {
  changesOf,
  draftOf,
  emptyDraft,
  formatDuration,
  formatInZone,
  inputOf,
  noteKind,
  sameClock,
  scheduleKey,
  scheduleOf,
  splitInterval,
  timeZones,
} from "./schedule";

const job: CronJob = {
  id: "press",
  name: "Press",
  schedule: { kind: "interval", seconds: 7200 },
  timeZone: "Europe/Madrid",
  target: { kind: "swarm", id: "prensa" },
  targetName: "Equipo de prensa",
  prompt: "Resume los titulares.",
  missed: "run_once",
  paused: false,
  nextRunAt: "2026-03-29T07:00:00Z",
  unattended: ["network"],
  last: null,
  createdAt: "2026-03-01T10:00:00Z",
  updatedAt: "2026-03-01T10:00:00Z",
};

describe("the job form", () => {
  it("starts on weekdays at nine in the computer's zone", () => {
    const draft = emptyDraft("America/New_York");
    expect(scheduleOf(draft)).toEqual({ kind: "cron", expression: "0 9 * * 1-5" });
    expect(draft.timeZone).toBe("America/New_York");
    expect(draft.missed).toBe("skip");
  });

  it("turns an interval in minutes, hours or days into seconds", () => {
    const draft = { ...emptyDraft("UTC"), mode: "interval" as const, every: "15", unit: "minutes" as const };
    expect(scheduleOf(draft)).toEqual({ kind: "interval", seconds: 900 });
    expect(scheduleOf({ ...draft, every: "2", unit: "hours" })).toEqual({ kind: "interval", seconds: 7200 });
    // Not a whole number: sent as 0, for the backend to refuse by field.
    expect(scheduleOf({ ...draft, every: "1.5" })).toEqual({ kind: "interval", seconds: 0 });
    expect(scheduleOf({ ...draft, every: "" })).toEqual({ kind: "interval", seconds: 0 });
  });

  it("sends a trimmed input with no prompt when none was typed", () => {
    const draft = { ...emptyDraft("UTC"), name: "  Morning  ", expression: " 30 7 * * * ", targetKind: "role" as const, targetId: "prensa", prompt: "  " };
    expect(inputOf(draft)).toEqual({
      name: "Morning",
      schedule: { kind: "cron", expression: "30 7 * * *" },
      timeZone: "UTC",
      target: { kind: "role", id: "prensa" },
      prompt: null,
      missed: "skip",
      paused: null,
      unattended: [],
    });
  });

  it("sends what the job may do with nobody watching, never for a role's wake-up", () => {
    const draft = { ...emptyDraft("UTC"), name: "Feeds", targetId: "writer", prompt: "Read the feeds.", unattended: ["send" as const, "network" as const] };
    expect(inputOf(draft).unattended).toEqual(["network", "send"]);
    expect(inputOf({ ...draft, targetKind: "role" }).unattended).toEqual([]);
    const saved = draftOf(job);
    expect(saved.unattended).toEqual(["network"]);
    expect(changesOf({ ...saved, unattended: ["write", "network"] }, job)).toEqual({ unattended: ["write", "network"] });
    expect(changesOf({ ...saved, unattended: [] }, job)).toEqual({ unattended: [] });
  });

  it("edits a saved job and sends only what changed", () => {
    const draft = draftOf(job);
    expect(draft).toMatchObject({ mode: "interval", every: "2", unit: "hours", targetKind: "swarm", targetId: "prensa", missed: "run_once" });
    expect(changesOf(draft, job)).toEqual({});
    expect(changesOf({ ...draft, prompt: "Otra cosa." }, job)).toEqual({ prompt: "Otra cosa." });
    expect(changesOf({ ...draft, every: "3" }, job)).toEqual({ schedule: { kind: "interval", seconds: 10800 } });
    expect(changesOf({ ...draft, timeZone: "UTC", missed: "skip" }, job)).toEqual({ timeZone: "UTC", missed: "skip" });
  });
});

describe("schedules as people say them", () => {
  it("names the largest whole unit", () => {
    expect(splitInterval(86_400 * 2)).toEqual({ every: 2, unit: "days" });
    expect(splitInterval(5400)).toEqual({ every: 90, unit: "minutes" });
    expect(splitInterval(90)).toEqual({ every: 90, unit: "seconds" });
    expect(scheduleKey({ kind: "interval", seconds: 60 })).toEqual({ key: "cron.schedule.every.minutes", count: 1 });
    expect(scheduleKey({ kind: "cron", expression: "0 9 * * 1-5" })).toEqual({ key: "cron.schedule.cron", expression: "0 9 * * 1-5" });
  });
});

describe("times in a job's zone", () => {
  it("shows the job's wall clock across the daylight-saving change", () => {
    // 9:00 in Madrid before (CET) and after (CEST) 29 March 2026.
    expect(formatInZone("2026-03-28T08:00:00Z", "en-GB", "Europe/Madrid")).toMatch(/09:00/);
    expect(formatInZone("2026-03-30T07:00:00Z", "en-GB", "Europe/Madrid")).toMatch(/09:00/);
    expect(formatInZone("2026-03-30T07:00:00Z", "en-GB", "UTC")).toMatch(/07:00/);
    expect(formatInZone("not a date", "en", "UTC")).toBe("not a date");
  });

  it("tells when the local clock reads differently", () => {
    expect(sameClock("2026-03-30T07:00:00Z", "Europe/Madrid", "Europe/Madrid")).toBe(true);
    expect(sameClock("2026-03-30T07:00:00Z", "Europe/Madrid", "Europe/Paris")).toBe(true);
    expect(sameClock("2026-03-30T07:00:00Z", "Europe/Madrid", "America/New_York")).toBe(false);
  });

  it("lists UTC first and keeps a zone the browser does not list", () => {
    const zones = timeZones("Mars/Olympus");
    expect(zones[0]).toBe("UTC");
    expect(zones).toContain("Mars/Olympus");
    expect(new Set(zones).size).toBe(zones.length);
  });
});

describe("history entries", () => {
  it("says durations and which note an entry is", () => {
    expect(formatDuration(250)).toBe("250 ms");
    expect(formatDuration(1234)).toBe("1.2 s");
    expect(formatDuration(125_000)).toBe("2 min 5 s");
    expect(noteKind({ status: "skipped", trigger: "catch_up", runId: null })).toBe("missed");
    expect(noteKind({ status: "succeeded", trigger: "catch_up", runId: "r" })).toBe("caughtUp");
    expect(noteKind({ status: "skipped", trigger: "manual", runId: null })).toBe("expired");
    expect(noteKind({ status: "skipped", trigger: "schedule", runId: null })).toBe("overlap");
    expect(noteKind({ status: "succeeded", trigger: "manual", runId: null })).toBe("nothingUnread");
  });
});
