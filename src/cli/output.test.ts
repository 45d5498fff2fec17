import { describe, expect, it } from "vitest";
import { formatBytes } from "./output.js";

describe("formatBytes", () => {
  it("keeps small sizes readable instead of rounding them to 0.0 MB", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1023)).toBe("1023 B");
    expect(formatBytes(4400)).toBe("4.3 KB");
    expect(formatBytes(12 * 1024 ** 2)).toBe("12.0 MB");
    expect(formatBytes(2.41 * 1024 ** 3)).toBe("2.41 GB");
  });
});
