import { describe, expect, it } from "vitest";

import i18n from "../../i18n";
import { wakeInterval } from "./interval";

describe("wakeInterval", () => {
  it("says the interval in the largest whole unit", () => {
    expect(wakeInterval(1440)).toEqual({ unit: "day", count: 1 });
    expect(wakeInterval(10080)).toEqual({ unit: "day", count: 7 });
    expect(wakeInterval(120)).toEqual({ unit: "hour", count: 2 });
    expect(wakeInterval(90)).toEqual({ unit: "minute", count: 90 });
    expect(wakeInterval(1)).toEqual({ unit: "minute", count: 1 });
  });

  it("reads as a sentence in both languages", async () => {
    const say = (minutes: number) => {
      const { unit, count } = wakeInterval(minutes);
      return i18n.t(`schedule.every.${unit}`, { count });
    };
    await i18n.changeLanguage("en");
    expect(say(1440)).toBe("every day");
    expect(say(120)).toBe("every 2 hours");
    expect(say(30)).toBe("every 30 minutes");
    await i18n.changeLanguage("es");
    expect(say(1440)).toBe("cada día");
    expect(say(60)).toBe("cada hora");
    expect(say(2880)).toBe("cada 2 días");
    await i18n.changeLanguage("en");
  });
});
