import { readFileSync } from "node:fs";
import { endianness } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { createDyadDb } from "../../test/helpers/dyad.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { attachChatSearch } from "./attach-chat-search.js";

/**
 * The WAL's frames and how many of them a checkpoint copied into the database, from the -shm
 * file's header (SQLite wal.c: WalIndexHdr.mxFrame at byte 16, WalCkptInfo.nBackfill at byte 96,
 * in the machine's byte order). Read from the file, so no checkpoint is run to learn it.
 */
function walState(file: string): { frames: number; copied: number } {
  const shm = readFileSync(`${file}-shm`);
  const read = (at: number) => (endianness() === "LE" ? shm.readUInt32LE(at) : shm.readUInt32BE(at));
  return { frames: read(16), copied: read(96) };
}

describe("a long drain checkpoints the host's WAL off the host's thread", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  const setup = async (messages: number) => {
    const t = tempDir();
    const f = createDyadDb(t.dir);
    const chat = f.chat(f.app(), "Checkpoints");
    for (let i = 0; i < messages; i++) f.message(chat, "user", `message ${i} about write-ahead logs`);
    // The host's own setting, high enough that no commit of this test checkpoints by itself.
    f.db.pragma("wal_autocheckpoint = 5000");
    f.db.pragma("wal_checkpoint(TRUNCATE)");
    const settings: number[] = [];
    const search = await attachChatSearch(f.db, {
      file: f.file,
      indexer: {
        limits: { maxRows: 1, maxBytes: 1 << 20 },
        // Asked before each batch: what the host's connection is set to at that point.
        paused: () => {
          settings.push(Number(f.db.pragma("wal_autocheckpoint", { simple: true })));
          return false;
        },
      },
    });
    f.db.pragma("wal_checkpoint(TRUNCATE)"); // the attach's own writes
    cleanup = () => {
      f.db.close();
      t.cleanup();
    };
    return { f, search, settings };
  };

  it("turns the connection's checkpoints off after 16 batches, and a worker copies the WAL", async () => {
    const { f, search, settings } = await setup(40);
    await search.indexer.drain();
    expect(search.indexer.figures().batches).toBe(40);
    // Batches 1–16 ran with the host's setting; the rest with the connection's checkpoints off.
    expect(settings.slice(0, 16).every((v) => v === 5000)).toBe(true);
    expect(settings.slice(16).every((v) => v === 0)).toBe(true);
    expect(f.db.pragma("wal_autocheckpoint", { simple: true })).toBe(5000);
    const wal = walState(f.file);
    expect(wal.frames).toBeGreaterThan(0);
    expect(wal.copied).toBe(wal.frames);
    expect(f.db.prepare("SELECT count(*) FROM recall_fts WHERE recall_fts MATCH 'logs'").pluck().get()).toBe(
      40,
    );
  });

  it("leaves a short drain's checkpoints to the host's connection", async () => {
    const { f, search, settings } = await setup(10);
    await search.indexer.drain();
    expect(settings.every((v) => v === 5000)).toBe(true);
    const wal = walState(f.file);
    expect(wal.frames).toBeGreaterThan(0);
    expect(wal.copied).toBe(0);
  });
});
