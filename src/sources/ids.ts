/**
 * The public ids a transcript source gives its conversations and records, built here so every
 * source spells them alike: a conversation `<agent>:<session>`, a record's hit id
 * `transcript:<agent>:<session>:<key>` (DESIGN.md "Data model").
 */
export const conversationId = (agent: string, session: string) => `${agent}:${session}`;

export const transcriptHitId = (agent: string, session: string, key: string) =>
  `transcript:${agent}:${session}:${key}`;
