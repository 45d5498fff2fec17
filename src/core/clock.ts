/** One place to read time, so tests and the demo generator can pin it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export function fixedClock(at: number): Clock {
  return { now: () => at };
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms`: a synchronous retry's pause, with nothing else running meanwhile. */
export function pauseSync(ms: number): void {
  Atomics.wait(PAUSE, 0, 0, ms);
}
