/**
 * The split's kill switches, read from the environment at each use so a host that changes its
 * own process.env sees the change without a restart (a new process sees it at its next attach):
 *
 * - RECALL_SPLIT=off: no split runs (one under way stops at its next batch) and readers stay on
 *   the legacy tables;
 * - RECALL_SPLIT_READ=legacy: readers read the legacy tables even after a switch;
 * - RECALL_INDEXING=paused: the embedded indexer drains nothing (its queues keep filling).
 */
export interface SplitSwitches {
  splitOff: boolean;
  readLegacy: boolean;
  indexingPaused: boolean;
}

export function splitSwitches(env: NodeJS.ProcessEnv = process.env): SplitSwitches {
  return {
    splitOff: env.RECALL_SPLIT === "off",
    readLegacy: env.RECALL_SPLIT_READ === "legacy",
    indexingPaused: env.RECALL_INDEXING === "paused",
  };
}

/** The switches as `recall status` names them: only those that are on. */
export function describeSwitches(switches: SplitSwitches): string[] {
  return [
    ...(switches.splitOff ? ["RECALL_SPLIT=off (no split; readers on the legacy tables)"] : []),
    ...(switches.readLegacy ? ["RECALL_SPLIT_READ=legacy (readers on the legacy tables)"] : []),
    ...(switches.indexingPaused ? ["RECALL_INDEXING=paused (embedded indexing paused)"] : []),
  ];
}
