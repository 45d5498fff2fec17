import { RecallError } from "../core/errors.js";

/** Commands whose issue has not landed say so plainly and exit 2 instead of pretending. */
export function notYetImplemented(command: string): never {
  throw new RecallError("Usage", `'recall ${command}' is not implemented yet in this version`);
}
