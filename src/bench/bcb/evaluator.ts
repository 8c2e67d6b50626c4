/**
 * Where BigCodeBench tests run: a python-tests environment from the env registry
 * (the local bubblewrap sandbox or containers), chosen by memrl.evaluator.backend /
 * --evaluator. Every environment gets the same harness and payload and its run is
 * read with the same rules (evaluate.ts), so verdicts do not depend on it.
 */
import type { DockerSettings } from '../../config/types.js';
import { DOCKER_DEFAULTS } from '../../config/schema.js';
import { imageOf } from '../../config/image-slot.js';
import type { EnvBackendName, EvaluatorFacts } from '../../env/contract.js';
import type { PythonTestRunner, PythonWarmup } from '../../env/python-tests/contract.js';
import type { MatplotlibFontList } from '../../env/python-tests/fontlist.js';
import { openEnv } from '../../env/registry.js';
import { errorMessage, UserError } from '../../util/errors.js';
import { BCB_IMAGE } from './config.js';
import type { BcbTask } from './dataset.js';
import {
  clampTimeout,
  DEFAULT_TIMEOUT_SEC,
  harnessPayload,
  harnessSha256,
  harnessSource,
  harnessWarmup,
  newNonce,
  PROGRAM_OUTPUT_BYTES,
  RESULT_CHANNEL_BYTES,
  taskImports,
  verdictOf,
  type BcbEvalOptions,
  type BcbEvalResult,
} from './evaluate.js';
import { BCB_LIBRARIES } from './libraries.js';

export type BcbBackend = EnvBackendName;

/** The container label of BigCodeBench's test containers. */
export const BCB_ROLE = 'bcb';

/** What runs the tests, as check-gold reports it. */
export interface BcbRuntimeFacts {
  backend: BcbBackend;
  /** Interpreter path (inside the sandbox or the image). */
  python: string;
  pythonVersion: string | null;
  /** BigCodeBench modules that interpreter lacks. */
  missingLibs: string[];
  /** The image for docker (name and id). */
  image?: { name: string; id: string };
}

export interface BcbEvaluatorSettings {
  backend: BcbBackend;
  docker: DockerSettings;
  /** Test runs at once (the run's --concurrency): sizes the container pool. */
  concurrency: number;
  /** Budget reported in the manifest (the default of evaluate()'s timeoutSec is 60). */
  timeoutSec?: number;
  /** Local interpreter (default /usr/bin/python3 or $MEMRL_SANDBOX_PYTHON). */
  python?: string;
  /** Tests run in children of a warm fork server (default true); false: a fresh interpreter per test. */
  forkServer?: boolean;
}

/** BigCodeBench's harness over a python-tests environment. */
export class BcbEvaluator {
  private readonly runner: Promise<PythonTestRunner>;
  private warm: { fonts: MatplotlibFontList | null; warmup: PythonWarmup } | undefined;

  constructor(
    readonly backend: BcbBackend,
    runner: Promise<PythonTestRunner>,
    private readonly timeoutSec: number = DEFAULT_TIMEOUT_SEC,
  ) {
    this.runner = runner;
    runner.catch(() => undefined); // surfaced by the first call
  }

