/** The chat-model interface every provider (openai-compatible, sim, cache) implements. */

export type CallRole = 'agent' | 'judge' | 'memory';
export type Phase = 'train' | 'valid' | 'gold';

/** Who is asking and why. Tags drive the cache key, the cost ledger and the sim model. */
export interface ChatTags {
  benchmark: string;
  taskId: string;
  epoch: number;
  phase: Phase;
  role: CallRole;
  /** Finer purpose inside a role, e.g. 'solve', 'script', 'reflection', 'judge'. */
  purpose?: string;
  /** Turn index inside a multi-turn episode (0-based). */
  turn?: number;
}

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | ContentPart[];
}

/** What the harness injected into the prompt. Real providers ignore it; the sim model reads it. */
export interface InjectedMemoryHint {
  id: string;
  key: string;
  success: boolean;
  taskId?: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  /** Ask for a JSON object reply where the endpoint supports it. */
  jsonMode?: boolean;
  /**
   * Return an empty reply as '' (the caller scores it, as the reference does) instead of
   * failing with ProviderError 'empty'. Not part of the response cache's key.
   */
  acceptEmpty?: boolean;
  tags: ChatTags;
  memoryHints?: InjectedMemoryHint[];
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ChatResponse {
  text: string;
  usage: TokenUsage;
  /** Model name as reported by the provider ('sim' for the simulator). */
  model: string;
  systemFingerprint?: string;
  latencyMs: number;
  cached?: boolean;
}

export interface ChatModel {
  /** Stable label written to every output, e.g. 'sim' or 'openai:gpt-4o-mini'. */
  readonly label: string;
  /** True for the offline simulator: its numbers are never results. */
  readonly simulated: boolean;
  chat(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse>;
}

export const ZERO_USAGE: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
