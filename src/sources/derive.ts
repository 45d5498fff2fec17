/**
 * Everything other layers know about sources, derived from a list of definitions (the registry's,
 * or a test's own): a new source shows up in each of these by being listed.
 */
import { z } from "zod";
import type { Env } from "../platform/paths.js";
import type { SourceDefinition } from "./definition.js";

type Definitions = readonly SourceDefinition[];
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;
/** The config.json `sources` fields of a list of definitions. */
export type SourcesShape<D extends Definitions> =
  UnionToIntersection<D[number]["config"]> extends infer S extends z.ZodRawShape ? S : never;

/** The agent filter value that finds every source the filter does not name itself. */
export const OTHER_AGENT = "other";

/** config.json `sources`: every definition's fields; unknown fields are errors so typos surface. */
export function sourcesConfigSchema<D extends Definitions>(definitions: D) {
  const shape = Object.assign({}, ...definitions.map((d) => d.config)) as SourcesShape<D>;
  const object = z.object(shape).strict();
  // Every field has a default or is optional: an absent `sources` is the parse of {}.
  return object.default(object.parse({}) as never);
}

/** The agents the filter names itself, in registry order (claude, codex, opencode). */
export const ownAgents = (definitions: Definitions): string[] => [
  ...new Set(definitions.filter((d) => d.filter.own).map((d) => d.agent)),
];

/** The agent filter's values: the own agents, then `other`. */
export const agentNames = (definitions: Definitions): [string, ...string[]] => {
  const [first = OTHER_AGENT, ...rest] = [...ownAgents(definitions), OTHER_AGENT];
  return [first, ...rest];
};

/** The document agents `other` finds: the bridge's peers first (their agent is "other"), then the rest. */
export function otherAgents(definitions: Definitions): string[] {
  const others = definitions.filter((d) => !d.filter.own || d.filter.other === true).sort(byOtherFirst);
  return [...new Set(others.map((d) => d.agent))];
}

const byOtherFirst = (a: SourceDefinition, b: SourceDefinition) =>
  Number(b.agent === OTHER_AGENT) - Number(a.agent === OTHER_AGENT);

/** The documents an agent filter value finds: its own agent's, or for `other` every agent not named. */
export const agentFilter = (
  value: string,
  definitions: Definitions,
): { agent: string } | { agents: string[] } =>
  value === OTHER_AGENT ? { agents: otherAgents(definitions) } : { agent: value };

/** The agent filter's values with the names people know them by (the dashboard's agent choice). */
export function agentChoices(definitions: Definitions): { value: string; label: string }[] {
  return agentNames(definitions).map((value) => ({
    value,
    label: definitions.find((d) => d.filter.own && d.agent === value)?.displayName ?? value,
  }));
}

/** A source as status and coverage name it: its stable name, and how people name it when that differs. */
export function sourceLabel(source: string, definitions: Definitions): string {
  const display = definitions.find((d) => d.name === source)?.displayName;
  return display && display !== source ? `${source} (${display})` : source;
}

/** `--agent` help: "claude | codex | opencode | other (the agent bridge and Dyad chats)". */
export function agentHelp(definitions: Definitions): string {
  const labels = definitions
    .filter((d) => !d.filter.own)
    .sort(byOtherFirst)
    .map((d) => (d.filter.own ? "" : d.filter.label));
  const named = definitions.filter((d) => d.filter.own && d.filter.other === true).map((d) => d.agent);
  const also = named.length > 0 ? `, and ${named.join(", ")}` : "";
  return `${agentNames(definitions).join(" | ")} (${labels.join(" and ")}${also})`;
}

/** Whether any source finds history on this machine (`npm start` falls back to a demo otherwise). */
export const hasAgentHistory = (env: Env, definitions: Definitions): boolean =>
  definitions.some((d) => d.hasHistory(env));

/** Where recall looked, for "No agent history found": each source, its paths and the variables that move them. */
export function lookedIn(env: Env, definitions: Definitions): string {
  return definitions
    .flatMap((d) =>
      d.lookedIn ? [`${d.displayName} ${d.lookedIn(env).join(", ")} (${d.env.join(", ")})`] : [],
    )
    .join(", ");
}

/** "Claude Code, Codex, opencode": the agents whose transcripts search_history covers by name. */
export const transcriptAgents = (definitions: Definitions): string =>
  definitions
    .filter((d) => d.filter.own)
    .map((d) => d.displayName)
    .join(", ");

/** "claude:<session>, codex:<thread>, opencode:<session>": conversation ids as help shows them. */
export const conversationIds = (definitions: Definitions): string =>
  definitions.flatMap((d) => (d.conversationId ? [d.conversationId] : [])).join(", ");

/** Each source's display name by its name ("gemini-cli" → "Gemini CLI"): status and coverage show these. */
export const sourceDisplayNames = (definitions: Definitions): Record<string, string> =>
  Object.fromEntries(definitions.map((d) => [d.name, d.displayName]));
