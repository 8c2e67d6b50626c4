/**
 * The suite's own cache folder ($XDG_CACHE_HOME), made once per `vitest run` and
 * removed after it: tests record gold durations and font lists as users' runs do, and
 * must neither read a user's nor leave theirs behind. Workers and the memrl processes
 * tests start inherit it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'memrl-test-cache-'));
  process.env.XDG_CACHE_HOME = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
