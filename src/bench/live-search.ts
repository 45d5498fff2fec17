import { finishFtsWork } from "../app/index-upkeep.js";
import { searchHistory } from "../search/history.js";
import type { Engine } from "../store/fts-probe.js";
import { openDatabase, type Db } from "../store/open.js";
import { distribution, fig, timeAsync, timeSync, type Distribution, type Figure } from "./measure.js";

export interface LiveSearchFigures {
  /** search_history while the index grows: documents appended (one commit) before each query. */
  latency: Distribution;
  appendedPerQuery: Figure;
  /**
   * Afterwards: the FTS5 work the appends left (merges under way, a rewrite for the deleted rows'
   * tombstones), done as the broker's idle turns do it, so later sections meet the index a running
   * broker keeps.
   */
  upkeep: Figure;
}

const APPENDED_PER_QUERY = 10;

/**
 * Search as agents meet it while they work: the broker commits new documents every few seconds,
 * so the index a query sees has just changed. Each round appends documents through a second
 * (writer) connection, then runs one query on the reader; the documents are removed afterwards.
 */
export async function benchLiveSearch(
  reader: Db,
  engine: Engine,
  file: string,
  queries: readonly string[],
  rounds: number,
): Promise<LiveSearchFigures> {
  const writer = openDatabase(file);
  const insert = writer.prepare(
    `INSERT INTO recall_documents (source, source_key, own_hit_id, kind, agent, at, role, title, body, projection_version)
     VALUES ('bench-live', ?, ?, 'transcript', 'claude', ?, 'user', '', ?, 1)`,
  );
  const times: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      writer.transaction(() => {
        for (let i = 0; i < APPENDED_PER_QUERY; i++) {
          const key = `${round}-${i}`;
          insert.run(
            key,
            `bench-live:${key}`,
            Date.now(),
            `${queries[(round + i) % queries.length]} appended ${key}`,
          );
        }
      })();
      const query = queries[round % queries.length]!;
      times.push(timeSync(() => searchHistory(reader, engine, query, {}, 10)).ms);
    }
    // Each appended document made a record's row and a conversation of its own (history-v16.ts).
    writer.exec(`DELETE FROM recall_documents WHERE source = 'bench-live';
      DELETE FROM recall_record_rows WHERE conversation_ref IN
        (SELECT ref FROM recall_conversations WHERE source = 'bench-live');
      DELETE FROM recall_conversations WHERE source = 'bench-live';`);
    const upkeep = await timeAsync(() => finishFtsWork(writer, file));
    return {
      latency: distribution(times),
      appendedPerQuery: fig(APPENDED_PER_QUERY, "documents"),
      upkeep: fig(upkeep.ms, "ms"),
    };
  } finally {
    writer.close();
  }
}
