import type { Command } from "commander";
import { bridgeRoot, type Env, type Config, type Engine } from "../../app/recall.js";
import { compileRedaction } from "../../app/redaction.js";
import { openIndexToWrite } from "../../app/open-index.js";
import { RecallError } from "../../core/errors.js";
import { isLoopback } from "../../http/guard.js";
import { joinBrokerElection } from "../../app/broker-process.js";
import type { CommandModule } from "../program.js";

/** Content-free lines on stderr: counts and states, never a query or a URL token. */
const log = (line: string) => process.stderr.write(`recall serve[${process.pid}]: ${line}\n`);

export interface DashboardOptions {
  home: string;
  /** Where the sources read from (the demo corpus's environment under `npm start`). */
  sourceEnv: Env;
  config: Config;
  forcedEngine: Engine | undefined;
  host: string;
  port: number;
  /** The address as one JSON line (`{"dashboard":{"url":…}}`) instead of words. */
  json?: boolean;
}

/**
 * Takes part in broker election as `recall mcp` does (the elected process also runs the index
 * worker; the others only read), then serves the dashboard and HTTP API until SIGINT/SIGTERM.
 */
export async function serveDashboard(options: DashboardOptions): Promise<void> {
  const { startHttpServer } = await import("../../http/server.js");
  const { createHttpServices } = await import("../../app/http-services.js");
  const store = await openIndexToWrite({
    home: options.home,
    engine: options.forcedEngine,
  });
  const broker = joinBrokerElection({
    home: options.home,
    file: store.file,
    sourceEnv: options.sourceEnv,
    config: options.config,
    log,
  });
  let server;
  try {
    server = await startHttpServer({
      services: createHttpServices(
        store.db,
        store.engine,
        options.home,
        bridgeRoot(options.sourceEnv, options.config.sources.bridgeDir),
        compileRedaction(options.config.redaction),
      ),
      host: options.host,
      port: options.port,
      onFault: (name) => log(`request failed (${name})`),
    });
  } catch (error) {
    await broker.close().catch(() => {});
    store.close();
    const code = (error as NodeJS.ErrnoException).code;
    throw new RecallError(
      "Unavailable",
      code === "EADDRINUSE"
        ? `port ${options.port} is in use; pick another with --port`
        : `cannot listen on ${options.host}:${options.port} (${code ?? (error as Error).name})`,
    );
  }
  if (!isLoopback(options.host)) {
    process.stderr.write(
      `warning: serving on ${options.host}, not loopback: other machines can reach this server; ` +
        "the login link and cookie travel unencrypted\n",
    );
  }
  process.stdout.write(
    options.json
      ? `${JSON.stringify({ dashboard: { url: server.loginUrl } })}\n`
      : `Dashboard: ${server.loginUrl}\n` +
          "Open it once to log in (the link works one time); Ctrl-C stops the server.\n",
  );
  const running = server;
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await running.close();
  await broker.close().catch(() => {});
  store.close();
}

/** --port: a whole number 0..65535 (0 picks a free port). */
export function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535)
    throw new RecallError("Usage", `--port must be a whole number from 0 to 65535, not "${value}"`);
  return Number(value);
}

export const serveCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("serve")
      .description("serve the authenticated dashboard and HTTP API on loopback")
      .option("--port <n>", "port to listen on (default: config server.port; 0 picks a free one)")
      .option("--host <addr>", "address to bind; anything but loopback is reachable from other machines")
      .option("--json", 'print the login address as one JSON line: {"dashboard":{"url":…}}')
      .action(async (flags: { port?: string; host?: string; json?: boolean }) => {
        const { home, env } = ctx();
        const config = ctx().config();
        await serveDashboard({
          home,
          sourceEnv: env,
          config,
          forcedEngine: ctx().forcedEngine,
          host: flags.host ?? "127.0.0.1",
          port: parsePort(flags.port, config.server.port),
          json: flags.json === true,
        });
      });
  },
};
