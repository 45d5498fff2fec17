import { existsSync, readdirSync } from "node:fs";

/** A folder that exists and holds something: a CLI has written history there. */
export const nonEmptyDir = (dir: string) => existsSync(dir) && readdirSync(dir).length > 0;
