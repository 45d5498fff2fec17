import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDemoHome, type DemoHome } from "../../test/helpers/demo-home.js";
import { REAL_FIXTURES, sharedAvailable } from "../../test/helpers/shared.js";
import { copyHome } from "../../test/sources-harness.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { BASE_TIME, claudeLine } from "../../test/sources-lines.js";
import { ConfigSchema, type Config } from "../config/schema.js";
import { systemClock } from "../core/clock.js";
import { compileRedaction, PROJECTION_VERSION } from "../projection/index.js";
import { createSources } from "../sources/readers.js";
import { openHistoryStore, type HistoryStore } from "../store/history-store.js";
import type { Db } from "../store/open.js";
import { backfill, type BackfillOptions, type BackfillResult } from "./backfill.js";
import {
  IndexingThreadError,
  pipelineHandOver,
  PIPELINE_QUEUE,
  type PipelineFigures,
  type PipelineSpec,
} from "./pipeline.js";
import { decompressRaw } from "./raw-codec.js";
import { createIndexWorker, type IndexWorker } from "./worker.js";

/**
 * Everything a backfill writes that a reader can see, independent of rowids and of where batch
 * boundaries fell (a batch's time bound cuts raw chunks where the machine's load says): raw
 * bytes are compared as each file's retained bytes, whole.
 */
function dump(db: Db) {
  const all = (sql: string) => db.prepare(sql).all();
  const raw = new Map<string, { start: number; bytes: Buffer[]; length: number }>();
  const chunks = db
    .prepare(
      `SELECT source, file, epoch, conversation, unit, offset, length, data, codec, first_at AS firstAt,
         last_at AS lastAt FROM recall_raw_chunks ORDER BY source, file, epoch, offset`,
    )
    .all() as {
    source: string;
    file: string;
    epoch: number;
    conversation: string | null;
    unit: string;
    offset: number;
    length: number;
    data: Buffer;
    codec: string;
  }[];
  for (const c of chunks) {
    const key = JSON.stringify([c.source, c.file, c.epoch, c.conversation, c.unit]);
    const entry = raw.get(key) ?? { start: c.offset, bytes: [], length: 0 };
    entry.bytes.push(decompressRaw(c.data, c.codec));
    entry.length += c.length;
    raw.set(key, entry);
  }
  return {
    documents:
      all(`SELECT d.source, d.source_key, d.hit_id, d.kind, d.agent, d.at, d.project, d.session, d.job,
        d.run, d.message, d.conversation, d.cursor, d.app_id, d.chat_id, d.role, d.title, d.body,
        d.is_compaction_summary, d.projection_truncated, d.projection_version, r.record_key
      FROM recall_documents d LEFT JOIN recall_records r ON r.id = d.record
      ORDER BY d.source, d.source_key, d.conversation`),
    records:
      all(`SELECT conversation, record_key, ordinal, at, role, kind, hit_id, text, truncated, cursor, model,
        branch, epoch FROM recall_records ORDER BY conversation, record_key`),
    // A conversation's ref is the order it was first written in, as records' ids are: not compared.
    conversations: (all("SELECT * FROM recall_conversations ORDER BY id") as { ref?: number }[]).map(
      ({ ref: _ref, ...c }) => c,
    ),
    // A source's state JSON, compared as data: the order of its keys follows the order of its polls.
    checkpoints: (
      all(
        "SELECT source, key, offset, size, mtime, head_hash, state FROM recall_checkpoints ORDER BY source, key",
      ) as { state: string | null }[]
    ).map((cp) => ({ ...cp, state: cp.state === null ? null : JSON.parse(cp.state) })),
    aliases: all("SELECT * FROM recall_session_aliases ORDER BY alias, session, source"),
    participants: all(`SELECT p.identity, d.source, d.source_key FROM recall_document_participants p
      JOIN recall_documents d ON d.id = p.document ORDER BY 1, 2, 3`),
    fts: all("SELECT count(*) AS n FROM recall_fts"),
    raw: [...raw].map(([key, e]) => ({
      key,
      start: e.start,
      length: e.length,
      bytes: Buffer.concat(e.bytes).toString("base64"),
    })),
  };
}

