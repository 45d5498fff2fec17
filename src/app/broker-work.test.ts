import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { RecallError } from "../core/errors.js";
import { askBroker } from "../indexer/broker.js";
import { brokerOrLocal } from "./broker-work.js";

describe("foreground work through the broker", () => {
  it("tells a second command that a foreground one is busy, as a Conflict it can print in one line", async () => {
    const t = tempDir();
    try {
      let asked: unknown = null;
      const work = brokerOrLocal({
        home: t.dir,
        request: { command: "index" },
        busyMessage: "busy: `recall index` is indexing in the foreground",
        local: async () => {
          // A second `recall index` asks while this one works.
          asked = await askBroker(t.dir, { command: "index" }).catch((error: unknown) => error);
          return "done";
        },
      });
      expect(await work).toEqual({ by: "local", result: "done" });
      expect(asked).toBeInstanceOf(RecallError);
      expect(asked).toMatchObject({
        kind: "Conflict",
        message: "busy: `recall index` is indexing in the foreground; try again when it ends",
      });
    } finally {
      t.cleanup();
    }
  });
});
