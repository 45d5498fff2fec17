import type { Command } from "commander";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { systemClock } from "../../core/clock.js";
import { agentRoots, type Env } from "../../config/paths.js";
import { generateDemoCorpus, type DemoManifest } from "../../demo/index.js";
import { backfill } from "../../indexer/backfill.js";
import { PROJECTION_VERSION } from "../../projection/index.js";
import { searchHistory } from "../../search/history.js";
import { queryTokens } from "../../search/query.js";
import { createSources } from "../../sources/registry.js";
import { openHistoryStore } from "../../store/history-store.js";
import type { CommandModule } from "../program.js";
import { progressBar } from "../progress.js";
import { formatHit } from "./search.js";

const nonEmptyDir = (dir: string) => existsSync(dir) && readdirSync(dir).length > 0;

/** Whether this machine has any agent history where the CLIs keep it. */
export function hasAgentHistory(env: Env): boolean {
  const roots = agentRoots(env);
  return (
    roots.claude.some((r) => nonEmptyDir(path.join(r, "projects"))) ||
    nonEmptyDir(path.join(roots.codex, "sessions")) ||
    nonEmptyDir(path.join(roots.codex, "archived_sessions")) ||
    (roots.opencodeDb !== null && existsSync(roots.opencodeDb)) ||
    existsSync(path.join(roots.opencodeDataDir, "opencode.db")) ||
    nonEmptyDir(path.join(roots.opencodeDataDir, "storage"))
  );
}

/** The environment that points every CLI source at a demo corpus written under `root`. */
export function demoEnv(env: Env, manifest: DemoManifest): Env {
  return {
    ...env,
    CLAUDE_CONFIG_DIR: manifest.paths.claudeConfigDir,
    CODEX_HOME: manifest.paths.codexHome,
    XDG_DATA_HOME: path.dirname(manifest.paths.opencodeDataDir),
    OPENCODE_DB: undefined,
  };
}

/**
 * The main job behind `npm start`: index the agent history on this machine (or, when there
 * is none, a generated demo corpus), then show a sample search.
 */
export const startCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("start")
      .description("the main job: index this machine's agent history (or a demo corpus when there is none)")
      .action(async () => {
        const { env, home } = ctx();
        const config = ctx().config();
        let sourceEnv = env;
        let sample = "decision";
        if (!hasAgentHistory(env)) {
          const root = path.join(home, "demo");
          process.stdout.write(`No agent history found on this machine; writing a demo corpus to ${root}\n`);
          const manifest = await generateDemoCorpus({ root, seed: 1 });
          sourceEnv = demoEnv(env, manifest);
          sample = manifest.needles.find((n) => n.source !== "dyad")?.query ?? sample;
        }
        const store = await openHistoryStore({
          home,
          projectionVersion: PROJECTION_VERSION,
          engine: ctx().forcedEngine,
        });
        try {
          const sources = createSources(sourceEnv, config);
          const bar = progressBar("indexing", 1);
          const result = backfill(store.db, sources, {
            projectionVersion: PROJECTION_VERSION,
            clock: systemClock,
            onProgress: (p) => bar.update(p.records, p.records + 1),
          });
          bar.stop();
          process.stdout.write(
            `Indexed ${result.records} records in ${result.batches} batches (engine ${store.engine}) into ${store.file}\n\n`,
          );
          const found = searchHistory(store.db, store.engine, sample, {}, 5);
          process.stdout.write(`Sample search: recall search "${sample}"\n\n`);
          if (found.hits.length === 0) process.stdout.write("no hits\n");
          const tokens = queryTokens(sample);
          for (const hit of found.hits)
            process.stdout.write(formatHit(hit, tokens, process.stdout.isTTY === true));
          process.stdout.write(
            `\nTry: recall search "<words>" --json, or see README.md for every command.\n`,
          );
        } finally {
          store.close();
        }
      });
  },
};
