/**
 * Builds the `content` of a new memory from a finished episode (spec section 3), as the
 * reference's MemoryService does (memrl/service/updater.py with builders.py):
 *
 * - a success, or any episode under the `vanilla` update strategy, is built by the
 *   build strategy: `trajectory` (the trajectory as is), `script` (an LLM script) or
 *   `proceduralization` (script and trajectory);
 * - a failure under `adjustment` gets an LLM reflection, whatever the build strategy;
 * - a failure under `validation` writes nothing.
 *
 * Every prompt and content layout is a template file under src/memory/prompts/, and a
 * caller-supplied `promptDir` overrides them file by file. The layouts carry the
 * reference's section markers (SCRIPT:, TRAJECTORY:, What went wrong:, Failed
 * approach:): the benchmarks' memory contexts cut and split stored memories at them.
 * Where memrl's writer used to differ, a switch in fidelity-switches.ts decides.
 */
import { ProviderError } from '../llm/errors.js';
import type { ChatModel, ChatRequest, ChatTags, TokenUsage } from '../llm/types.js';
import { UserError, errorMessage } from '../util/errors.js';
import { REFERENCE_FIDELITY, type Fidelity } from '../util/fidelity.js';
import { TemplateError, loadTemplate, render } from '../util/template.js';
import { FAILED_CALL, SCRIPT_INPUT, SCRIPT_TEMPERATURE } from './fidelity-switches.js';
import type { BuildStrategy, UpdateStrategy } from './types.js';

export const DEFAULT_PROMPT_DIR = 'src/memory/prompts';

/** The template files the writer reads (a user's prompt dir may override any of them). */
export const MEMORY_TEMPLATES = {
  /** The script prompt: the trajectory only, as the reference's. */
  script: 'script.md',
  /** memrl's script prompt (writer.script-input): the task and the trajectory. */
  scriptWithTask: 'script-with-task.md',
  reflection: 'reflection.md',
  success: 'memory-success.md',
  failure: 'memory-failure.md',
  trajectory: 'memory-trajectory.md',
  scriptOnly: 'memory-script.md',
  fallbackScript: 'fallback-script.md',
  fallbackReflection: 'fallback-reflection.md',
} as const;
type TemplateName = keyof typeof MEMORY_TEMPLATES;

/** The reference keeps the first 4096 characters of a task description (MemoryService.add_memories). */
export const TASK_CHARS = 4096;

/** memrl's script temperature under writer.script-temperature (the reference uses the run's llm.temperature). */
export const MEMRL_SCRIPT_TEMPERATURE = 0.7;
/** Both write reflections at 0.3 (updater.py:BaseUpdater._generate_reflection). */
export const REFLECTION_TEMPERATURE = 0.3;

export interface MemoryWriterOptions {
  strategy: BuildStrategy;
  /** adjustment (default): failures get a reflection; vanilla: built like successes; validation: not written. */
  updateStrategy?: UpdateStrategy;
  /** Needed unless every memory it writes is a bare trajectory. */
  model?: ChatModel;
  /** Directory whose *.md files replace the shipped templates of the same name. */
  promptDir?: string;
  /** The writer's switches (default: the reference's behaviour). */
  fidelity?: Fidelity;
  /** Under writer.script-temperature=memrl (default 0.7). */
  scriptTemperature?: number;
  reflectionTemperature?: number;
  maxTokens?: number;
}

export interface WriteInput {
  task: string;
  trajectory: string;
  success: boolean;
  /** benchmark, taskId, epoch, phase of the episode; role and purpose are set here. */
  tags: Omit<ChatTags, 'role' | 'purpose' | 'turn'>;
  signal?: AbortSignal;
}

export interface WrittenMemory {
  /** null: no memory for this episode (a failure under `validation`, or a script call that failed, as the reference). */
  content: string | null;
  usage: TokenUsage;
  /** Set when an LLM call failed (or came back empty) and the writer fell back. */
  llmError?: string;
}

type CallResult = { text: string; error?: string } | { dropped: string };

export class MemoryWriter {
  private readonly cache = new Map<TemplateName, { text: string; path: string }>();
  private readonly fidelity: Fidelity;

  constructor(private readonly opts: MemoryWriterOptions) {
    this.fidelity = opts.fidelity ?? REFERENCE_FIDELITY;
    const reflects = (opts.updateStrategy ?? 'adjustment') === 'adjustment';
    if (!opts.model && (opts.strategy !== 'trajectory' || reflects)) {
      throw new Error(`memory writer: strategy ${opts.strategy} with update ${opts.updateStrategy ?? 'adjustment'} needs a chat model`);
    }
  }

