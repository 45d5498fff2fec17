import type { Command } from "commander";
import { auditCall } from "../../app/audit.js";
import { canonicalProjectArg } from "../../app/forget.js";
import { type HistoryHit, queryTokens, type SearchCoverage, createAnswerer } from "../../app/search.js";
import { RecallError } from "../../core/errors.js";
import { parseInput } from "../../core/validation.js";
import { SearchHistoryInput } from "../../tools/search-history-input.js";
import { agentHelp, SOURCES } from "../../app/sources.js";
import { runSearchHistoryAnswered, type SearchHistoryOutput } from "../../tools/search-history.js";
import type { CommandModule } from "../program.js";
import { openIndexToRead } from "../../app/open-index.js";
import { printJson } from "../output.js";
import { highlight } from "../highlight.js";
import { namingFlags } from "../flag-errors.js";
import { isoInstant } from "../../core/instant.js";
import { TIME_ARG_HELP, timeArg } from "../time-arg.js";
import { resolveProjectArg } from "../../app/project-arg.js";

interface SearchFlags {
  project?: string;
  session?: string;
  job?: string;
  agent?: string;
  kind?: string;
  since?: string;
  until?: string;
  limit?: string;
  json?: boolean;
  answer?: boolean;
}

function parseLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value))
    throw new RecallError("Usage", `--limit must be a whole number from 1 to 50, not "${value}"`);
  return Number(value);
}

export function formatHit(hit: HistoryHit, tokens: string[], color: boolean): string {
  const when = (isoInstant(hit.at) ?? "?").replace("T", " ").slice(0, 16);
  const where = [hit.agent, hit.kind, hit.project ?? "", hit.session ? `session ${hit.session}` : ""]
    .filter(Boolean)
    .join(" · ");
  const mark = `${hit.relaxed ? " (relaxed)" : ""}${hit.active ? " (active)" : ""}`;
  return `${when}  ${where}${mark}\n  ${highlight(hit.snippet, tokens, color)}\n  ${hit.id}\n`;
}

/** The answer block of human output: its text (or why there is none), then the sources it cites. */
export function formatAnswer(answer: NonNullable<SearchHistoryOutput["answer"]>): string {
  const by = answer.agent ? ` (${answer.agent}${answer.model ? ` · ${answer.model}` : ""})` : "";
  const head = answer.error ? `answer unavailable${by}: ${answer.error}` : `answer${by}:\n${answer.text}`;
  const sources = answer.sources.map((s) => `  [${s.id}] ${s.link}`);
  return `${[head, ...(sources.length ? ["sources:", ...sources] : [])].join("\n")}\n\n`;
}

/**
 * One line when any source is not caught up, so a thin result never hides an unfinished index.
 * A stale source that holds nothing (an agent this machine does not use) is left out: it has
 * nothing to be behind on, and naming it in every search is noise.
 */
export function coverageNote(coverage: SearchCoverage): string | null {
  if (!Array.isArray(coverage)) return null; // every source ready
  const behind = coverage.filter(
    (c) => c.state !== "ready" && !(c.state === "stale" && c.indexedThrough === null && c.backlog === 0),
  );
  if (coverage.length === 0) return "note: nothing indexed yet; run `recall index`";
  if (behind.length === 0) return null;
  const stale = behind.filter((c) => c.state === "stale").map((c) => c.source);
  const parts = behind.flatMap((c) =>
    c.state === "indexing"
      ? [`${c.source} still indexing (${c.backlog} waiting)`]
      : c.state === "incomplete"
        ? [`${c.source} cannot read ${c.unreadable ?? 0} files or folders (see \`recall status\`)`]
        : [],
  );
  if (stale.length)
    parts.push(`${stale.join(", ")} not updated lately; run \`recall index\` or keep \`recall mcp\` running`);
  return `note: ${parts.join("; ")}`;
}

/** search_history's input fields as this command's flags name them. */
const SEARCH_FLAG_NAMES = {
  query: "<query>",
  limit: "--limit",
  ...Object.fromEntries(
    (["project", "session", "job", "agent", "kind", "since", "until"] as const).map((k) => [
      `filters.${k}`,
      `--${k}`,
    ]),
  ),
};

export const searchCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("search")
      .description("search everything indexed: strict AND first, then OR-relaxed hits marked relaxed")
      .argument("<query...>", "words to find")
      .option("--project <path>", "only this project (a folder, relative to here; its git root counts)")
      .option("--session <id>", "only this session id or alias")
      .option("--job <name>", "only this job")
      .option("--agent <agent>", agentHelp(SOURCES))
      .option("--kind <kind>", "message | run | decision | transcript | approval | progress | report | chat")
      .option("--since <time>", TIME_ARG_HELP)
      .option("--until <time>", TIME_ARG_HELP)
      .option("--limit <n>", "1..50, default 10")
      .option(
        "--answer",
        "also ask one cheap model CLI for an answer citing the top hits (see README: Answers)",
      )
      .option("--json", "print the tool's JSON")
      .action(
        namingFlags(SEARCH_FLAG_NAMES, async (words: string[], flags: SearchFlags) => {
          // A blank value would filter on nothing and find nothing: the flag's mistake, named.
          for (const k of ["project", "session", "job"] as const) {
            if (flags[k] !== undefined && flags[k].trim() === "")
              throw new RecallError("Usage", `--${k} must not be empty`);
          }
          const filters = Object.fromEntries(
            (["project", "session", "job", "agent", "kind", "since", "until"] as const)
              .filter((k) => flags[k] !== undefined)
              .map((k) => [k, flags[k]]),
          );
          // Plain dates and ages become the contract's instants (time-arg.ts).
          for (const k of ["since", "until"] as const)
            if (flags[k] !== undefined) filters[k] = timeArg(flags[k], k);
          // A folder on the command line means what it means in the shell: relative to here.
          if (flags.project?.trim()) filters["project"] = canonicalProjectArg(flags.project.trim());
          const input = parseInput(SearchHistoryInput, {
            query: words.join(" "),
            filters: Object.keys(filters).length ? filters : undefined,
            limit: parseLimit(flags.limit),
            answer: flags.answer === true,
          });
          // An invalid config.json is named, not ignored: the user expects it to be in effect.
          const config = ctx().config();
          const store = await openIndexToRead(ctx().home);
          try {
            if (input.filters?.project !== undefined && flags.project)
              input.filters.project = resolveProjectArg(store.db, flags.project.trim());
            const started = performance.now();
            const result = await runSearchHistoryAnswered(
              store.db,
              store.engine,
              input,
              ctx().env.RECALL_SESSION_ID || undefined,
              createAnswerer({ env: ctx().env, config: () => config.historyAnswer }),
            );
            auditCall(
              ctx().home,
              "cli",
              "search_history",
              performance.now() - started,
              JSON.stringify(result),
            );
            if (flags.json) return printJson(result);
            const tokens = queryTokens(input.query);
            const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
            if (result.answer) process.stdout.write(formatAnswer(result.answer));
            if (result.hits.length === 0) process.stdout.write("no hits\n");
            for (const hit of result.hits) process.stdout.write(formatHit(hit, tokens, color));
            const note = coverageNote(result.coverage);
            if (note) process.stdout.write(`${note}\n`);
          } finally {
            store.close();
          }
        }),
      );
  },
};
