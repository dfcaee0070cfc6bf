import { describe, expect, it } from "vitest";

import { formatBytes, formatDuration, percentOf } from "./format";

describe("download figures", () => {
  it("sizes read as MB below a gigabyte and GB above", () => {
    expect(formatBytes(98_362_432, "en")).toBe("98 MB");
    expect(formatBytes(1_117_320_736, "en")).toBe("1.1 GB");
    expect(formatBytes(1_117_320_736, "es")).toBe("1,1 GB");
  });

  it("the percentage waits for a size and never passes 100", () => {
    const p = { name: "m", downloaded: 50, total: null, bytesPerSecond: 0, secondsLeft: null };
    expect(percentOf(p)).toBeNull();
    expect(percentOf({ ...p, total: 200 })).toBe(25);
    expect(percentOf({ ...p, downloaded: 300, total: 200 })).toBe(100);
  });

  it("time left reads as m:ss, and h:mm:ss past an hour", () => {
    expect(formatDuration(4)).toBe("0:04");
    expect(formatDuration(125)).toBe("2:05");
    expect(formatDuration(3725)).toBe("1:02:05");
  });
});
