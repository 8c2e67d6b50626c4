/**
 * A plug-in memory method at the boundary: its module, the instance `create` returns,
 * and every retrieval, experience, commit, snapshot, record list, statistic and `size`
 * checked against the contracts as the runner asks for them.
 */
import { methodInstanceSchema, methodModuleSchema, type FinishedEpisode, type MethodContext, type MethodInstance, type MethodModule } from '../../core/method.js';
import type { TaskBase } from '../../core/benchmark.js';
import { guarded, report, type Rule, type Site } from './guard.js';
import { violationLine, type Culprit } from './violation.js';

export function guardMethodModule(module: MethodModule, who: Culprit): MethodModule {
  // A run's instance reports to that run's log (its context has it).
  const runSite = (args: readonly unknown[]): Site => ({ who, events: { log: (args[0] as MethodContext | undefined)?.log } });
  return guarded(module, methodModuleSchema, { who, events: {} }, {
    create: {
      site: runSite,
      after: (value, args) => {
        const site = runSite(args);
        return guarded(value as MethodInstance, methodInstanceSchema, site, instanceRules(site));
      },
    },
  });
}

function instanceRules(site: Site): Record<string, Rule> {
  return {
    retrieve: {
      after: (value, args, label) => {
        const retrievals = value as unknown[];
        const tasks = args[0] as readonly TaskBase[];
        if (retrievals.length !== tasks.length) {
          throw report(site, violationLine(site.who, `${label} returned ${retrievals.length} retrieval(s) for ${tasks.length} task(s): one per task, in task order`, 'MethodInstance'));
        }
        return value;
      },
    },
    learn: { label: (args) => `learn(${(args[0] as FinishedEpisode | undefined)?.task?.id ?? '?'})` },
  };
}
