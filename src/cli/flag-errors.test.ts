import { describe, expect, it } from "vitest";
import { RecallError } from "../core/errors.js";
import { asFlagError } from "./flag-errors.js";

const NAMES = { limit: "--limit", "filters.since": "--since" };

describe("asFlagError", () => {
  it("names the flags of every issue and makes the error a usage error", () => {
    const error = asFlagError(
      new RecallError("Validation", "limit: Too big; filters.since: must be a time"),
      NAMES,
    ) as RecallError;
    expect(error.kind).toBe("Usage");
    expect(error.message).toBe("--limit: Too big; --since: must be a time");
  });

  it("names the flag of a NotFound about its value, which stays NotFound", () => {
    const error = asFlagError(new RecallError("NotFound", "limit: no such page"), NAMES) as RecallError;
    expect([error.kind, error.message]).toEqual(["NotFound", "--limit: no such page"]);
  });

  it("leaves errors about fields no flag feeds, and other kinds, as they are", () => {
    for (const original of [
      new RecallError("Validation", "limit: Too big; filters.kind: no such kind"),
      new RecallError("Validation", "constructor: inherited, not a flag"),
      new RecallError("Validation", "limit, extra: unknown field"),
      new RecallError("NotFound", "nothing indexed yet"),
      new RecallError("Internal", "limit: broken"),
      new Error("limit: plain"),
    ])
      expect(asFlagError(original, NAMES)).toBe(original);
  });
});
