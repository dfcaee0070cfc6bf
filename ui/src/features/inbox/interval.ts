// How often a role wakes, said as people say it: "every day", "every 2
// hours", "every 45 minutes" — not "every 1440 minutes".

export type IntervalUnit = "day" | "hour" | "minute";

/** The largest whole unit the interval is made of, and how many. */
export function wakeInterval(minutes: number): { unit: IntervalUnit; count: number } {
  if (minutes >= 1440 && minutes % 1440 === 0) return { unit: "day", count: minutes / 1440 };
  if (minutes >= 60 && minutes % 60 === 0) return { unit: "hour", count: minutes / 60 };
  return { unit: "minute", count: minutes };
}
