/**
 * Where BigCodeBench tests run, behind one small interface: the local bubblewrap
 * sandbox (evaluate.ts) or containers (evaluate-docker.ts), chosen by
 * memrl.evaluator.backend / --evaluator. Both send the same harness the same
 * payload and read its result with the same rules, so verdicts do not depend on
 * the backend.
 */
import type { DockerSettings } from '../../config/types.js';
import { DOCKER_DEFAULTS } from '../../config/schema.js';
import { checkBwrap } from '../../sandbox/check.js';
import { checkPythonLibs, DEFAULT_SANDBOX_PYTHON } from '../../sandbox/python-libs.js';
import { UserError } from '../../util/errors.js';
import { BCB_IMAGE } from './config.js';
import type { BcbTask } from './dataset.js';
import { describeBcbEvaluator, evaluateBcb, type BcbEvalOptions, type BcbEvalResult } from './evaluate.js';
import { DockerBcbEvaluator } from './evaluate-docker.js';

export type BcbBackend = 'local' | 'docker';

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

export interface BcbEvaluator {
  readonly backend: BcbBackend;
  /** One verdict; never throws: faults on our side come back as status 'error'. */
  evaluate(task: Pick<BcbTask, 'code_prompt' | 'test'>, code: string, opts?: BcbEvalOptions): Promise<BcbEvalResult>;
  /** Throws a UserError naming what is missing when tests cannot run here at all. */
  preflight(): Promise<BcbRuntimeFacts>;
  /** Facts for the run manifest; throws a UserError like preflight. */
  describe(): Promise<Record<string, unknown>>;
  /** Releases containers; the evaluator is unusable afterwards. */
  close(): Promise<void>;
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
}

export function createBcbEvaluator(s: BcbEvaluatorSettings): BcbEvaluator {
  return s.backend === 'docker' ? new DockerBcbEvaluator(s.docker, s.concurrency, s.timeoutSec) : localBcbEvaluator(s.python, s.timeoutSec);
}

/** memrl.evaluator.docker as configured by default, for commands without a config file (check-gold). */
export function defaultDockerSettings(overrides: { host?: string | null; bcbImage?: string } = {}): DockerSettings {
  return { host: overrides.host ?? null, images: { bcb: overrides.bcbImage ?? BCB_IMAGE }, ...DOCKER_DEFAULTS };
}

function localBcbEvaluator(python = DEFAULT_SANDBOX_PYTHON, timeoutSec?: number): BcbEvaluator {
  return {
    backend: 'local',
    evaluate: (task, code, opts = {}) => evaluateBcb(task, code, { python, ...opts }),
    preflight: async () => {
      const bwrap = await checkBwrap();
      if (!bwrap.ok) throw new UserError(`cannot run the BigCodeBench sandbox: ${bwrap.reason}`);
      const libs = await checkPythonLibs(python);
      if (!libs.ok) throw new UserError(`cannot run the BigCodeBench sandbox: ${libs.reason}`);
      return { backend: 'local', python, pythonVersion: libs.version, missingLibs: libs.missing };
    },
    describe: async () => ({ backend: 'local-bwrap', ...(await describeBcbEvaluator({ python, ...(timeoutSec !== undefined ? { timeoutSec } : {}) })) }),
    close: async () => undefined,
  };
}
