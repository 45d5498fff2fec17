/**
 * The JSON document base (sources/files/json-document-source.ts) keeps the source contract, on a
 * toy agent whose sessions are whole JSON files rewritten in place.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Env } from "../src/platform/paths.js";
import { backfill } from "../src/indexer/backfill.js";
import { PROJECTION_VERSION } from "../src/projection/index.js";
import { searchHistory } from "../src/search/history.js";
import { openSourceRun, sourceContract } from "./helpers/source-contract.js";
import { toyJson, toyJsonDocument, toyJsonSessions } from "./helpers/toy-json-source.js";

const T = Date.UTC(2026, 5, 1);
const file = (env: Env, id: string) => path.join(toyJsonSessions(env), `${id}.json`);
function put(env: Env, id: string, text: string) {
  mkdirSync(toyJsonSessions(env), { recursive: true });
  writeFileSync(file(env, id), text);
}
const late = toyJsonDocument("gamma", [{ at: T + 3, text: "late tapirword" }]);

sourceContract(toyJson, {
  write(env) {
    put(
      env,
      "alpha",
      toyJsonDocument("alpha", [
        { at: T, text: "first ocelotword" },
        { at: T + 1, text: "then pangolinword", role: "assistant" },
      ]),
    );
    put(env, "beta", toyJsonDocument("beta", [{ at: T + 2, text: "other quokkaword" }]));
  },
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: "beta", tokens: ["quokkaword"] },
  remove: (env) => rmSync(file(env, "alpha")),
  torn: {
    begin: (env) => put(env, "gamma", late.slice(0, 40)),
    finish: (env) => put(env, "gamma", late),
    token: "tapirword",
  },
  oversized: {
    write: (env) =>
      put(
        env,
        "huge",
        toyJsonDocument("huge", [{ at: T + 4, text: `walrusword ${"lorem ipsum ".repeat(20_000)}` }]),
      ),
    token: "walrusword",
    bytes: 200_000,
    maxLineBytes: 64 * 1024,
  },
});

describe("a document rewritten in place", () => {
  it("adds its new messages once, keeps the earlier ones, and a changed text beside the old", async () => {
    const run = await openSourceRun(toyJson);
    run.restart();
    const { env, store } = run;
    const index = () => run.index();
    const found = (word: string) =>
      searchHistory(store.db, store.engine, word, {}, 10).hits.filter((h) => !h.relaxed);
    try {
      put(env, "alpha", toyJsonDocument("alpha", [{ at: T, text: "first ocelotword" }]));
      index();
      put(
        env,
        "alpha",
        toyJsonDocument("alpha", [
          { at: T, text: "first ocelotword" },
          { at: T + 1, text: "added yakword" },
        ]),
      );
      index();
      expect(found("ocelotword")).toHaveLength(1);
      expect(found("yakword")).toHaveLength(1);
      // The first message edited in place: both versions stay searchable.
      put(
        env,
        "alpha",
        toyJsonDocument("alpha", [
          { at: T, text: "edited lynxword" },
          { at: T + 1, text: "added yakword" },
        ]),
      );
      index();
      expect(found("lynxword")).toHaveLength(1);
      expect(found("ocelotword")).toHaveLength(1);
      expect(found("yakword")).toHaveLength(1);
      expect(store.db.prepare("SELECT max(epoch) FROM recall_raw_chunks").pluck().get()).toBe(2);
    } finally {
      run.close();
    }
  });
});

describe("a machine without the CLI's documents", () => {
  it("finishes a backfill once its folders are walked, as one with documents does", async () => {
    const run = await openSourceRun(toyJson);
    run.restart();
    const { env, store, sources } = run;
    try {
      // Once without its folder, once with an empty one: neither waits for the safety valve.
      for (const prepare of [() => {}, () => mkdirSync(toyJsonSessions(env), { recursive: true })]) {
        prepare();
        const result = backfill(store.db, sources, {
          projectionVersion: PROJECTION_VERSION,
          clock: { now: () => T },
        });
        expect(result.ticks).toBeLessThan(10);
      }
    } finally {
      run.close();
    }
  });
});
