/**
 * Version of the projection policy (src/projection/**). Any change to what a projection keeps,
 * drops, summarises or bounds (tag classes, attribute allowlists, transcript block rules,
 * injected-context stripping, whitespace or base64 rules, byte caps, markers) must bump this
 * number: the indexer stores it and rebuilds every document in the background when it changes.
 */
export const PROJECTION_VERSION = 1;
