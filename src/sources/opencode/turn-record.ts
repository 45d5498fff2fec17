import { transcriptHitId } from "../ids.js";
import type { ConversationRef, SourceRecord } from "../types.js";
import type { OpencodeTurnRecord } from "./record.js";

/** One message of the opencode schema as a source record: opencode's own, and Kilo Code's. */
export function opencodeSourceRecord(
  agent: string,
  record: OpencodeTurnRecord,
  conversation: ConversationRef,
  model: string | null,
): SourceRecord {
  return {
    sourceKey: record.id,
    hitId: transcriptHitId(agent, record.sessionId, record.id),
    conversation,
    at: record.at ?? record.updatedAt ?? 0,
    role: record.turn.role,
    kind: "transcript",
    content: { type: "turn", turn: record.turn },
    cursor: record.id,
    message: null,
    job: null,
    run: null,
    model,
    branch: null,
  };
}
