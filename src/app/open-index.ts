import { PROJECTION_VERSION } from "../projection/index.js";
import type { Engine } from "../store/fts-probe.js";
import { openHistoryStore, type HistoryStore } from "../store/history-store.js";

export type { HistoryStore } from "../store/history-store.js";
export type { Db } from "../store/open.js";

/** The index opened only to read (search, conversation, export, status): NotFound when none exists. */
export function openIndexToRead(home: string): Promise<HistoryStore> {
  return openHistoryStore({ home, projectionVersion: PROJECTION_VERSION, readonly: true });
}

/**
 * The index opened by a process that may write it (created and migrated when needed); the
 * projection version this build writes is filled in here, once for every surface.
 */
export function openIndexToWrite(options: {
  home: string;
  engine?: Engine | undefined;
}): Promise<HistoryStore> {
  return openHistoryStore({
    home: options.home,
    projectionVersion: PROJECTION_VERSION,
    engine: options.engine,
  });
}
