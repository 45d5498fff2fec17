import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { copyRealHome } from "./real-home.js";
import { SHARED_DIR } from "./shared.js";
import { createTranscriptHome, type TranscriptHome } from "./transcript-home.js";

/**
 * ../shared/fixtures/real-more: sessions the real binaries of more coding-agent CLIs wrote
 * (MANIFEST.json lists them). Tests copy a CLI's HOME into a temporary one at run time; nothing
 * of it is ever copied into the repository.
 */
export const REAL_MORE = path.join(SHARED_DIR, "fixtures", "real-more");

export interface RealMoreManifest {
  decision_phrase: string;
  big_output_marker: string;
  sessions: {
    cli: string;
    session_id: string;
    files: string[];
    cwd: string;
    user_prompts: string[];
    contains_decision_phrase: boolean;
    contains_big_output_marker: boolean;
    big_output_first_line_in_tool_result?: boolean;
  }[];
}

/** A temporary HOME holding one CLI's recorded home (`<cli>/home` in real-more). */
export function realMoreHome(cli: string): TranscriptHome {
  const home = createTranscriptHome();
  copyRealHome(cli, home.home);
  return home;
}

export interface Hit {
  id: string;
  agent: string;
  session: string;
  conversation: string;
  role: string;
  title: string | null;
  project: string | null;
  snippet: string;
}

/** `recall search --json` hits (the search_history tool's JSON). */
export function search(home: TranscriptHome, query: string, ...args: string[]): Hit[] {
  const r = home.run("search", "--json", ...args, "--", query);
  if (r.status !== 0) throw new Error(`recall search failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { hits: Hit[] }).hits;
}

/** A conversation's records as `recall conversation --json` pages them (ids and roles). */
export function conversationRecords(home: TranscriptHome, id: string): { id: string; role: string }[] {
  const r = home.run("conversation", "--json", "--limit", "100", id);
  if (r.status !== 0) throw new Error(`recall conversation failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { records: { id: string; role: string }[] }).records;
}

/** Every file below a folder with a hash of its bytes: a source must leave them as they were. */
export function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(file);
      else out[path.relative(dir, file)] = createHash("sha256").update(readFileSync(file)).digest("hex");
    }
  };
  walk(dir);
  return out;
}
