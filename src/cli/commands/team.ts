import type { Command } from "commander";
import { RecallError } from "../../core/errors.js";
import {
  describeUrl,
  pushTeam,
  PUSH_BATCH_DEFAULT,
  PUSH_BATCH_MAX,
  teamAdmin,
  teamSettings,
  type TeamAdminVerb,
} from "../../app/team.js";
import { counted, printJson } from "../output.js";
import type { CommandModule } from "../program.js";

/**
 * `recall team`: the team store (docs/team.md). `push` publishes this machine's new documents
 * and forgets (any member); `init`, `grant`, `revoke` and `assign` are the administrator's, run
 * with the URL of the role that owns the tables. The URL is RECALL_TEAM_URL or team.url in
 * config.json; every failure is one line on stderr and exit 1 (2 for usage).
 */

function batchFlag(value: string | undefined): number {
  if (value === undefined) return PUSH_BATCH_DEFAULT;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > PUSH_BATCH_MAX)
    throw new RecallError("Usage", `--batch must be a whole number from 1 to ${PUSH_BATCH_MAX}`);
  return n;
}

function nonEmpty(name: string, value: string): string {
  if (!value.trim()) throw new RecallError("Usage", `${name} must not be empty`);
  return value.trim();
}

export const teamCommand: CommandModule = {
  register(program: Command, ctx) {
    const team = program
      .command("team")
      .description("the team store (PostgreSQL): push, and the administrator's init, grant, revoke, assign")
      .argument("[verb]")
      .action((verb: string | undefined) => {
        throw new RecallError(
          "Usage",
          verb === undefined
            ? "recall team needs a verb: push, init, grant, revoke or assign"
            : `unknown team verb '${verb}': use push, init, grant, revoke or assign`,
        );
      });
    team
      .command("push")
      .description(
        "publish this machine's new documents and forgets to the team store (incremental, resumable)",
      )
      .option("--batch <n>", `local rows per batch, 1 to ${PUSH_BATCH_MAX} (default ${PUSH_BATCH_DEFAULT})`)
      .option("--full", "send every document again (upserts: nothing is duplicated)")
      .option("--json", "print JSON")
      .action(async (flags: { batch?: string; full?: boolean; json?: boolean }) => {
        const batch = batchFlag(flags.batch);
        const { home, env } = ctx();
        const config = ctx().config();
        // A test hook: slows each batch, so a test can kill a push midway (never set in use).
        const pause = Number(env.RECALL_TEAM_PUSH_PAUSE_MS ?? 0);
        const result = await pushTeam(home, env, config, {
          batch,
          full: flags.full,
          onBatch: pause > 0 ? () => new Promise((r) => setTimeout(r, pause)) : undefined,
        });
        if (flags.json) return printJson(result);
        const where = describeUrl(teamSettings(env, config)!.url);
        process.stdout.write(
          `pushed ${counted(result.pushed, "document")} from ${result.machine} to ${where} in ` +
            `${counted(result.batches, "batch", "batches")} (${(result.ms / 1000).toFixed(1)} s); ` +
            `${counted(result.withheld, "document")} withheld (tool output, local-only or unassigned projects); ` +
            `${counted(result.forgotten, "team document")} forgotten\n`,
        );
      });
    const admin = (action: () => TeamAdminVerb) => async () => {
      const { env } = ctx();
      process.stdout.write(`${await teamAdmin(env, ctx().config(), action())}\n`);
    };
    team
      .command("init")
      .description("create or upgrade the team schema (administrator)")
      .action(admin(() => ({ verb: "init" })));
    const membership = [
      ["grant", "make a PostgreSQL login role a member of a team (administrator)"],
      ["revoke", "take a member out of a team (administrator)"],
    ] as const;
    for (const [verb, description] of membership)
      team
        .command(verb)
        .description(description)
        .argument("<member>", "the member's PostgreSQL role")
        .argument("<team>", "the team's name")
        .action((member: string, name: string) =>
          admin(() => ({ verb, member: nonEmpty("member", member), team: nonEmpty("team", name) }))(),
        );
    team
      .command("assign")
      .description("give a project (its canonical path) to a team (administrator)")
      .argument("<project>", "the project's path as recall indexes it")
      .argument("<team>", "the team's name")
      .action((project: string, name: string) =>
        admin(() => ({
          verb: "assign",
          project: nonEmpty("project", project),
          team: nonEmpty("team", name),
        }))(),
      );
  },
};
