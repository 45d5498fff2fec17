/** `recall bridge`: the agent-bridge store written by hand (docs/bridge-store.md). */
export { MAX_MESSAGE_BYTES, RunMetadata } from "../bridge/records.js";
export { openBridgeWriter, type BridgeWriter } from "../bridge/writer.js";
