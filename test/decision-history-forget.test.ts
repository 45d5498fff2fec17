/**
 * GET /api/decisions/<topic>/history after `recall forget`, on a real loopback server over a real
 * index of a real bridge store: pages are made of the revisions the index still holds, so no page
 * is empty or short because revisions were forgotten.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBridgeWriter } from "../src/bridge/writer.js";
import { recallHome } from "../src/platform/paths.js";
import { DECISION_HISTORY_PAGE } from "../src/conversations/bridge.js";
import { startHttpServer, type RunningHttpServer } from "../src/http/server.js";
import { createHttpServices } from "../src/app/http-services.js";
import { forget } from "../src/indexer/forget.js";
import { createHarness, type Harness } from "./sources-harness.js";
import { httpRequest, login } from "./helpers/http.js";

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
const TOTAL = 3 * DECISION_HISTORY_PAGE + 10;
/** Forgotten: the whole first page's worth, and a run of five in the middle of the second. */
const FORGOTTEN = [
  [1, DECISION_HISTORY_PAGE],
  [DECISION_HISTORY_PAGE + 5, DECISION_HISTORY_PAGE + 9],
] as const;
const forgotten = (rev: number) => FORGOTTEN.some(([a, b]) => rev >= a && rev <= b);

let h: Harness;
let server: RunningHttpServer;
let cookie = "";

const get = (p: string) => httpRequest(server.port, p, { headers: { Cookie: cookie } });

interface Page {
  revisions: { id: string; rev: number; decision: string }[];
  next: number | null;
}

beforeAll(async () => {
  h = await createHarness();
  const root = path.join(recallHome(h.env), "bridge");
  const w = openBridgeWriter(root);
  for (let rev = 1; rev <= TOTAL; rev++)
    w.decide({ topic: "db", decision: `choice ${rev}`, by: "lead", at: T0 + rev * 1000 });
  // A topic whose every revision falls in the first forgotten span.
  w.decide({ topic: "gone", decision: "hidden", by: "lead", at: T0 + 1500 });
  w.close();
  h.index();
  for (const [a, b] of FORGOTTEN) forget(h.store.db, { since: T0 + a * 1000, until: T0 + b * 1000 }, T0);
  server = await startHttpServer({
    services: createHttpServices(h.store.db, h.store.engine, h.recallHome, root),
    port: 0,
  });
  cookie = await login(server.loginUrl);
});

afterAll(async () => {
  await server?.close();
  h?.close();
});

describe("decision history after forget", () => {
  it("pages over the revisions the index holds: full pages, no empty page with a next", async () => {
    const pages: Page[] = [];
    let after: number | null = 0;
    while (after !== null && pages.length < 10) {
      const r = await get(`/api/decisions/db/history?after=${after}`);
      expect(r.status, r.body).toBe(200);
      const page = JSON.parse(r.body) as Page;
      pages.push(page);
      after = page.next;
    }
    const visible = Array.from({ length: TOTAL }, (_, i) => i + 1).filter((rev) => !forgotten(rev));
    expect(pages.map((p) => p.revisions.length)).toEqual([
      DECISION_HISTORY_PAGE,
      DECISION_HISTORY_PAGE,
      visible.length - 2 * DECISION_HISTORY_PAGE,
    ]);
    const shown = pages.flatMap((p) => p.revisions);
    expect(shown.map((r) => r.decision)).toEqual(visible.map((rev) => `choice ${rev}`));
    expect(shown.map((r) => r.id)).toEqual(visible.map((rev) => `decision:db@${rev}`));
  });

  it("answers a cursor at a forgotten revision as if it had never been, and a forgotten topic 404", async () => {
    const at = async (after: number) =>
      JSON.parse((await get(`/api/decisions/db/history?after=${after}`)).body);
    const [, [first, last]] = FORGOTTEN;
    expect(await at(first + 1)).toEqual(await at(first - 1));
    expect(await at(last)).toEqual(await at(first - 1));
    const gone = await get("/api/decisions/gone/history");
    const never = await get("/api/decisions/never/history");
    expect([gone.status, never.status]).toEqual([404, 404]);
    expect(JSON.parse(gone.body).error).toBe(JSON.parse(never.body).error.replace("never", "gone"));
  });
});
