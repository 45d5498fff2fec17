import type { Command } from "commander";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { type Config, type Env } from "../../app/recall.js";
import {
  demoAgentPaths,
  generateDemoCorpus,
  isManifestOf,
  MANIFEST_FILE,
  type DemoManifest,
  makeRecallHome,
  withShowcase,
} from "../../app/demo.js";
import { searchHistory, readSnapshot, queryTokens } from "../../app/search.js";
import { openIndexToWrite, type Db } from "../../app/open-index.js";
import { hasAgentHistory as anyHistory, SOURCES } from "../../app/sources.js";
import { isRecallError } from "../../core/errors.js";
import type { CommandModule } from "../program.js";
import { progressBar } from "../progress.js";
import { prepareDemoFolder } from "./demo.js";
import { catchUpThroughBroker } from "./index-command.js";
import { formatHit } from "./search.js";
import { parsePort, serveDashboard } from "./serve.js";
import { recallInvocation } from "../invocation.js";

/** Whether this machine has any agent history where the CLIs keep it (each source says). */
export const hasAgentHistory = (env: Env): boolean => anyHistory(env, SOURCES);

/**
 * The demo corpus under `root`: the one an earlier start wrote (its manifest says so), else a
 * new one. Reusing it keeps a second `npm start` from rewriting (and re-indexing) the corpus.
 */
async function demoCorpus(root: string, say: (line: string) => void): Promise<DemoManifest> {
  const file = path.join(root, MANIFEST_FILE);
  if (existsSync(file)) {
    let manifest: unknown = null;
    try {
      manifest = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      // Damaged: prepareDemoFolder below refuses the folder, naming it.
    }
    if (isManifestOf(manifest, root)) {
      say(`No agent history found on this machine; using the demo corpus in ${root}\n`);
      return withShowcase(manifest);
    }
    // A corpus cut short is cleared and written again; anything else there is refused, named.
    prepareDemoFolder(root, false);
  }
  say(`No agent history found on this machine; writing a demo corpus to ${root}\n`);
  return generateDemoCorpus({ root, seed: 1, showcase: true });
}

/** The environment that points every CLI source at a demo corpus written under `root`. */
export function demoEnv(env: Env, manifest: DemoManifest): Env {
  return {
    ...env,
    CLAUDE_CONFIG_DIR: manifest.paths.claudeConfigDir,
    CODEX_HOME: manifest.paths.codexHome,
    XDG_DATA_HOME: path.dirname(manifest.paths.opencodeDataDir),
    OPENCODE_DB: undefined,
    RECALL_BRIDGE_DIR: manifest.paths.bridgeDir,
    GEMINI_CLI_HOME: demoAgentPaths(manifest.root).geminiCliHome,
    QWEN_HOME: demoAgentPaths(manifest.root).qwenHome,
    QWEN_RUNTIME_DIR: undefined,
    COPILOT_HOME: manifest.paths.copilotHome,
    PI_CODING_AGENT_DIR: manifest.paths.piAgentDir,
    // Kilo Code reads $XDG_DATA_HOME/kilo, beside opencode's folder.
    CLINE_DIR: manifest.newerAgents?.paths.clineDir ?? path.join(manifest.root, ".cline"),
    CONTINUE_GLOBAL_DIR: manifest.newerAgents?.paths.continueDir ?? path.join(manifest.root, ".continue"),
  };
}

/**
 * The main job behind `npm start`: index the agent history on this machine (or, when there
 * is none, a generated demo corpus), show a sample search, then serve the dashboard over the
 * same sources until Ctrl-C (`--no-serve` stops after the sample search).
 */
