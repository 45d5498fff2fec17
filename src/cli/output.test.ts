import { describe, expect, it } from "vitest";
import { formatBytes, counted } from "./output.js";

describe("formatBytes", () => {
  it("keeps small sizes readable instead of rounding them to 0.0 MB", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1023)).toBe("1023 B");
    expect(formatBytes(4400)).toBe("4.3 KB");
    expect(formatBytes(12 * 1024 ** 2)).toBe("12.0 MB");
    expect(formatBytes(2.41 * 1024 ** 3)).toBe("2.41 GB");
  });
});

describe("counted", () => {
  it("names one thing in the singular and any other count in the plural", () => {
    expect(counted(1, "file")).toBe("1 file");
    expect(counted(0, "file")).toBe("0 files");
    expect(counted(2, "batch", "batches")).toBe("2 batches");
    expect(counted(12_345, "record")).toBe("12,345 records");
  });
});
