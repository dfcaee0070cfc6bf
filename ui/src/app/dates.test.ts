import { describe, expect, it } from "vitest";

import { dayKey, formatDay, formatExact, formatFromNow, formatTime, formatWhen } from "./dates";

// Local times, so the assertions hold in any time zone the tests run in.
const now = new Date(2026, 10, 3, 18, 30);
const at = (...parts: [number, number, number, number, number]) => new Date(...parts).toISOString();

describe("one date format everywhere", () => {
  it("shows only the time for a moment today", () => {
    expect(formatWhen(at(2026, 10, 3, 14, 5), "es", now)).toBe("14:05");
    expect(formatWhen(at(2026, 10, 3, 14, 5), "en", now)).toMatch(/^02:05\sPM$/);
  });

  it("adds day and month earlier this year, and the year before it", () => {
    expect(formatWhen(at(2026, 2, 9, 8, 0), "es", now)).toBe("9 mar, 08:00");
    expect(formatWhen(at(2025, 2, 9, 8, 0), "es", now)).toBe("9 mar 2025, 08:00");
    expect(formatWhen(at(2025, 2, 9, 8, 0), "en", now)).toMatch(/^Mar 9, 2025, 08:00\sAM$/);
  });

  it("keeps the full moment, seconds included, for tooltips", () => {
    expect(formatExact(at(2026, 10, 3, 14, 5), "es")).toMatch(/^3 de noviembre de 2026\D+14:05:00$/);
  });

  it("names today and yesterday, then the weekday, then the full date", () => {
    expect(formatDay(at(2026, 10, 3, 0, 10), "en", now)).toBe("Today");
    expect(formatDay(at(2026, 10, 2, 23, 50), "es", now)).toBe("Ayer");
    expect(formatDay(at(2026, 9, 27, 12, 0), "es", now)).toBe("Martes, 27 de octubre");
    expect(formatDay(at(2024, 0, 5, 12, 0), "en", now)).toBe("January 5, 2024");
  });

  it("groups by the local calendar day", () => {
    expect(dayKey(at(2026, 10, 3, 0, 10))).toBe("2026-11-03");
    expect(dayKey(at(2026, 10, 2, 23, 50))).toBe("2026-11-02");
  });

  it("says how far a moment is from now", () => {
    expect(formatFromNow(at(2026, 10, 3, 18, 59), "en", now)).toBe("in 29 minutes");
    expect(formatFromNow(at(2026, 10, 3, 16, 30), "es", now)).toBe("hace 2 horas");
  });

  it("gives back text that is not a date instead of 'Invalid Date'", () => {
    for (const format of [formatWhen, formatExact, formatTime, formatDay, formatFromNow]) {
      expect(format("soon", "en")).toBe("soon");
    }
  });
});
