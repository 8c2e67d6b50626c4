/**
 * A plug-in benchmark at the boundary: its module, the Benchmark its `create` returns,
 * every task list, episode result, chat call and sim reply checked against the
 * contracts; `--limit` applied to what `load` returns, so no plug-in has to.
 */
import type { ResolvedConfig } from '../../config/types.js';
import { benchmarkModuleSchema, benchmarkSchema, simPlayerSchema, type Benchmark, type BenchmarkModule, type EpisodeContext, type LoadedTasks, type TaskBase } from '../../core/benchmark.js';
import { chatRequestSchema, type ChatModel, type ChatRequest } from '../../llm/types.js';
import { check, guarded, report, type Rule, type Site } from './guard.js';
import { violationLine, type Culprit } from './violation.js';

export function guardBenchmarkModule(module: BenchmarkModule, who: Culprit): BenchmarkModule {
  const site: Site = { who, events: {} };
  return guarded(module, benchmarkModuleSchema, site, {
    create: {
      after: (value, args) => {
        const run = args[1] as ResolvedConfig;
        // Each run's benchmark reports to that run (start-run attaches its log and stop).
        const runSite: Site = { who, events: {} };
        const bench = value as Benchmark;
        if (bench.name !== module.name) {
          throw report(runSite, violationLine(who, `create() returned a Benchmark named '${bench.name}', expected the module's name '${module.name}' (chat calls and the sim player are filed under it)`, 'Benchmark'));
        }
        return guarded(bench, benchmarkSchema, runSite, benchmarkRules(runSite, module.name, run?.run?.limit ?? null));
      },
    },
  });
}

function benchmarkRules(site: Site, name: string, limit: number | null): Record<string, Rule> {
  return {
    load: { after: (value) => limited(value as LoadedTasks, limit) },
    episode: {
      label: (args) => `episode(${(args[0] as TaskBase | undefined)?.id ?? '?'})`,
      before: (args, label) => {
        const [task, ctx] = args as [TaskBase, EpisodeContext];
        const checkedCtx: EpisodeContext = { ...ctx, model: checkedModel(ctx.model, site, name, task, `${label}: ctx.model.chat()`) };
        if (ctx.judge) checkedCtx.judge = checkedModel(ctx.judge, site, name, task, `${label}: ctx.judge.chat()`);
        // Its own exceptions reach the run's log with their stack (the runner keeps only the message in the row).
        site.events.log ??= ctx.log;
        return [task, checkedCtx, ...args.slice(2)];
      },
      // A thrown error is the runner's to record as an `error` row, as for any benchmark.
      rethrowCrash: true,
    },
    simPlayer: {
      after: (player) =>
        guarded(player as object, simPlayerSchema, site, {
          reply: { label: (args) => `simPlayer().reply(${(args[0] as ChatRequest | undefined)?.tags?.taskId ?? '?'})` },
        }),
    },
  };
}

/** The first N train and N valid tasks (memrl.limit, --limit): memrl's job, not each plug-in's. */
function limited(loaded: LoadedTasks, limit: number | null): LoadedTasks {
  if (!limit || (loaded.train.length <= limit && loaded.valid.length <= limit)) return loaded;
  return { ...loaded, train: loaded.train.slice(0, limit), valid: loaded.valid.slice(0, limit), splitLabel: `${loaded.splitLabel}, limit ${limit}` };
}

/** The episode's model, checking each call it is asked to make: its shape, and that its tags name this benchmark and task. */
function checkedModel(model: ChatModel, site: Site, name: string, task: TaskBase, where: string): ChatModel {
  return {
    label: model.label,
    simulated: model.simulated,
    chat: (req, signal) => {
      check(site, chatRequestSchema, req, where, 'passed');
      if (req.tags.benchmark !== name) throw report(site, violationLine(site.who, `${where} passed tags.benchmark '${req.tags.benchmark}', expected the benchmark's name '${name}' (the sim player and the response cache find calls by it)`, 'ChatTags'));
      if (req.tags.taskId !== task.id) throw report(site, violationLine(site.who, `${where} passed tags.taskId '${req.tags.taskId}', expected the episode's task '${task.id}'`, 'ChatTags'));
      return model.chat(req, signal);
    },
  };
}