  /** One verdict; never throws for faults of the environment: they come back as status 'error'. */
  async evaluate(task: Pick<BcbTask, 'code_prompt' | 'test'> & Partial<Pick<BcbTask, 'entry_point'>>, code: string, opts: BcbEvalOptions = {}): Promise<BcbEvalResult> {
    const mode = opts.mode ?? 'reference';
    const timeoutSec = clampTimeout(opts.timeoutSec);
    const started = Date.now();
    let runner: PythonTestRunner;
    let fonts;
    try {
      runner = await this.runner;
      fonts = await runner.fontList();
    } catch (err) {
      // The environment cannot be reached (no engine, no image): our fault, not the code's.
      return { status: 'error', firstError: errorMessage(err), durationMs: Date.now() - started, mode, timeoutSec };
    }
    const nonce = newNonce();
    const run = await runner.run({
      program: harnessSource(),
      input: harnessPayload(task, code, mode, nonce, fonts, opts.sanitize ?? false),
      timeoutSec,
      resultBytes: RESULT_CHANNEL_BYTES,
      outputBytes: PROGRAM_OUTPUT_BYTES,
      warm: this.warmup(fonts),
      preload: taskImports(task),
      ...(opts.placement ? { affinity: opts.placement.worker, preloadAhead: opts.placement.groupAhead } : {}),
      ...(opts.limits ? { limits: opts.limits } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    if (run.fault !== undefined) return { status: 'error', firstError: run.fault, durationMs: run.durationMs, mode, timeoutSec };
    return verdictOf(run, nonce, mode, timeoutSec);
  }

  /** The fork server's warm-up, one object for as long as the font list is the same (its text is hashed once). */
  private warmup(fonts: MatplotlibFontList | null): PythonWarmup {
    if (this.warm?.fonts !== fonts) this.warm = { fonts, warmup: harnessWarmup(fonts) };
    return this.warm.warmup;
  }

  /** Throws a UserError naming what is missing when tests cannot run here at all. */
  async preflight(): Promise<BcbRuntimeFacts> {
    const runner = await this.runner;
    await runner.ready();
    const py = await runner.pythonModules(BCB_LIBRARIES);
    if (!py.ok) throw new UserError(`cannot run the BigCodeBench tests: ${py.reason}`);
    const where = runner.backend === 'docker' ? await runner.describe() : {};
    const image = where.image as { name: string; id: string } | undefined;
    return { backend: this.backend, python: py.python, pythonVersion: py.version, missingLibs: py.missing, ...(image ? { image: { name: image.name, id: image.id } } : {}) };
  }

  /**
   * Facts for the run manifest. The local sandbox records a broken interpreter here
   * (its tests then fail loudly); a container backend without its engine or image
   * throws a UserError, which stops the run before it starts.
   */
  async describe(): Promise<EvaluatorFacts> {
    const runner = await this.runner;
    const { limits, ...where } = await runner.describe();
    const py = await runner.pythonModules(BCB_LIBRARIES);
    return {
      ...where,
      python: py.python,
      pythonVersion: py.version ?? null,
      missingLibs: py.missing,
      libraryVersions: await runner.libraryVersions(BCB_LIBRARIES),
      ...(py.ok ? {} : { problem: py.reason }),
      timeoutSec: this.timeoutSec,
      limits,
      harnessSha256: harnessSha256(),
    };
  }

  /** Releases containers; the evaluator is unusable afterwards. */
  async close(): Promise<void> {
    const runner = await this.runner.catch(() => null);
    await runner?.close();
  }
}

export function createBcbEvaluator(s: BcbEvaluatorSettings): BcbEvaluator {
  const timeoutSec = s.timeoutSec ?? DEFAULT_TIMEOUT_SEC;
  // Opened lazily (no engine is touched here); a missing image slot surfaces with the first call.
  const runner = (async () =>
    openEnv('python-tests', s.backend, {
      ...(s.python ? { python: s.python } : {}),
      ...(s.forkServer !== undefined ? { forkServer: s.forkServer } : {}),
      timeoutSec,
      ...(s.backend === 'docker' ? { docker: { settings: s.docker, image: imageOf(s.docker, 'bcb'), role: BCB_ROLE, concurrency: s.concurrency } } : {}),
    }))();
  return new BcbEvaluator(s.backend, runner, timeoutSec);
}

const locals = new Map<string, BcbEvaluator>();

/** The local sandbox's evaluator for an interpreter (nothing to close: each run is its own sandbox). */
export function localBcbEvaluator(python?: string, timeoutSec?: number): BcbEvaluator {
  const key = `${python ?? ''}\u0000${timeoutSec ?? ''}`;
  let ev = locals.get(key);
  if (!ev) {
    ev = createBcbEvaluator({ backend: 'local', docker: defaultDockerSettings(), concurrency: 1, ...(python ? { python } : {}), ...(timeoutSec !== undefined ? { timeoutSec } : {}) });
    locals.set(key, ev);
  }
  return ev;
}

/** memrl.evaluator.docker as configured by default, for commands without a config file (check-gold). */
export function defaultDockerSettings(overrides: { host?: string | null; bcbImage?: string } = {}): DockerSettings {
  return { host: overrides.host ?? null, images: { bcb: overrides.bcbImage ?? BCB_IMAGE }, ...DOCKER_DEFAULTS };
}

/** One run in the local sandbox (createBcbEvaluator gives the environment the config chooses). */
export async function evaluateBcb(
  task: Pick<BcbTask, 'code_prompt' | 'test'> & Partial<Pick<BcbTask, 'entry_point'>>,
  code: string,
  opts: BcbEvalOptions = {},
): Promise<BcbEvalResult> {
  return localBcbEvaluator(opts.python).evaluate(task, code, opts);
}

/**
 * Facts about the local evaluator for a run manifest: interpreter and version,
 * libraries it lacks, limits, harness checksum. Never throws; an unusable sandbox
 * is reported.
 */
export async function describeBcbEvaluator(opts: { python?: string; timeoutSec?: number } = {}): Promise<EvaluatorFacts> {
  const { backend: _backend, ...facts } = await localBcbEvaluator(opts.python, opts.timeoutSec).describe();
  return facts;
}
