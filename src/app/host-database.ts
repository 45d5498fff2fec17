/** `recall tool`: a host's own Dyad-shaped database, opened as the embedded entry is given one. */
export { hasApp } from "../store/dyad-tables.js";
export { openDatabase, type Db } from "../store/open.js";