  async write(input: WriteInput): Promise<WrittenMemory> {
    const usage: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
    const update = this.opts.updateStrategy ?? 'adjustment';
    const task = [...input.task].slice(0, TASK_CHARS).join('');
    const { trajectory } = input;
    if (!input.success && update === 'validation') return { content: null, usage };
    if (!input.success && update === 'adjustment') {
      const r = await this.callModel('reflection', { ...input, task }, usage);
      if ('dropped' in r) return { content: null, usage, llmError: r.dropped };
      return this.written(this.fill('failure', { task, trajectory, reflection: r.text }), usage, r.error);
    }
    const strategy = this.opts.strategy;
    if (strategy === 'trajectory') return { content: this.fill('trajectory', { task, trajectory }), usage };
    const r = await this.callModel('script', { ...input, task }, usage);
    if ('dropped' in r) return { content: null, usage, llmError: r.dropped };
    return this.written(this.fill(strategy === 'script' ? 'scriptOnly' : 'success', { task, trajectory, script: r.text }), usage, r.error);
  }

  private written(content: string, usage: TokenUsage, error: string | undefined): WrittenMemory {
    return error === undefined ? { content, usage } : { content, usage, llmError: error };
  }

  /** The chat request of a script or reflection call. */
  private request(purpose: 'script' | 'reflection', input: WriteInput): ChatRequest {
    const vars = { task: input.task, trajectory: input.trajectory };
    const tags = { ...input.tags, role: 'memory' as const, purpose };
    const maxTokens = this.opts.maxTokens !== undefined ? { maxTokens: this.opts.maxTokens } : {};
    if (purpose === 'reflection') {
      return { messages: [{ role: 'user', content: this.fill('reflection', vars) }], temperature: this.opts.reflectionTemperature ?? REFLECTION_TEMPERATURE, ...maxTokens, tags };
    }
    const prompt = this.fill(this.fidelity.memrl(SCRIPT_INPUT) ? 'scriptWithTask' : 'script', vars);
    // The reference's provider writes scripts at its defaults, the run's llm.temperature
    // and llm.max_tokens (providers/llm.py:OpenAILLM.generate_script); our client applies
    // the same defaults to a request that names neither.
    if (!this.fidelity.memrl(SCRIPT_TEMPERATURE)) return { messages: [{ role: 'user', content: prompt }], tags };
    return { messages: [{ role: 'user', content: prompt }], temperature: this.opts.scriptTemperature ?? MEMRL_SCRIPT_TEMPERATURE, ...maxTokens, tags };
  }

  /**
   * One script or reflection call. When it fails or comes back empty: under the
   * reference, a failed script drops the memory, a failed reflection is a fixed note, and
   * an empty reply is kept empty; under writer.failed-call=memrl, both get a placeholder.
   */
  private async callModel(purpose: 'script' | 'reflection', input: WriteInput, usage: TokenUsage): Promise<CallResult> {
    const memrlFallback = this.fidelity.memrl(FAILED_CALL);
    const fallback = (error: string): CallResult => {
      if (purpose === 'script' && !memrlFallback) return { dropped: error };
      return { text: this.fill(purpose === 'script' ? 'fallbackScript' : 'fallbackReflection', {}), error };
    };
    const req = this.request(purpose, input);
    let text: string;
    try {
      const res = await (this.opts.model as ChatModel).chat(req, input.signal);
      usage.promptTokens += res.usage.promptTokens;
      usage.completionTokens += res.usage.completionTokens;
      usage.totalTokens += res.usage.totalTokens;
      text = res.text;
    } catch (err) {
      // A cancelled run must stop, not write placeholder memories.
      if (input.signal?.aborted) throw err;
      // memrl's client refuses an empty reply; the reference's provider returns it as "".
      if (!memrlFallback && err instanceof ProviderError && err.reason === 'empty') return { text: '' };
      return fallback(errorMessage(err));
    }
    if (memrlFallback) return text.trim() === '' ? fallback(`empty ${purpose} reply`) : { text: text.trim() };
    return { text };
  }

  private fill(name: TemplateName, vars: Record<string, string>): string {
    const t = this.template(name);
    try {
      return render(t.text, vars, t.path);
    } catch (err) {
      if (err instanceof TemplateError) throw new UserError(`memory prompt template: ${err.message}`);
      throw err;
    }
  }

  private template(name: TemplateName): { text: string; path: string } {
    const hit = this.cache.get(name);
    if (hit) return hit;
    const t = loadTemplate(DEFAULT_PROMPT_DIR, MEMORY_TEMPLATES[name], this.opts.promptDir);
    // Files end with a newline; the content should not carry it.
    const entry = { text: t.text.trimEnd(), path: t.path };
    this.cache.set(name, entry);
    return entry;
  }
}
