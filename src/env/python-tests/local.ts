/**
 * Python tests in the local bubblewrap sandbox (env/bwrap): the program's input on
 * stdin, its verdict on fd 3, prlimit's rlimits, everything it started killed at the
 * wall-clock limit. A run that brings a warm-up goes to a fork server (a warm
 * interpreter as PID 1 of a long-lived sandbox, fork-server.ts) unless the settings
 * turn it off; any other run, or one no server could carry out, gets a sandbox and
 * interpreter of its own.
 */
import { checkBwrap, SETUP_HINT } from '../bwrap/check.js';
import { launchSandboxed } from '../bwrap/launch.js';
import { runSandboxed, SandboxUnavailableError } from '../bwrap/run.js';
import type { EnvCheck, EvaluatorFacts } from '../contract.js';
import { FONTLIST_MAX_BYTES, HELPER_OUTPUT_BYTES, PYTHON_HELPER_TIMEOUT_SEC, resolveLimits } from '../limits.js';
import { PYTHON_TEST_ENV, type HelperResult, type PythonModules, type PythonModulesQuery, type PythonRunRequest, type PythonRunResult, type PythonTestRunner, type PythonTestsSettings } from './contract.js';
import { ForkServers, forkServerSource, type ForkServerStats } from './fork-server.js';
import { cachedFontList, FONT_FINGERPRINT_SCRIPT, FONTLIST_SCRIPT, parseFontFingerprint, parseFontList, type MatplotlibFontList } from './fontlist.js';
import { libraryVersionsArgs, missingRequired, moduleProbeArgs, parseLibraryVersions, parseModuleProbe, queryKey } from './probe.js';

/** Python of the sandbox: Debian's interpreter, where the python3-* packages live (not a pyenv/venv one). */
export const DEFAULT_SANDBOX_PYTHON = process.env.MEMRL_SANDBOX_PYTHON ?? '/usr/bin/python3';

/** Probe results per interpreter and query, for the process: each starts a real sandbox. */
const moduleChecks = new Map<string, Promise<PythonModules>>();
const versionChecks = new Map<string, Promise<Record<string, string> | { error: string }>>();

export class LocalPythonTestRunner implements PythonTestRunner {
  readonly backend = 'local' as const;
  readonly python: string;
  private readonly timeoutSec: number;
  private readonly forkServer: boolean;
  private readonly forkServers = new ForkServers();

  constructor(settings: PythonTestsSettings = {}) {
    this.python = settings.python ?? DEFAULT_SANDBOX_PYTHON;
    this.timeoutSec = settings.timeoutSec ?? 60;
    this.forkServer = settings.forkServer ?? true;
  }

  async ready(): Promise<void> {
    const bwrap = await checkBwrap();
    if (!bwrap.ok) throw new SandboxUnavailableError(bwrap.reason);
  }

  async run(req: PythonRunRequest): Promise<PythonRunResult> {
    const limits = resolveLimits(req.timeoutSec, req.limits);
    if (this.forkServer && req.warm) {
      const python = this.python;
      const warm = await this.forkServers.run(python, req, req.warm, limits, () => ({
        launch: (serverLimits) => launchSandboxed({ command: [python, '-B', '-c', forkServerSource()], env: { ...PYTHON_TEST_ENV }, limits: serverLimits, asPid1: true }),
      }));
      if (warm) return warm;
      // No server could take it: a fresh sandbox does, with the same result.
    }
    const run = await runSandboxed({
      command: [this.python, '-B', '-c', req.program],
      env: { ...PYTHON_TEST_ENV, ...req.env },
      input: req.input,
      timeoutMs: req.timeoutSec * 1000,
      limits,
      resultFdBytes: req.resultBytes,
      maxOutputBytes: req.outputBytes,
      ...(req.signal ? { signal: req.signal } : {}),
    });
    const fault = run.spawnError ? `sandbox failed to start: ${run.spawnError}` : run.aborted ? 'aborted' : undefined;
    return {
      ...(fault !== undefined ? { fault } : {}),
      result: run.result,
      stderr: run.stderr,
      timedOut: run.timedOut,
      exitCode: run.exitCode,
      exitSignal: run.exitSignal,
      durationMs: run.durationMs,
    };
  }

  async helper(args: string[], opts: { timeoutSec: number; maxOutputBytes: number }): Promise<HelperResult> {
    const res = await runSandboxed({
      command: [this.python, ...args],
      env: { ...PYTHON_TEST_ENV },
      timeoutMs: opts.timeoutSec * 1000,
      limits: resolveLimits(opts.timeoutSec),
      maxOutputBytes: opts.maxOutputBytes,
    });
    return { stdout: res.stdout, stderr: res.stderr, exitCode: res.exitCode, truncated: res.stdoutTruncated };
  }

