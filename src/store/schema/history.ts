import type { Migration } from "../migrate.js";
import { historyV1, type HistorySchemaContext } from "./history-v1.js";
import { historyV2 } from "./history-v2.js";
import { historyV3 } from "./history-v3.js";
import { historyV4 } from "./history-v4.js";
import { historyV5 } from "./history-v5.js";
import { historyV6 } from "./history-v6.js";
import { historyV7 } from "./history-v7.js";
import { historyV8 } from "./history-v8.js";
import { historyV9 } from "./history-v9.js";
import { historyV10 } from "./history-v10.js";
import { historyV11 } from "./history-v11.js";
import { historyV12 } from "./history-v12.js";
import { historyV13 } from "./history-v13.js";
import { historyV14 } from "./history-v14.js";
import { historyV15 } from "./history-v15.js";
import { historyV16 } from "./history-v16.js";

export type { HistorySchemaContext };

/** history.db's migrations, oldest first. Append; never edit a released step. */
export const HISTORY_MIGRATIONS: readonly Migration<HistorySchemaContext>[] = [
  historyV1,
  historyV2,
  historyV3,
  historyV4,
  historyV5,
  historyV6,
  historyV7,
  historyV8,
  historyV9,
  historyV10,
  historyV11,
  historyV12,
  historyV13,
  historyV14,
  historyV15,
  historyV16,
];