export const startCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("start")
      .description(
        "the main job: index this machine's agent history (or a demo corpus when there is none), then serve the dashboard",
      )
      .option("--no-serve", "stop after indexing and the sample search")
      .option("--port <n>", "dashboard port (default: config server.port; 0 picks a free one)")
      .option(
        "--json",
        "one JSON object per line: the index summary with the sample search, then (when serving) the dashboard's address",
      )
      .action(async (flags: { serve: boolean; port?: string; json?: boolean }) => {
        const { env, home } = ctx();
        const config = ctx().config();
        // Before any work: a mistyped port is not found out after a whole index.
        const port = parsePort(flags.port, config.server.port);
        const say = flags.json ? () => {} : (text: string) => void process.stdout.write(text);
        let sourceEnv = env;
        let sample = "decision";
        let demo: string | null = null;
        if (!hasAgentHistory(env)) {
          makeRecallHome(home); // RECALL_HOME is private (0700), whichever command creates it
          demo = path.join(home, "demo");
          const manifest = await demoCorpus(demo, say);
          sourceEnv = demoEnv(env, manifest);
          sample =
            manifest.showcase?.query ?? manifest.needles.find((n) => n.source !== "dyad")?.query ?? sample;
        }
        const store = await openIndexToWrite({
          home,
          engine: ctx().forcedEngine,
        });
        try {
          const indexed = await indexForStart(store, { home, env: sourceEnv, config });
          if (indexed) say(`${indexSummaryLine(indexed, store)}\n\n`);
          // One snapshot, as every tool search reads (a running broker may be writing).
          const found = readSnapshot(store.db, () => searchHistory(store.db, store.engine, sample, {}, 5));
          const invocation = recallInvocation(process.argv[1] ?? "recall", env, process.cwd());
          const command = `${invocation.command} search ${JSON.stringify(sample)}`;
          if (flags.json) {
            const index = indexed && { ...indexed, engine: store.engine, file: store.file };
            const line = { demo, index, sample: { query: sample, command, hits: found.hits } };
            process.stdout.write(`${JSON.stringify(line)}\n`);
          } else printSample(command, sample, found.hits, invocation);
        } finally {
          store.close();
        }
        if (!flags.serve) return;
        say("\n");
        await serveDashboard({
          home,
          sourceEnv,
          config,
          forcedEngine: ctx().forcedEngine,
          host: "127.0.0.1",
          port,
          json: flags.json === true,
        });
      });
  },
};

interface StartIndexed {
  records: number;
  batches: number;
  by: "broker" | "local";
}

/** The index brought current by its one writer: a running broker, or this process in its place. */
async function indexForStart(
  store: { db: Db },
  options: { home: string; env: Env; config: Config },
): Promise<StartIndexed | null> {
  const bar = progressBar("indexing", 1);
  try {
    const work = await catchUpThroughBroker({ ...options, db: store.db, bar, command: "start" });
    return { records: work.result.records, batches: work.result.batches, by: work.by };
  } catch (error) {
    // Built by a newer recall: this one searches and serves it all the same.
    if (!isRecallError(error) || error.kind !== "SchemaTooNew") throw error;
    process.stderr.write(`recall: ${error.message}\n\n`);
    return null;
  } finally {
    bar.stop();
  }
}

function indexSummaryLine(indexed: StartIndexed, store: { engine: string; file: string }): string {
  const by = indexed.by === "broker" ? ", by the running broker" : "";
  return `Indexed ${indexed.records} records in ${indexed.batches} batches (engine ${store.engine}${by}) into ${store.file}`;
}

/** The sample search as people read it, and how to run recall from here. */
function printSample(
  command: string,
  sample: string,
  hits: ReturnType<typeof searchHistory>["hits"],
  invocation: { command: string; onPath: boolean },
): void {
  process.stdout.write(`Sample search: ${command}\n\n`);
  if (hits.length === 0) process.stdout.write("no hits\n");
  const tokens = queryTokens(sample);
  for (const hit of hits) process.stdout.write(formatHit(hit, tokens, process.stdout.isTTY === true));
  const link = invocation.onPath ? "" : " (`npm link` in this folder puts `recall` on your PATH)";
  process.stdout.write(
    `\nTry: ${invocation.command} search "<words>" --json${link}, or see README.md for every command.\n`,
  );
}
