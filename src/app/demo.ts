/** `recall demo` and `recall start`: a generated corpus in a private RECALL_HOME. */
export {
  demoAgentPaths,
  demoPaths,
  generateDemoCorpus,
  isManifestOf,
  MANIFEST_FILE,
  newerAgentPaths,
  withShowcase,
  type DemoManifest,
} from "../demo/index.js";
export { makeDirs } from "../platform/make-dirs.js";
export { realOrSelf } from "../platform/real-path.js";
export { makeRecallHome } from "../store/private-files.js";
