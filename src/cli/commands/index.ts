import type { CommandModule } from "../program.js";

/** Implemented commands; anything in DESIGN.md's list not here is a placeholder that exits 2. */
export const COMMANDS: CommandModule[] = [];
