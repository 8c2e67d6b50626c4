/** A RunPlan with some of each group's fields replaced: tests state only what they vary. */
import type { TaskBase } from '../../src/core/benchmark.js';
import type { FolderPlan, MethodPlan, ModelPlan, RunPlan, SchedulePlan, ValidationPlan } from '../../src/runner/run-plan.js';

export interface PlanOverrides<T extends TaskBase> extends Partial<Pick<RunPlan<T>, 'benchmark' | 'stops' | 'episodes' | 'outputs' | 'log' | 'now'>> {
  method?: Partial<MethodPlan>;
  schedule?: Partial<SchedulePlan>;
  validation?: Partial<ValidationPlan>;
  models?: Partial<ModelPlan>;
  folder?: Partial<FolderPlan>;
}

export function withOverrides<T extends TaskBase>(base: RunPlan<T>, over: PlanOverrides<T>): RunPlan<T> {
  return {
    ...base,
    ...over,
    method: { ...base.method, ...over.method },
    schedule: { ...base.schedule, ...over.schedule },
    validation: { ...base.validation, ...over.validation },
    models: { ...base.models, ...over.models },
    folder: { ...base.folder, ...over.folder },
  };
}
