import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { isRecallError, RecallError } from "../core/errors.js";
import { askBroker, electBroker, type BrokerHandle } from "./broker.js";

describe("broker election", () => {
  const handles: BrokerHandle[] = [];
  let cleanup = () => {};
  afterEach(async () => {
    for (const h of handles.splice(0)) await h.close();
    cleanup();
  });

  it("elects exactly one of several contenders and hands over when it closes", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const elected: number[] = [];
    for (let i = 0; i < 4; i++) {
      handles.push(
        electBroker({
          home: t.dir,
          retryMs: 50,
          onElected: () => {
            elected.push(i);
          },
          onRequest: async (r) => ({ echo: r.command, by: i }),
        }),
      );
    }
    await Promise.race(handles.map((h) => h.elected()));
    await new Promise((r) => setTimeout(r, 300));
    expect(handles.filter((h) => h.isBroker)).toHaveLength(1);
    const first = handles.findIndex((h) => h.isBroker);
    expect(await askBroker(t.dir, { command: "ping" })).toEqual({ echo: "ping", by: first });

    await handles[first]!.close();
    const rest = handles.filter((_, i) => i !== first);
    await Promise.race(rest.map((h) => h.elected()));
    await new Promise((r) => setTimeout(r, 300));
    expect(rest.filter((h) => h.isBroker)).toHaveLength(1);
    expect(elected).toHaveLength(2);
  });

  it("rejects requests without the token", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const h = electBroker({ home: t.dir, onElected: () => {}, onRequest: async () => "secret" });
    handles.push(h);
    await h.elected();
    writeFileSync(path.join(t.dir, "broker.token"), "0".repeat(64));
    await expect(askBroker(t.dir, { command: "ping" })).rejects.toThrow("forbidden");
    // A file holding no token is no token: nobody is asked.
    writeFileSync(path.join(t.dir, "broker.token"), "");
    expect(await askBroker(t.dir, { command: "ping" })).toBeNull();
  });

  it("waits for a token file another process is writing, and replaces one left empty by a crash", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = path.join(t.dir, "broker.token");
    // Another process has the file open and empty, and writes its token 300 ms later.
    const theirs = "ab".repeat(32);
    const writer = spawn(process.execPath, [
      "-e",
      `require("node:fs").writeFileSync(${JSON.stringify(file)}, "");
       setTimeout(() => require("node:fs").writeFileSync(${JSON.stringify(file)}, "${theirs}"), 300);
       console.log("open");`,
    ]);
    await new Promise((resolve) => writer.stdout.once("data", resolve));
    const h = electBroker({ home: t.dir, onElected: () => {}, onRequest: async () => "pong" });
    handles.push(h);
    await h.elected();
    await new Promise((resolve) => writer.once("exit", resolve));
    expect(readFileSync(file, "utf8")).toBe(theirs);
    // The broker holds their token, not the empty file's "": their requests are answered.
    expect(await askBroker(t.dir, { command: "ping" })).toBe("pong");
    await h.close();
    handles.length = 0;

    // Empty for longer than a writer takes: left by a process killed mid-write. A new token replaces it.
    writeFileSync(file, "");
    const past = new Date(Date.now() - 60_000);
    utimesSync(file, past, past);
    const next = electBroker({ home: t.dir, onElected: () => {}, onRequest: async () => "pong" });
    handles.push(next);
    await next.elected();
    expect(readFileSync(file, "utf8")).toMatch(/^[0-9a-f]{64}$/);
    expect(await askBroker(t.dir, { command: "ping" })).toBe("pong");
  });

  it("passes a caller's error kind back (NotFound stays NotFound), and others as plain errors", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const h = electBroker({
      home: t.dir,
      onElected: () => {},
      onRequest: async (r) => {
        if (r.command === "forget") throw new RecallError("NotFound", "no indexed history for session x");
        throw new Error("disk on fire");
      },
    });
    handles.push(h);
    await h.elected();
    const missed = await askBroker(t.dir, { command: "forget", args: { session: "x" } }).catch(
      (e: unknown) => e,
    );
    expect(missed).toBeInstanceOf(RecallError);
    expect(missed).toMatchObject({ kind: "NotFound", message: "no indexed history for session x" });
    const failed = await askBroker(t.dir, { command: "index" }).catch((e: unknown) => e);
    expect(isRecallError(failed)).toBe(false);
    expect((failed as Error).message).toBe("disk on fire");
  });

  it("takes over from a killed broker process (stale socket)", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const script = `
      import { electBroker } from ${JSON.stringify(new URL("./broker.ts", import.meta.url).pathname.replace(/\.ts$/, ".js").replace("/src/", "/dist/"))};
      electBroker({ home: ${JSON.stringify(t.dir)}, onElected: () => console.log("elected") });
      setInterval(() => {}, 1000);`;
    const child: ChildProcess = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve) =>
      child.stdout!.on("data", (d: Buffer) => d.toString().includes("elected") && resolve()),
    );
    const follower = electBroker({ home: t.dir, retryMs: 50, onElected: () => {} });
    handles.push(follower);
    await new Promise((r) => setTimeout(r, 200));
    expect(follower.isBroker).toBe(false);
    child.kill("SIGKILL");
    await follower.elected();
    expect(follower.isBroker).toBe(true);
  });
});
