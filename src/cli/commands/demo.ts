import type { Command } from "commander";
import path from "node:path";
import { RecallError } from "../../core/errors.js";
import { generateDemoCorpus } from "../../demo/index.js";
import type { CommandModule } from "../program.js";
import { printJson } from "../output.js";
import { progressBar } from "../progress.js";

interface DemoFlags {
  out?: string;
  seed?: string;
  messages?: string;
  json?: boolean;
}

function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new RecallError("Usage", `${flag} must be a whole number, not "${value}"`);
  return Number(value);
}

export const demoCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("demo")
      .description("write the deterministic demo corpus (Claude Code, Codex, opencode, Dyad) into a folder")
      .option("--out <dir>", "folder to write into (a fake HOME)", undefined)
      .option("--seed <n>", "seed; the same seed writes the same corpus", "1")
      .option("--messages <n>", "approximate number of messages", "600")
      .option("--json", "print the manifest as JSON")
      .action(async (flags: DemoFlags) => {
        const root = path.resolve(flags.out ?? path.join(ctx().home, "demo"));
        const messages = wholeNumber("--messages", flags.messages) ?? 600;
        const bar = progressBar("demo", messages);
        const manifest = await generateDemoCorpus({
          root,
          seed: wholeNumber("--seed", flags.seed),
          messages,
          onProgress: (done, total) => bar.update(done, total),
        });
        bar.stop();
        if (flags.json) return printJson(manifest);
        const c = manifest.counts;
        process.stdout.write(
          `demo corpus in ${root}\n` +
            `  claude ${c.claude.messages} messages, codex ${c.codex.messages}, opencode ${c.opencode.messages}, dyad ${c.dyad.messages}\n` +
            `  ${manifest.needles.length} planted needles, e.g. try: recall search "${manifest.needles[0]?.query ?? ""}"\n`,
        );
      });
  },
};
