/** `recall export`: a conversation's retained raw bytes, given back file by file. */
export {
  earlierVersions,
  exportConversation,
  hasRetained,
  retainedFiles,
  type ExportedFile,
} from "../indexer/export.js";