  fontList(): Promise<MatplotlibFontList | null> {
    return cachedFontList(
      `local\u0000${this.python}`,
      async () => {
        const res = await this.helper(['-c', FONTLIST_SCRIPT], { timeoutSec: PYTHON_HELPER_TIMEOUT_SEC.fontList, maxOutputBytes: FONTLIST_MAX_BYTES });
        return res.exitCode === 0 && !res.truncated ? parseFontList(res.stdout) : null;
      },
      async () => {
        const res = await this.helper(['-c', FONT_FINGERPRINT_SCRIPT], { timeoutSec: PYTHON_HELPER_TIMEOUT_SEC.fontList, maxOutputBytes: HELPER_OUTPUT_BYTES });
        return res.exitCode === 0 ? parseFontFingerprint(res.stdout) : null;
      },
    );
  }

  /** A broken sandbox or interpreter is reported (ok: false), never thrown: manifests record it. */
  pythonModules(query: PythonModulesQuery): Promise<PythonModules> {
    const key = `${this.python}\u0000${queryKey(query)}`;
    let p = moduleChecks.get(key);
    if (!p) {
      p = this.probeModules(query);
      moduleChecks.set(key, p);
    }
    return p;
  }

  private async probeModules(query: PythonModulesQuery): Promise<PythonModules> {
    const python = this.python;
    const bwrap = await checkBwrap();
    if (!bwrap.ok) return { ok: false, python, missing: [], reason: bwrap.reason };
    const res = await this.helper(moduleProbeArgs(query), { timeoutSec: PYTHON_HELPER_TIMEOUT_SEC.moduleProbe, maxOutputBytes: HELPER_OUTPUT_BYTES });
    const probe = parseModuleProbe(res.stdout);
    if (!probe) {
      const detail = (res.stderr.trim().split('\n').pop() ?? '') || `exit code ${res.exitCode}`;
      return { ok: false, python, missing: [], reason: `cannot run ${python} in the sandbox (${detail}); ${SETUP_HINT}` };
    }
    const lacking = missingRequired(query, probe.missing);
    if (lacking.length > 0) {
      return { ok: false, python, version: probe.version, missing: probe.missing, reason: `${python} lacks ${lacking.join(', ')} (Debian python3-* packages); ${SETUP_HINT}` };
    }
    return { ok: true, python, version: probe.version, missing: probe.missing };
  }

  libraryVersions(query: PythonModulesQuery): Promise<Record<string, string> | { error: string }> {
    const key = `${this.python}\u0000${queryKey(query)}`;
    let p = versionChecks.get(key);
    if (!p) {
      p = this.helper(libraryVersionsArgs(query), { timeoutSec: PYTHON_HELPER_TIMEOUT_SEC.libraryVersions, maxOutputBytes: HELPER_OUTPUT_BYTES }).then(
        (res) => parseLibraryVersions(res.stdout),
        // The manifest says why rather than failing the run: the module probe reports a broken sandbox itself.
        (err: unknown) => ({ error: `could not read library versions: ${err instanceof Error ? err.message : String(err)}` }),
      );
      versionChecks.set(key, p);
    }
    return p;
  }

  async check(): Promise<EnvCheck> {
    const bwrap = await checkBwrap();
    if (!bwrap.ok) return { ok: false, reason: bwrap.reason };
    const py = await this.pythonModules({ modules: [] });
    return py.ok ? { ok: true, detail: `bubblewrap ${bwrap.path}, python ${py.version}` } : { ok: false, reason: py.reason };
  }

  async describe(): Promise<EvaluatorFacts> {
    const bwrap = await checkBwrap();
    return {
      backend: 'local-bwrap',
      sandbox: bwrap.ok ? { bwrap: bwrap.path, ...bwrap.features } : { unavailable: bwrap.reason },
      forkServer: this.forkServers.describe(this.forkServer),
      limits: resolveLimits(this.timeoutSec),
    };
  }

  /** What the fork servers did (ForkServers.stats). */
  forkServerStats(): ForkServerStats {
    return this.forkServers.stats();
  }

  /** Stops the fork servers (runs in fresh sandboxes hold nothing). */
  async close(): Promise<void> {
    await this.forkServers.close();
  }
}

/** For tests: forget cached probe results. */
export function resetPythonProbes(): void {
  moduleChecks.clear();
  versionChecks.clear();
}

/** matplotlib's font list for `python` in the local sandbox, or null when matplotlib is missing or the build fails. */
export function matplotlibFontList(python: string): Promise<MatplotlibFontList | null> {
  return new LocalPythonTestRunner({ python }).fontList();
}
