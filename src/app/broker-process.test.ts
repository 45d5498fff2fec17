import { writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ConfigSchema } from "../config/schema.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { brokerThread } from "./broker-process.js";

/**
 * A stand-in for broker-thread.ts speaking its protocol (broker-thread-protocol.ts): it answers
 * "ping" with its thread's start count and ends the whole thread on "crash", as a heap limit would.
 */
const STAND_IN = `
import { parentPort, workerData } from "node:worker_threads";
import { appendFileSync, readFileSync } from "node:fs";
appendFileSync(workerData.file, "x");
const starts = readFileSync(workerData.file, "utf8").length;
parentPort.on("message", (m) => {
  if (m.type === "stop") { parentPort.postMessage({ type: "stopped" }); parentPort.close(); return; }
  if (m.request.command === "crash") process.exit(3);
  if (m.request.command === "refuse") parentPort.postMessage({ type: "refused", id: m.id, message: "no such app", kind: "NotFound" });
  else parentPort.postMessage({ type: "answer", id: m.id, result: { starts } });
});
`;

describe("the broker's thread, seen from the process", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it("passes answers and error kinds back, and starts a thread that ended unasked again", async () => {
    const t = tempDir("recall-broker-thread-");
    cleanup = t.cleanup;
    const entry = path.join(t.dir, "stand-in.mjs");
    writeFileSync(entry, STAND_IN);
    const lines: string[] = [];
    const spec = {
      home: t.dir,
      file: path.join(t.dir, "starts"),
      sourceEnv: {},
      config: ConfigSchema.parse({}),
    };
    const duties = brokerThread(pathToFileURL(entry), spec, (line) => lines.push(line), 200);
    try {
      expect(await duties.answer({ command: "ping" }, () => {})).toEqual({ starts: 1 });
      await expect(duties.answer({ command: "refuse" }, () => {})).rejects.toMatchObject({
        name: "RecallError",
        kind: "NotFound",
        message: "no such app",
      });
      await expect(duties.answer({ command: "crash" }, () => {})).rejects.toThrow(/thread ended/);
      await expect(duties.answer({ command: "ping" }, () => {})).rejects.toThrow(/not the broker/);
      expect(lines).toEqual(["the broker's thread ended; starting it again in 0.2 s"]);
      await vi.waitFor(
        async () => expect(await duties.answer({ command: "ping" }, () => {})).toEqual({ starts: 2 }),
        {
          timeout: 5_000,
        },
      );
    } finally {
      await duties.stop();
    }
    // Stopped on purpose: no restart follows.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(lines).toHaveLength(1);
  });
});
