/**
 * Version of the projection policy (src/projection/**). Any change to what a projection keeps,
 * drops, summarises or bounds (tag classes, attribute allowlists, transcript block rules,
 * injected-context stripping, whitespace or base64 rules, byte caps, markers) must bump this
 * number: the indexers store it and rebuild every document when it changes (the embedded chat
 * index in the background; history.db when its worker starts, as `recall reindex` does).
 */
export const PROJECTION_VERSION = 4;
// 3: tool output and written file content kept as bounded head-and-tail previews
//    (tool-preview.ts); CJK characters made separate tokens in search mode (cjk.ts).
