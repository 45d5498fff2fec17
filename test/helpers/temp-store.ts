import { afterEach } from "vitest";
import { PROJECTION_VERSION } from "../../src/projection/index.js";
import { openHistoryStore, type HistoryStore } from "../../src/store/history-store.js";
import { tempDir } from "./tmp.js";

/**
 * A fresh history store in a temporary folder for each test that asks for one, closed and
 * removed after the test. Call at the top of a describe block.
 */
export function tempHistoryStores(prefix?: string): () => Promise<HistoryStore> {
  let store: HistoryStore | null = null;
  let cleanup = () => {};
  afterEach(() => {
    store?.close();
    store = null;
    cleanup();
  });
  return async () => {
    const t = tempDir(prefix);
    cleanup = t.cleanup;
    store = await openHistoryStore({ home: t.dir, projectionVersion: PROJECTION_VERSION });
    return store;
  };
}
