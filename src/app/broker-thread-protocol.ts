import type { ErrorParts } from "../core/errors.js";
import type { BrokerRequest } from "../indexer/broker.js";
import type { BrokerDutiesSpec } from "./broker-duties.js";

/** What the broker's thread (broker-thread.ts) is started with. */
export type BrokerThreadInit = BrokerDutiesSpec;

export type ToBrokerThread =
  | { type: "request"; id: number; request: BrokerRequest }
  /** Stop the worker and close the writer, then say "stopped". */
  | { type: "stop" };

export type FromBrokerThread =
  /** The writer could not start: the error's kind only (messages can quote paths). */
  | { type: "failed"; kind: string }
  /** A content-free line for the process's log. */
  | { type: "log"; line: string }
  | { type: "progress"; id: number; figures: unknown }
  | { type: "answer"; id: number; result: unknown }
  /** A request failed: its message and RecallError kind, as the local channel sends them. */
  | ({ type: "refused"; id: number } & ErrorParts)
  | { type: "stopped" };
