/** One place to read time, so tests and the demo generator can pin it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export function fixedClock(at: number): Clock {
  return { now: () => at };
}
