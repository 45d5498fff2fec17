import cliProgress from "cli-progress";

export interface Progress {
  update(done: number, total?: number): void;
  stop(): void;
}

/** A progress bar on stderr when it is a terminal; silent otherwise (CI, pipes, tests). */
export function progressBar(label: string, total: number): Progress {
  if (!process.stderr.isTTY) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% {value}/{total}`, stream: process.stderr, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return {
    update(done, newTotal) {
      if (newTotal !== undefined && newTotal !== bar.getTotal()) bar.setTotal(newTotal);
      bar.update(done);
    },
    stop: () => bar.stop(),
  };
}
