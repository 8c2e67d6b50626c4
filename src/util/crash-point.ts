/**
 * Crash-safety tests only: MEMRL_CRASH_AT=<point>:<n> kills this process (SIGKILL, as
 * `kill -9` would) the n-th time it passes <point>, to hit narrow windows on purpose
 * (the runner's journal and barrier points, a worker's `episode-job`).
 */
const crashAt = /^([a-z-]+):(\d+)$/.exec(process.env.MEMRL_CRASH_AT ?? '');
let crashCountdown = crashAt ? Number(crashAt[2]) : 0;

export function crashPoint(point: string): void {
  if (crashAt?.[1] === point && --crashCountdown === 0) process.kill(process.pid, 'SIGKILL');
}
