/**
 * The reads a surface makes beside the tools: a document or conversation by id, the window a
 * hit opens in, and the bridge store's run logs and decision history. All read only.
 */
export {
  decisionHistory,
  decisionIndexed,
  readRunChunk,
  runIndexed,
  type RunChunk,
} from "../conversations/bridge.js";
export { conversationById, conversationOfHit } from "../conversations/read.js";
export { locateTranscript, positionOfHit } from "../conversations/window.js";
export { historyDocument, isWellFormedHitId } from "../search/document.js";
