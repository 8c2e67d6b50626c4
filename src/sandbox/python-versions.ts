/**
 * Installed versions of the BigCodeBench libraries in the sandbox's Python, for
 * run.json: a pass rate means little without the library versions the tests ran
 * against. Read from package metadata (no imports), except for the few modules
 * Debian ships without it (cv2, tkinter), which are imported for __version__.
 */
import { resolveLimits } from './limits.js';
import { BCB_MODULES, DEFAULT_SANDBOX_PYTHON, PACKAGE_ALIASES } from './python-libs.js';
import { runSandboxed } from './run.js';

const SCRIPT = [
  'import importlib, importlib.metadata as md, importlib.util, json, sys',
  'mods = json.loads(sys.argv[1]); aliases = json.loads(sys.argv[2])',
  'try:',
  '    pd = md.packages_distributions()',
  'except AttributeError:',
  '    pd = {}',
  'out = {}',
  'for m in mods:',
  '    name = m if importlib.util.find_spec(m) is not None else aliases.get(m)',
  '    if not name or importlib.util.find_spec(name) is None:',
  '        continue',
  '    v = None',
  '    for d in pd.get(name) or [name]:',
  '        try:',
  '            v = d + " " + md.version(d); break',
  '        except Exception:',
  '            pass',
  '    if v is None:',
  '        try:',
  '            v = str(getattr(importlib.import_module(name), "__version__", "")) or None',
  '        except Exception:',
  '            v = None',
  '    out[m] = v or "installed (no version metadata)"',
  'print(json.dumps(out))',
].join('\n');

/** argv after the interpreter: the probe prints one JSON object, module → "<distribution> <version>". */
export function libraryVersionsArgs(modules: readonly string[] = BCB_MODULES): string[] {
  return ['-c', SCRIPT, JSON.stringify(modules), JSON.stringify(PACKAGE_ALIASES)];
}

/** The probe's output, or why it could not be read. */
export function parseLibraryVersions(stdout: string): Record<string, string> | { error: string } {
  try {
    return JSON.parse(stdout.trim().split('\n').pop() ?? '') as Record<string, string>;
  } catch {
    return { error: `could not read library versions: ${stdout.trim().slice(0, 200) || 'no output'}` };
  }
}

const cache = new Map<string, Promise<Record<string, string> | { error: string }>>();

/** Module → "<distribution> <version>" for every module of `modules` the sandbox has; missing ones are left out. */
export function pythonLibraryVersions(python = DEFAULT_SANDBOX_PYTHON, modules = BCB_MODULES): Promise<Record<string, string> | { error: string }> {
  const key = `${python}\u0000${modules.join(',')}`;
  let p = cache.get(key);
  if (!p) {
    p = probe(python, modules);
    cache.set(key, p);
  }
  return p;
}

async function probe(python: string, modules: readonly string[]): Promise<Record<string, string> | { error: string }> {
  try {
    const res = await runSandboxed({ command: [python, ...libraryVersionsArgs(modules)], timeoutMs: 60_000, limits: resolveLimits(60) });
    return parseLibraryVersions(res.stdout);
  } catch (err) {
    // The manifest says why rather than failing the run: the evaluator probe reports a broken sandbox itself.
    return { error: `could not read library versions: ${err instanceof Error ? err.message : String(err)}` };
  }
}
