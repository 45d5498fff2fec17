/**
 * The real-more fixtures through the CLI as a user runs it (`recall search --json`, `recall
 * conversation --json`) over a temporary HOME holding one CLI's recorded home; the fixtures and
 * their manifest: real-more.ts.
 */
import { copyRealHome } from "./real-more.js";
import { createTranscriptHome, type TranscriptHome } from "./transcript-home.js";

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