/** A small group, so the first group ends with work left and the backfill hands over. */
const GROUP = { records: 300, millis: 60_000 };

const noFigures = (): PipelineFigures => ({
  batches: 0,
  maxQueued: 0,
  writerProjected: 0,
  writerCompressed: 0,
});

describe("the backfill pipeline (sources read and batches prepared on a thread)", () => {
  let stores: HistoryStore[] = [];
  let cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const s of stores) s.close();
    for (const c of cleanups) c();
    stores = [];
    cleanups = [];
  });

  const openStore = async (): Promise<HistoryStore> => {
    const t = tempDir("recall-pipeline-");
    cleanups.push(t.cleanup);
    const store = await openHistoryStore({ home: t.dir, projectionVersion: PROJECTION_VERSION });
    stores.push(store);
    return store;
  };

  const demo = async (messages: number): Promise<DemoHome> => {
    const home = await createDemoHome({ messages });
    cleanups.push(home.cleanup);
    return home;
  };

  /** One backfill of `env`'s sources; `threaded` lets it hand over to the pipeline. */
  const run = (
    db: Db,
    env: Record<string, string>,
    config: Config,
    threaded: boolean,
    extra: Partial<BackfillOptions> = {},
    figures: PipelineFigures = noFigures(),
    pipeline: Pick<PipelineSpec, "share" | "queue"> = {},
  ): BackfillResult => {
    const sources = createSources(env, config);
    try {
      return backfill(db, sources, {
        projectionVersion: PROJECTION_VERSION,
        clock: systemClock,
        redaction: compileRedaction(config.redaction),
        group: GROUP,
        deferReadIndexes: true,
        ...(threaded
          ? {
              handOver: pipelineHandOver({ env, config, ...pipeline }, figures),
            }
          : {}),
        ...extra,
      });
    } finally {
      for (const s of sources) s.close?.();
    }
  };

  // The share left to this thread follows the waits by default; fixed shares pin each path.
  it.each([
    { share: undefined, label: "as the waits say" },
    { share: 0.5, label: "half of every batch's records" },
    { share: 1.5, label: "every record and half of every batch's raw chunks" },
  ])(
    "writes exactly what the in-thread backfill writes (demo corpus), this thread taking $label",
    async ({ share }) => {
      const home = await demo(2500);
      const config = ConfigSchema.parse({});
      const inThread = await openStore();
      const threaded = await openStore();
      const a = run(inThread.db, home.env, config, false);
      const figures = noFigures();
      const b = run(threaded.db, home.env, config, true, {}, figures, share === undefined ? {} : { share });
      expect(figures.batches).toBeGreaterThan(5);
      if (share !== undefined) expect(figures.writerProjected).toBeGreaterThan(500);
      // The share that follows the waits may or may not pass 1 on a corpus this small.
      if (share !== undefined) expect(figures.writerCompressed > 0).toBe(share > 1);
      if (share !== undefined && share > 1) expect(figures.writerCompressed).toBeGreaterThan(50);
      expect(b.records).toBe(a.records);
      expect(a.records).toBeGreaterThan(2000);
      expect(dump(threaded.db)).toEqual(dump(inThread.db));
    },
  );

  it.skipIf(!sharedAvailable("fixtures/real"))(
    "writes exactly what the in-thread backfill writes (real Claude Code, Codex and opencode fixtures)",
    async () => {
      const t = tempDir("recall-pipeline-home-");
      cleanups.push(t.cleanup);
      for (const variant of ["claude-code", "codex", path.join("opencode", "v2-2.0.26")])
        copyHome(path.join(REAL_FIXTURES, variant, "home"), t.dir);
      const env = {
        HOME: t.dir,
        XDG_DATA_HOME: path.join(t.dir, ".local", "share"),
        XDG_CONFIG_HOME: path.join(t.dir, ".config"),
      };
      const config = ConfigSchema.parse({});
      const inThread = await openStore();
      const threaded = await openStore();
      // A group of a few records: the fixtures are small, and the thread must take over.
      const small = { group: { records: 5, millis: 60_000 } };
      const a = run(inThread.db, env, config, false, small);
      const figures = noFigures();
      run(threaded.db, env, config, true, small, figures);
      expect(figures.batches).toBeGreaterThan(0);
      expect(a.records).toBeGreaterThan(20);
      expect(dump(threaded.db)).toEqual(dump(inThread.db));
    },
  );

  it("a writer failure mid-way rolls its group back; the next backfill resumes to the same state", async () => {
    const home = await demo(2500);
    const config = ConfigSchema.parse({});
    const inThread = await openStore();
    const threaded = await openStore();
    run(inThread.db, home.env, config, false);
    let groups = 0;
    const figures = noFigures();
    expect(() =>
      run(
        threaded.db,
        home.env,
        config,
        true,
        {
          onGroupEnd: () => {
            if (++groups === 4) throw new Error("injected writer failure");
          },
        },
        figures,
      ),
    ).toThrow("injected writer failure");
    expect(figures.batches).toBeGreaterThan(0);
    const partial = (threaded.db.prepare("SELECT count(*) AS n FROM recall_records").get() as { n: number })
      .n;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(2000);
    const again = noFigures();
    run(threaded.db, home.env, config, true, {}, again);
    expect(again.batches).toBeGreaterThan(0);
    expect(dump(threaded.db)).toEqual(dump(inThread.db));
  });

  it("a thread that fails before handing anything over leaves the backfill to this thread", async () => {
    const home = await demo(2500);
    const config = ConfigSchema.parse({});
    const inThread = await openStore();
    const store = await openStore();
    run(inThread.db, home.env, config, false);
    const sources = createSources(home.env, config);
    // The thread cannot build its sources from this spec (no sources section): it fails at once.
    const broken = { ...config, sources: undefined } as unknown as Config;
    const figures = noFigures();
    let handedOver = false;
    const handOver = pipelineHandOver({ env: home.env, config: broken }, figures);
    try {
      backfill(store.db, sources, {
        projectionVersion: PROJECTION_VERSION,
        clock: systemClock,
        group: GROUP,
        handOver: (db, o, current) => {
          const producer = handOver(db, o, current);
          handedOver = producer !== null;
          return producer;
        },
      });
    } finally {
      for (const s of sources) s.close?.();
    }
    expect(handedOver).toBe(true);
    expect(figures.batches).toBe(0);
    expect(dump(store.db)).toEqual(dump(inThread.db));
  });

  it("a thread that fails after handing work over fails its backfill; a worker goes on in one thread", async () => {
    const home = await demo(2500);
    const config = ConfigSchema.parse({});
    const inThread = await openStore();
    const whole = run(inThread.db, home.env, config, false);
    const direct = await openStore();
    const sources = createSources(home.env, config);
    try {
      const handOver = pipelineHandOver({ env: home.env, config, failAfter: 2 });
      expect(() =>
        backfill(direct.db, sources, {
          projectionVersion: PROJECTION_VERSION,
          clock: systemClock,
          group: GROUP,
          handOver,
        }),
      ).toThrow(IndexingThreadError);
    } finally {
      for (const s of sources) s.close?.();
    }

    const store = await openStore();
    const lines: string[] = [];
    const worker = createIndexWorker({
      db: store.db,
      createSources: () => createSources(home.env, config),
      projectionVersion: PROJECTION_VERSION,
      clock: systemClock,
      group: GROUP,
      pipeline: { env: home.env, config, failAfter: 2 },
      log: (line) => lines.push(line),
    });
    let result: BackfillResult;
    try {
      result = await worker.catchUp();
    } finally {
      await worker.stop();
    }
    expect(lines).toContainEqual(
      expect.stringMatching(/indexing thread failed \(Error\); going on in one thread/),
    );
    expect(dump(store.db)).toEqual(dump(inThread.db));
    // The run counts what the failed attempt had committed too.
    const counted = (r: BackfillResult) => ({
      records: r.records,
      sources: Object.fromEntries(Object.entries(r.sources).map(([n, s]) => [n, [s.records, s.documents]])),
    });
    expect(counted(result)).toEqual(counted(whole));
  });

  it("keeps its queue bounded when the writer lags: the thread waits", async () => {
    const home = await demo(2500);
    const config = ConfigSchema.parse({});
    const store = await openStore();
    const figures = noFigures();
    // A bound of a few batches, which this corpus's batches would pass (the default's is in bytes).
    const queue = { batches: 3, bytes: PIPELINE_QUEUE.bytes };
    const result = run(
      store.db,
      home.env,
      config,
      true,
      {
        // A slow writer: 30 ms per tick.
        onTick: () => {
          const until = performance.now() + 30;
          while (performance.now() < until);
        },
      },
      figures,
      { queue },
    );
    expect(result.records).toBeGreaterThan(2000);
    expect(figures.batches).toBeGreaterThan(10);
    // The thread ran ahead of the writer, and never further than the bound.
    expect(figures.maxQueued).toBeGreaterThanOrEqual(2);
    expect(figures.maxQueued).toBeLessThanOrEqual(queue.batches);
  });

  it("a worker's catch-up hands over; its background loop then follows a new session", async () => {
    const home = await demo(2500);
    const config = ConfigSchema.parse({});
    const inThread = await openStore();
    const store = await openStore();
    const expected = run(inThread.db, home.env, config, false);
    const worker: IndexWorker = createIndexWorker({
      db: store.db,
      createSources: () => createSources(home.env, config),
      projectionVersion: PROJECTION_VERSION,
      clock: systemClock,
      group: GROUP,
      cadence: { idleMs: 40, backlogMs: 1 },
      pipeline: { env: home.env, config },
    });
    try {
      let threaded = 0;
      const result = await worker.catchUp();
      // Its group is the test's: the first ends with work left, and the thread takes over.
      expect(result.records).toBe(expected.records);
      expect(dump(store.db)).toEqual(dump(inThread.db));
      // The catch-up's own sources are behind the thread's: the loop starts from fresh ones.
      const session = "5f0c1a2b-3c4d-4e5f-8a6b-000000000001";
      const dir = path.join(home.manifest.paths.claudeConfigDir, "projects", "-nonexistent-pipeline");
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        path.join(dir, `${session}.jsonl`),
        claudeLine({ uuid: "p1", session, text: "wombat after the catch-up", at: BASE_TIME }),
      );
      worker.start();
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        threaded = (
          store.db
            .prepare("SELECT count(*) AS n FROM recall_records WHERE conversation = ?")
            .get(`claude:${session}`) as { n: number }
        ).n;
        if (threaded > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(threaded).toBe(1);
    } finally {
      await worker.stop();
    }
  });

  it("stops cleanly when told to, and a later backfill finishes the work", async () => {
    const home = await demo(2500);
    const config = ConfigSchema.parse({});
    const inThread = await openStore();
    const threaded = await openStore();
    run(inThread.db, home.env, config, false);
    let ticks = 0;
    const figures = noFigures();
    run(
      threaded.db,
      home.env,
      config,
      true,
      { shouldStop: () => figures.batches > 3, onTick: () => ticks++ },
      figures,
    );
    expect(figures.batches).toBe(4);
    run(threaded.db, home.env, config, true);
    expect(dump(threaded.db)).toEqual(dump(inThread.db));
    expect(ticks).toBeGreaterThan(0);
  });
});
