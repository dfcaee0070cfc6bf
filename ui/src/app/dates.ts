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

/** Just the time of day, "14:05", for lists already grouped by day. */
export function formatTime(iso: string, language: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(language, { hour: "2-digit", minute: "2-digit" }).format(date);
}

/** A day heading: "Today", "Yesterday", "Monday, 3 November" this year,
 * "3 November 2025" before. */
export function formatDay(iso: string, language: string, now: Date = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const days = Math.round((startOfDay(date) - startOfDay(now)) / 86_400_000);
  if (days === 0 || days === -1) {
    const text = new Intl.RelativeTimeFormat(language, { numeric: "auto" }).format(days, "day");
    return text.charAt(0).toLocaleUpperCase(language) + text.slice(1);
  }
  if (date.getFullYear() === now.getFullYear()) {
    const text = new Intl.DateTimeFormat(language, { weekday: "long", day: "numeric", month: "long" }).format(date);
    return text.charAt(0).toLocaleUpperCase(language) + text.slice(1);
  }
  return new Intl.DateTimeFormat(language, { dateStyle: "long" }).format(date);
}

/** The local calendar day of a moment, as "2026-11-03": the key to group by. */
export function dayKey(iso: string): string {
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** "in 29 minutes", "2 hours ago": a moment relative to now. */
export function formatFromNow(iso: string, language: string, now: Date = new Date()): string {
  const at = new Date(iso).getTime();
  if (Number.isNaN(at)) return iso;
  const minutes = Math.round((at - now.getTime()) / 60_000);
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
    time: (iso: string) => formatTime(iso, language),
    day: (iso: string) => formatDay(iso, language),
  };
}

function startOfDay(date: Date): number {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

function sameDay(a: Date, b: Date): boolean {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}
