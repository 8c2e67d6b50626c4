/**
 * memrl.evaluator to the evaluator's settings: where untrusted code runs (local or in
 * containers), its timeouts, and the keys benchmarks add to the section.
 */
import { UserError } from '../util/errors.js';
import type { FlagValues } from './flags.js';
import type { MemrlConfig } from './schema.js';
import type { ConfigRegistry, ConfigTree, EvaluatorSettings } from './types.js';
import type { KeyPath } from './yaml-source.js';

type EvaluatorSection = MemrlConfig['memrl']['evaluator'];

/** The hard timeout ends what the evaluation timeout did not: below it, it would cut every evaluation short. */
export function refuseShortHardTimeout(ev: EvaluatorSection, ctx: { flags: FlagValues; where(path: KeyPath): string }): void {
  if (ev.hard_timeout < ev.eval_timeout) {
    throw new UserError(
      `${ctx.where(['memrl', 'evaluator', ctx.flags.evalTimeout !== undefined ? 'eval_timeout' : 'hard_timeout'])}: hard timeout (${ev.hard_timeout} s) is below the evaluation timeout (${ev.eval_timeout} s); raise --untrusted-hard-timeout / memrl.evaluator.hard_timeout`,
    );
  }
}

export function evaluatorSettings(ev: EvaluatorSection, registry: ConfigRegistry): EvaluatorSettings {
  return {
    backend: ev.backend,
    ...addedEvaluatorSettings(ev, registry),
    evalTimeoutS: ev.eval_timeout,
    hardTimeoutS: ev.hard_timeout,
    forkServer: ev.fork_server,
    docker: {
      host: ev.docker.host,
      images: { ...ev.docker.images },
      memoryMb: ev.docker.memory_mb,
      pids: ev.docker.pids,
      pull: ev.docker.pull,
    },
  };
}

/** The memrl.evaluator keys benchmarks add (their sharedKeys), camelCased: bcb_x → bcbX. */
function addedEvaluatorSettings(ev: EvaluatorSection, registry: ConfigRegistry): ConfigTree {
  const out: ConfigTree = {};
  for (const b of registry.benchmarks) {
    for (const added of b.sharedKeys ?? []) {
      if (added.section !== 'memrl.evaluator') continue;
      for (const key of Object.keys(added.keys)) out[key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())] = (ev as ConfigTree)[key];
    }
  }
  return out;
}
