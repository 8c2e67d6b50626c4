/**
 * Facts about an environment's Python, read by helper programs that run where the
 * tests run (the same script in the sandbox and in a container): the interpreter's
 * version and which modules it has (found, not imported, to keep it fast), and the
 * installed version of each library, for run manifests: a pass rate means little
 * without the library versions the tests ran against. Versions come from package
 * metadata (no imports), except for the few modules Debian ships without it (cv2,
 * tkinter), which are imported for __version__.
 */
import type { PythonModulesQuery } from './contract.js';

/** argv after the interpreter: prints {"version", "missing", "executable"}. */
export function moduleProbeArgs(query: PythonModulesQuery): string[] {
  const script = [
    'import importlib.util, json, sys',
    'mods = json.loads(sys.argv[1])',
    'aliases = json.loads(sys.argv[2])',
    'def found(m):',
    '    return importlib.util.find_spec(m) is not None or (m in aliases and importlib.util.find_spec(aliases[m]) is not None)',
    'missing = [m for m in mods if not found(m)]',
    'print(json.dumps({"version": sys.version.split()[0], "missing": missing, "executable": sys.executable}))',
  ].join('\n');
  return ['-c', script, JSON.stringify(query.modules), JSON.stringify(query.aliases ?? {})];
}

export interface ModuleProbeOutput {
  version: string;
  missing: string[];
  /** The interpreter's own path. */
  executable?: string;
}

/** The probe's last line, or null when it printed none. */
export function parseModuleProbe(stdout: string): ModuleProbeOutput | null {
  try {
    const parsed = JSON.parse(stdout.trim().split('\n').pop() ?? '') as ModuleProbeOutput;
    return typeof parsed.version === 'string' && Array.isArray(parsed.missing) ? parsed : null;
  } catch {
    return null;
  }
}

/** Required modules of the query that the probe found missing. */
export function missingRequired(query: PythonModulesQuery, missing: readonly string[]): string[] {
  return (query.required ?? []).filter((m) => query.modules.includes(m) && missing.includes(m));
}

const VERSIONS_SCRIPT = [
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

/** argv after the interpreter: prints one JSON object, module → "<distribution> <version>"; missing modules are left out. */
export function libraryVersionsArgs(query: PythonModulesQuery): string[] {
  return ['-c', VERSIONS_SCRIPT, JSON.stringify(query.modules), JSON.stringify(query.aliases ?? {})];
}

/** The versions probe's output, or why it could not be read. */
export function parseLibraryVersions(stdout: string): Record<string, string> | { error: string } {
  try {
    return JSON.parse(stdout.trim().split('\n').pop() ?? '') as Record<string, string>;
  } catch {
    return { error: `could not read library versions: ${stdout.trim().slice(0, 200) || 'no output'}` };
  }
}

/** Cache key of a query. */
export function queryKey(query: PythonModulesQuery): string {
  return `${query.modules.join(',')}\u0000${JSON.stringify(query.aliases ?? {})}\u0000${(query.required ?? []).join(',')}`;
}
