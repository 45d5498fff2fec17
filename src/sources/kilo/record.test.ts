import { describe, expect, it } from "vitest";
import { mapKiloSession } from "./record.js";

// A session row in Kilo Code CLI 7.7's kilo.db, written for these tests.
const row = {
  id: "ses_1",
  updatedAt: 2,
  parent_id: "ses_0",
  directory: "/w/app",
  title: "New session - 2026-12-04T17:23:53.241Z",
  version: "7.7.7",
  model: '{"id":"model-x","providerID":"mock","variant":"default"}',
  time_created: 1,
  time_updated: 2,
};

describe("Kilo sessions", () => {
  it("read as opencode's, with Kilo's placeholder title dropped and the model from `id`", () => {
    expect(mapKiloSession(row)).toMatchObject({
      id: "ses_1",
      parentId: "ses_0",
      directory: "/w/app",
      model: { providerID: "mock", modelID: "model-x" },
    });
    expect(mapKiloSession(row)?.title).toBeUndefined();
    expect(mapKiloSession({ ...row, title: "Auth store choice" })?.title).toBe("Auth store choice");
  });
});
