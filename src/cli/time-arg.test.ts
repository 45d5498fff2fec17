import { describe, expect, it } from "vitest";
import { timeArg } from "./time-arg.js";

describe("--since / --until as people type them", () => {
  const now = new Date(2026, 2, 1, 15, 30); // 1 March 2026, 15:30 local

  it("takes a plain date as that local day: its start for --since, its end for --until", () => {
    expect(timeArg("2026-01-31", "since", now)).toBe(new Date(2026, 0, 31).toISOString());
    expect(timeArg("2026-01-31", "until", now)).toBe(
      new Date(new Date(2026, 1, 1).getTime() - 1).toISOString(),
    );
  });

  it("takes ages and named days, yesterday across a month's start", () => {
    expect(timeArg("7d", "since", now)).toBe(new Date(now.getTime() - 7 * 86_400_000).toISOString());
    expect(timeArg("12H", "since", now)).toBe(new Date(now.getTime() - 12 * 3_600_000).toISOString());
    expect(timeArg("2w", "until", now)).toBe(new Date(now.getTime() - 14 * 86_400_000).toISOString());
    expect(timeArg("today", "since", now)).toBe(new Date(2026, 2, 1).toISOString());
    expect(timeArg("yesterday", "since", now)).toBe(new Date(2026, 1, 28).toISOString());
    expect(timeArg("yesterday", "until", now)).toBe(
      new Date(new Date(2026, 2, 1).getTime() - 1).toISOString(),
    );
  });

  it("passes the contract's own forms and anything else through for the tool to judge", () => {
    for (const v of ["1767225600000", "2026-01-01T00:00:00Z", "2026-02-30", "last tuesday", "7x"])
      expect(timeArg(v, "since", now)).toBe(v);
  });
});
