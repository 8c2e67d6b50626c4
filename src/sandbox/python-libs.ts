/**
 * Can the sandbox's Python import what BigCodeBench tests need? Cached per
 * interpreter and module list: the probe starts a real sandbox.
 */
import { checkBwrap, SETUP_HINT } from './check.js';
import { resolveLimits } from './limits.js';
import { runSandboxed } from './run.js';

/** Python of the sandbox: Debian's interpreter, where the python3-* packages live (not a pyenv/venv one). */
export const DEFAULT_SANDBOX_PYTHON = process.env.MEMRL_SANDBOX_PYTHON ?? '/usr/bin/python3';

/** Modules without which most BigCodeBench tasks cannot pass. */
export const CORE_BCB_MODULES = ['numpy', 'pandas', 'matplotlib', 'scipy', 'sklearn'];

/** Every third-party module that BigCodeBench tests or solutions import (top-level names). */
export const BCB_MODULES = [
  ...CORE_BCB_MODULES,
  'seaborn', 'statsmodels', 'sympy', 'networkx', 'skimage', 'cv2', 'PIL', 'soundfile', 'gensim', 'wordcloud',
  'tkinter', 'nltk', 'regex', 'Levenshtein', 'natsort', 'chardet', 'pytz', 'dateutil', 'holidays', 'faker',
  'yaml', 'xmltodict', 'lxml', 'bs4', 'pyquery', 'texttable', 'prettytable', 'openpyxl', 'xlrd', 'xlwt', 'docx',
  'requests', 'requests_mock', 'mechanize', 'django', 'flask', 'flask_mail', 'flask_login', 'flask_restful',
  'flask_wtf', 'wtforms', 'werkzeug', 'rsa', 'cryptography', 'Crypto', 'psutil', 'pyfakefs', 'folium', 'geopy',
  'geopandas', 'shapely', 'tensorflow', 'keras', 'textblob', 'wikipedia', 'librosa', 'sendgrid',
  'python_http_client', 'blake3', 'wordninja', 'pytesseract',
];

/** Same library, other import name; the BCB harness maps these (see PACKAGE_ALIASES in bcb_harness.py). */
export const PACKAGE_ALIASES: Record<string, string> = { Crypto: 'Cryptodome' };

export type PythonLibsCheck =
  | { ok: true; python: string; version: string; missing: string[] }
  | { ok: false; python: string; version?: string; missing: string[]; reason: string };

const pythonChecks = new Map<string, Promise<PythonLibsCheck>>();

/**
 * Which of `modules` the sandbox's Python can import (found, not imported, to keep
 * it fast). ok = the interpreter runs and every core module is there; `missing`
 * lists all absent ones so reports can explain failures.
 */
export function checkPythonLibs(python = DEFAULT_SANDBOX_PYTHON, modules = BCB_MODULES): Promise<PythonLibsCheck> {
  const key = `${python}\u0000${modules.join(',')}`;
  let p = pythonChecks.get(key);
  if (!p) {
    p = probePython(python, modules);
    pythonChecks.set(key, p);
  }
  return p;
}

/**
 * Arguments after the interpreter for a probe that prints {"version", "missing", "executable"}
 * (shared with the container backend, which runs it inside its image).
 */
export function pythonProbeArgs(modules: string[] = BCB_MODULES): string[] {
  const script = [
    'import importlib.util, json, sys',
    'mods = json.loads(sys.argv[1])',
    'aliases = json.loads(sys.argv[2])',
    'def found(m):',
    '    return importlib.util.find_spec(m) is not None or (m in aliases and importlib.util.find_spec(aliases[m]) is not None)',
    'missing = [m for m in mods if not found(m)]',
    'print(json.dumps({"version": sys.version.split()[0], "missing": missing, "executable": sys.executable}))',
  ].join('\n');
  return ['-c', script, JSON.stringify(modules), JSON.stringify(PACKAGE_ALIASES)];
}

async function probePython(python: string, modules: string[]): Promise<PythonLibsCheck> {
  const bwrap = await checkBwrap();
  if (!bwrap.ok) return { ok: false, python, missing: [], reason: bwrap.reason };
  const res = await runSandboxed({
    command: [python, ...pythonProbeArgs(modules)],
    timeoutMs: 30_000,
    limits: resolveLimits(30),
  });
  let missing: string[];
  let version: string;
  try {
    ({ missing, version } = JSON.parse(res.stdout.trim().split('\n').pop() ?? '') as { missing: string[]; version: string });
  } catch {
    const detail = (res.stderr.trim().split('\n').pop() ?? '') || `exit code ${res.exitCode}`;
    return { ok: false, python, missing: [], reason: `cannot run ${python} in the sandbox (${detail}); ${SETUP_HINT}` };
  }
  const missingCore = CORE_BCB_MODULES.filter((m) => modules.includes(m) && missing.includes(m));
  if (missingCore.length > 0) {
    return {
      ok: false,
      python,
      version,
      missing,
      reason: `${python} lacks ${missingCore.join(', ')} (Debian python3-* packages); ${SETUP_HINT}`,
    };
  }
  return { ok: true, python, version, missing };
}

/** For tests: forget cached probe results. */
export function resetPythonLibsCheck(): void {
  pythonChecks.clear();
}
