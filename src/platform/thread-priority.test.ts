import { getPriority } from "node:os";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { lowerThreadPriority } from "./thread-priority.js";

const COMPILED = new URL("../../dist/platform/thread-priority.js", import.meta.url).href;

describe("lowerThreadPriority", () => {
  it.runIf(process.platform === "linux")(
    "renices the worker thread that asks and the threads it starts, never the process's main thread",
    async () => {
      const before = getPriority();
      expect(lowerThreadPriority()).toBe(false);
      const source = `
        const { parentPort, Worker } = require("node:worker_threads");
        const { readlinkSync } = require("node:fs");
        const { getPriority } = require("node:os");
        const own = () => getPriority(Number(readlinkSync("/proc/thread-self").split("/").pop()));
        import(${JSON.stringify(COMPILED)}).then((m) => {
          const lowered = m.lowerThreadPriority();
          const child = new Worker(
            'const { readlinkSync } = require("node:fs"); require("node:worker_threads").parentPort.postMessage(require("node:os").getPriority(Number(readlinkSync("/proc/thread-self").split("/").pop())))',
            { eval: true },
          );
          child.once("message", (nested) => parentPort.postMessage({ lowered, own: own(), nested }));
        });`;
      const seen = await new Promise((resolve, reject) => {
        const worker = new Worker(source, { eval: true });
        worker.once("message", (m) => void worker.terminate().then(() => resolve(m)));
        worker.once("error", reject);
      });
      expect(seen).toEqual({ lowered: true, own: 10, nested: 10 });
      expect(getPriority()).toBe(before);
    },
  );
});
