/** Host processes, for tests that check nothing a sandbox started outlives it. */
import { readdirSync, readFileSync } from 'node:fs';

/** How many host processes have `marker` in their command line. */
export function hostProcessesWith(marker: string): number {
  let n = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) n++;
    } catch {
      // exited meanwhile
    }
  }
  return n;
}

/** Polls `check` until it holds or `ms` have passed; the last answer is returned. */
export async function eventually(check: () => boolean, ms = 5000, everyMs = 50): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return check();
}
