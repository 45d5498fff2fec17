/**
 * The thread that computes common terms' statistics beside `recall index`'s own
 * (term-stats-helper.ts): a read-only connection to the index; a plan's terms in, taken from the
 * list's end until this thread meets the other; each term's statistics out.
 */
import { workerData, type MessagePort } from "node:worker_threads";
import { errorKind } from "../core/errors.js";
import { computeTermStats } from "../search/term-stats.js";
import { openDatabase } from "../store/open.js";
import { claim, type HelperReply, type SharedTerms } from "./term-stats-helper.js";

const { file, port } = workerData as { file: string; port: MessagePort };
const db = openDatabase(file, { readonly: true });

port.on("message", ({ terms, claims }: SharedTerms) => {
  const word = new Int32Array(claims);
  for (let i = claim(word, true); i >= 0; i = claim(word, true)) {
    const term = terms[i]!;
    let reply: HelperReply;
    try {
      reply = { term, stats: computeTermStats(db, term) };
    } catch (error) {
      reply = { term, failed: errorKind(error) };
    }
    port.postMessage(reply);
  }
});
port.on("close", () => db.close());
