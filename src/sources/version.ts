/**
 * Version of how the transcript sources turn lines into records: record keys, merging and
 * splitting. Bump it when a change leaves records an older version wrote that the new one
 * would not (a message split in two, a key that moved): history.db then re-reads every source
 * once, as it does for a projection change, and the re-read removes them (SourceRecord.supersedes).
 *
 * 1: a streamed Claude response and a Codex message read apart from its event copy are one
 *    record each, and a re-read removes the second records earlier versions wrote for them.
 */
export const READERS_VERSION = 1;
