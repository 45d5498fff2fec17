/** `recall forget`: erasing what a scope matches, run by the index's one writer. */
export { forget, type ForgetResult, type ForgetScope } from "../indexer/forget.js";
export { canonicalProjectArg } from "../platform/project.js";
