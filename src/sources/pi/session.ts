import path from "node:path";

/** `<time>_<session>.jsonl`: the session id after the last underscore (the whole name otherwise). */
export function piSession(file: string): string {
  const name = path.basename(file, ".jsonl");
  const at = name.lastIndexOf("_");
  return at >= 0 && at < name.length - 1 ? name.slice(at + 1) : name;
}
