// The Console's feed grouped by calendar day (newest day first, the order
// within a day kept): "Today", "Yesterday", then dated headings.

import { dayKey } from "../../app/dates";

export interface Day<T> {
  /** "2026-11-03", the local day. */
  key: string;
  /** A moment of that day, to format the heading from. */
  first: string;
  entries: T[];
}

export function groupByDay<T>(entries: readonly T[], at: (entry: T) => string): Day<T>[] {
  const days: Day<T>[] = [];
  for (const entry of entries) {
    const key = dayKey(at(entry));
    const last = days[days.length - 1];
    if (last?.key === key) last.entries.push(entry);
    else days.push({ key, first: at(entry), entries: [entry] });
  }
  return days;
}
