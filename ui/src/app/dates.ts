// One date format everywhere (issue 12, item 6): every date or time the app
// shows goes through these, in the interface language. A moment today shows
// its time; earlier this year, day and month; older, the full date.

import { useTranslation } from "react-i18next";

/** "14:05" today, "3 Nov, 14:05" this year, "3 Nov 2025, 14:05" before. */
export function formatWhen(iso: string, language: string, now: Date = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const time: Intl.DateTimeFormatOptions = { hour: "2-digit", minute: "2-digit" };
  if (sameDay(date, now)) return new Intl.DateTimeFormat(language, time).format(date);
  const day: Intl.DateTimeFormatOptions = { day: "numeric", month: "short", ...time };
  if (date.getFullYear() === now.getFullYear()) return new Intl.DateTimeFormat(language, day).format(date);
  return new Intl.DateTimeFormat(language, { ...day, year: "numeric" }).format(date);
}

/** The full moment, for tooltips: "3 November 2026 at 14:05:09". */
export function formatExact(iso: string, language: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(language, { dateStyle: "long", timeStyle: "medium" }).format(date);
}

/** "in 29 minutes", "2 hours ago": a moment relative to now. */
export function formatFromNow(iso: string, language: string, now: Date = new Date()): string {
  const minutes = Math.round((new Date(iso).getTime() - now.getTime()) / 60_000);
  const format = new Intl.RelativeTimeFormat(language, { numeric: "auto" });
  if (Math.abs(minutes) < 90) return format.format(minutes, "minute");
  if (Math.abs(minutes) < 48 * 60) return format.format(Math.round(minutes / 60), "hour");
  return format.format(Math.round(minutes / 1440), "day");
}

/** The three formatters bound to the interface language. */
export function useDates() {
  const { i18n } = useTranslation();
  const language = i18n.language;
  return {
    when: (iso: string) => formatWhen(iso, language),
    exact: (iso: string) => formatExact(iso, language),
    fromNow: (iso: string) => formatFromNow(iso, language),
  };
}

function sameDay(a: Date, b: Date): boolean {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}
