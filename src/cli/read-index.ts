import { PROJECTION_VERSION } from "../projection/index.js";
import { openHistoryStore, type HistoryStore } from "../store/history-store.js";

/** The index opened only to read (search, conversation, export, status): NotFound when none exists. */
export function openIndexToRead(home: string): Promise<HistoryStore> {
  return openHistoryStore({ home, projectionVersion: PROJECTION_VERSION, readonly: true });
}
