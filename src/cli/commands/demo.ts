import type { Command } from "commander";
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { RecallError } from "../../core/errors.js";
import {
  makeDirs,
  realOrSelf,
  demoAgentPaths,
  demoPaths,
  generateDemoCorpus,
  MANIFEST_FILE,
  makeRecallHome,
  newerAgentPaths,
} from "../../app/demo.js";
import type { CommandModule } from "../program.js";
import { counted, printJson } from "../output.js";
import { recallInvocation } from "../invocation.js";
import { progressBar } from "../progress.js";

interface DemoFlags {
  out?: string;
  seed?: string;
  messages?: string;
  json?: boolean;
}

/** Past this the generator would run out of memory long before it finished. */
const MAX_DEMO_MESSAGES = 10_000_000;

function wholeNumber(
  flag: string,
  value: string | undefined,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) > max)
    throw new RecallError(
      "Usage",
      `${flag} must be a whole number up to ${max.toLocaleString("en-US")}, not "${value}"`,
    );
  return Number(value);
}

const inside = (child: string, parent: string) => child.startsWith(parent + path.sep);

/**
 * The demo writes a fake HOME, replacing the databases it names: only into a new or empty
 * folder, or one an earlier demo wrote (its manifest names this folder, and is written first, so
 * a run cut short counts; that corpus is cleared first, so the same seed writes the same corpus
 * again). Never into the user's home or a folder above it, and nothing reached through a link
 * out of the folder is removed.
 */
export function prepareDemoFolder(root: string, chosen: boolean): void {
  // A folder the person chose (--out) is named as theirs; recall's own default, as recall's.
  const named = chosen ? `--out ${root}` : `demo folder ${root}`;
  const refuse = (why: string) => new RecallError("Usage", `${named}: ${why}`);
  let stat;
  try {
    stat = statSync(root);
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
    try {
      makeDirs(root);
    } catch (cause) {
      const code = (cause as { code?: unknown }).code;
      if (typeof code !== "string") throw cause;
      throw new RecallError("Config", `${named}: cannot create this folder (${code})`);
    }
    return;
  }
  if (!stat.isDirectory()) throw refuse("not a folder");
  const real = realpathSync(root);
  const home = realOrSelf(os.homedir());
  if (real === home || inside(home, real))
    throw refuse("is your home folder or holds it: the demo replaces databases there");
  // A manifest cut short before its first rename (demo/manifest.ts) is all a run killed at once leaves.
  if (readdirSync(root).every((entry) => entry === `${MANIFEST_FILE}.partial`)) return;
  let earlier: unknown;
  try {
    earlier = (JSON.parse(readFileSync(path.join(root, MANIFEST_FILE), "utf8")) as { root?: unknown }).root;
  } catch {
    earlier = undefined;
  }
  if (typeof earlier !== "string" || realOrSelf(earlier) !== real)
    throw refuse(
      `holds other files and no earlier demo corpus of its own: ${chosen ? "pick a new or empty folder" : "move it aside"}`,
    );
  const paths = demoPaths(real);
  const targets = [
    paths.claudeConfigDir,
    paths.codexHome,
    paths.opencodeDataDir,
    paths.dyadAppsDir,
    paths.bridgeDir,
    demoAgentPaths(real).geminiDir,
    demoAgentPaths(real).qwenHome,
    paths.copilotHome,
    paths.piAgentDir,
    ...Object.values(newerAgentPaths(real)),
    ...["", "-wal", "-shm", "-journal"].map((suffix) => paths.dyadDb + suffix),
  ];
  for (const target of targets) {
    if (existsSync(target) && !inside(realpathSync(target), real))
      throw refuse(`${target} leads out of the folder (a link): nothing was removed`);
  }
  for (const target of targets) rmSync(target, { recursive: true, force: true });
}

export const demoCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("demo")
      .description(
        "write the deterministic demo corpus (Claude Code, Codex, opencode, Dyad, Gemini CLI, Qwen Code, GitHub Copilot CLI, pi) into a folder",
      )
      .option("--out <dir>", "folder to write into (a fake HOME)", undefined)
      .option("--seed <n>", "seed; the same seed writes the same corpus", "1")
      .option("--messages <n>", "approximate number of messages", "600")
      .option("--json", "print the manifest as JSON")
      .action(async (flags: DemoFlags) => {
        if (flags.out !== undefined && flags.out.trim() === "")
          throw new RecallError("Usage", "--out must not be empty");
        const messages = wholeNumber("--messages", flags.messages, MAX_DEMO_MESSAGES) ?? 600;
        // The default folder sits in RECALL_HOME, which is private (0700) whoever creates it first.
        if (flags.out === undefined) makeRecallHome(ctx().home);
        const root = path.resolve(flags.out ?? path.join(ctx().home, "demo"));
        prepareDemoFolder(root, flags.out !== undefined);
        const bar = progressBar("demo", messages);
        const manifest = await generateDemoCorpus({
          root,
          seed: wholeNumber("--seed", flags.seed),
          messages,
          showcase: true,
          onProgress: (done, total) => bar.update(done, total),
        });
        bar.stop();
        if (flags.json) return printJson(manifest);
        const c = manifest.counts;
        const invocation = recallInvocation(process.argv[1] ?? "recall", ctx().env, process.cwd()).command;
        process.stdout.write(
          `demo corpus in ${root}\n` +
            `  claude ${c.claude.messages} messages, codex ${c.codex.messages}, opencode ${c.opencode.messages}, dyad ${c.dyad.messages}, ` +
            `copilot ${manifest.moreAgents.copilot.messages}, pi ${manifest.moreAgents.pi.messages}\n` +
            (manifest.needles[0]
              ? `  ${counted(manifest.needles.length, "planted needle")} (unique words the tests look for), e.g. "${manifest.needles[0].query}"\n`
              : "  no planted needles (too few messages)\n") +
            `  ${counted(manifest.showcase?.sessions ?? 0, "showcase session")}; try: ${invocation} search "${manifest.showcase?.query ?? ""}"\n`,
        );
      });
  },
};
