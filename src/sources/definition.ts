import type { z } from "zod";
import type { Env } from "../platform/paths.js";
import type { Budget, Source } from "./types.js";

/** The per-tick discovery bounds of Budget a source honours (the rest bound every source). */
export type BudgetLimit = keyof Pick<Budget, "maxEntries" | "maxFiles" | "maxSessionRows">;

/** Its fields of config.json's `sources`, parsed (defaults filled in). */
export type SourceSettings<S extends z.ZodRawShape> = z.output<z.ZodObject<S>>;

/** What a definition's factory is given. */
export interface SourceContext<S extends z.ZodRawShape = z.ZodRawShape> {
  env: Env;
  /** config.json's `sources`: this source's fields among the others. */
  settings: SourceSettings<S>;
  /** Lines longer than this are discarded from parsing (their bytes are still retained). */
  maxLineBytes?: number;
  /** The agent filter's own agents (claude, codex...): a bridge run names one of them, or "other". */
  agents: readonly string[];
}

/**
 * One source of agent history: everything the rest of recall knows about it. registry.ts lists
 * these; the agent filter, config.json's `sources`, `npm start`'s detection, CLI help, the
 * "looked in" message and the tool descriptions are derived from that list (derive.ts).
 */
export interface SourceDefinition<S extends z.ZodRawShape = z.ZodRawShape> {
  /** Stable name in checkpoints, documents and coverage ("claude-code"). */
  name: string;
  /** The agent filter value of its documents ("claude"). */
  agent: string;
  /**
   * An agent the filter names itself, or one `other` finds (the agent bridge, Dyad's chats);
   * `label` then says what `other` holds in CLI help. An agent added after the spec's enum
   * (claude, codex, opencode) is named and found by `other` too (`other: true`): `other` keeps
   * meaning every agent outside those three.
   */
  filter: { own: true; other?: true } | { own: false; label: string };
  /** How people name it ("Claude Code"). */
  displayName: string;
  /** A conversation id as `recall export` help shows it ("claude:<session>"); transcript sources only. */
  conversationId?: string;
  /** The environment variables that move where it reads, in the order help names them. */
  env: readonly string[];
  /** Folders and files it reads: recall never writes an export there. */
  roots(env: Env, settings: SourceSettings<S>): string[];
  /** What "No agent history found" names as looked in; absent for recall's own stores (the bridge). */
  lookedIn?(env: Env): string[];
  /** Whether this machine holds its history: `npm start` writes a demo corpus only when none does. */
  hasHistory(env: Env): boolean;
  /** Its fields of config.json's `sources`, each with its default. */
  config: S;
  /** The discovery bounds of a tick it reads (documentation for the worker's budget). */
  limits: readonly BudgetLimit[];
}

/**
 * A definition with its reader: what the indexer runs (readers.ts). Kept apart so that what only
 * needs to know about sources (config.json, the agent filter, help, status) never loads a parser:
 * every source's reader code in the static graph of `recall search` cost a cold search about
 * 60 ms of its 230–320 (1M Zipf index, 2-core VM).
 */
export interface ReadableSource<S extends z.ZodRawShape = z.ZodRawShape> extends SourceDefinition<S> {
  /** Its sources on this machine (none when config turns it off; Dyad has one per database). */
  create(context: SourceContext<S>): Source[];
}

/** Keeps a definition's config shape as written, so config.json's type names every field. */
export const defineSource = <S extends z.ZodRawShape>(definition: SourceDefinition<S>) => definition;

/** A definition and the factory of its sources. */
export const readable = <S extends z.ZodRawShape>(
  definition: SourceDefinition<S>,
  create: (context: SourceContext<S>) => Source[],
): ReadableSource<S> => ({ ...definition, create });
