/** `memrl doctor`'s row on the local sandbox's BigCodeBench libraries: which are missing, and the fix where there is one. */
import { settle, type ProbeOutcome } from '../../doctor/probes.js';
import { openEnv } from '../../env/registry.js';
import { HEAVY_SETUP_COMMAND, heavySetupModules } from './heavy-libraries.js';
import { BCB_LIBRARIES, BCB_MODULES } from './libraries.js';

/** Not ok only when a missing library has a setup command; the ones no distribution package covers are listed as facts. */
export function probeBcbLibraries(): Promise<ProbeOutcome> {
  return settle(async () => {
    const env = await openEnv('python-tests', 'local', {});
    try {
      const py = await env.pythonModules(BCB_LIBRARIES);
      if (!py.ok) return { ok: false, detail: py.reason };
      const heavy = heavySetupModules();
      const fixable = py.missing.filter((m) => heavy.has(m));
      const unpackaged = py.missing.filter((m) => !heavy.has(m));
      const parts = [`${BCB_MODULES.length - py.missing.length} of ${BCB_MODULES.length} present`];
      if (fixable.length) parts.push(`missing ${fixable.join(', ')} (${HEAVY_SETUP_COMMAND})`);
      if (unpackaged.length) parts.push(`not packaged, their tasks cannot pass: ${unpackaged.join(', ')}`);
      return { ok: fixable.length === 0, detail: parts.join('; ') };
    } finally {
      await env.close();
    }
  });
}
