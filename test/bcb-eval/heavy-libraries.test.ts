/**
 * The BigCodeBench libraries the main setup leaves out (scripts/setup/bcb-heavy-packages.txt):
 * the bcb image still installs them (its list is bcb-packages.txt), and a task that needs
 * one names the setup command that installs it; a library nobody packages gets no such hint.
 */
import { describe, expect, it } from 'vitest';
import { blockedByMissingLibs } from '../../src/bench/bcb/benchmark.js';
import { probeBcbLibraries } from '../../src/bench/bcb/doctor.js';
import { BCB_MODULES } from '../../src/bench/bcb/libraries.js';
import { readBcbTasks } from '../../src/bench/bcb/dataset.js';
import { HEAVY_SETUP_COMMAND, heavySetupModules, readSetupPackageList } from '../../src/bench/bcb/heavy-libraries.js';
import { sharedDataDir } from '../../src/util/paths.js';
import { join } from 'node:path';
import { checkBwrap } from '../../src/env/bwrap/check.js';
import { IN_CI } from '../helpers/require-engine.js';

const bwrap = await checkBwrap();

describe('BigCodeBench libraries left out of the main setup', () => {
  it('are wordcloud and gensim, and the image list still has their packages', () => {
    expect([...heavySetupModules()].sort()).toEqual(['gensim', 'wordcloud']);
    const full = new Map(readSetupPackageList('bcb-packages.txt'));
    for (const [pkg, mod] of readSetupPackageList('bcb-heavy-packages.txt')) expect(full.get(pkg), pkg).toBe(mod);
  });

  it('a task that needs one is blocked with the command that installs it', () => {
    const byId = new Map(readBcbTasks(join(sharedDataDir(), 'bigcodebench', 'bigcodebench_full.jsonl.gz')).tasks.map((t) => [t.id, t]));
    const tasks = ['BigCodeBench/13', 'BigCodeBench/34', 'BigCodeBench/59', 'BigCodeBench/289'].map((id) => byId.get(id)!);
    const blocked = blockedByMissingLibs(tasks, ['wordcloud', 'wikipedia', 'tensorflow']);
    expect(blocked).toEqual([
      { taskId: 'BigCodeBench/34', reason: `needs wordcloud, not installed in the sandbox (${HEAVY_SETUP_COMMAND} installs wordcloud)` },
      { taskId: 'BigCodeBench/59', reason: `needs wikipedia, wordcloud, not installed in the sandbox (${HEAVY_SETUP_COMMAND} installs wordcloud)` },
      { taskId: 'BigCodeBench/289', reason: 'needs tensorflow, not installed in the sandbox' },
    ]);
  });

  // `bash scripts/setup.sh test` installs them: the suite's machine has every library Debian packages.
  it.skipIf(!bwrap.ok && !IN_CI)('memrl doctor counts what the sandbox has, and lists the libraries no package provides', async () => {
    const row = await probeBcbLibraries();
    expect(row.ok, row.detail).toBe(true);
    expect(row.detail).toMatch(new RegExp(`^\\d+ of ${BCB_MODULES.length} present; not packaged, their tasks cannot pass: tensorflow, keras`));
    expect(row.detail).not.toMatch(/wordcloud|gensim/);
  }, 60_000);
});
