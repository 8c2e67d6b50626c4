/**
 * Token counts of the prompts a run would send. OpenAI's models are counted with their
 * own tokenizer (js-tiktoken: o200k_base for the gpt-4o, gpt-4.1, gpt-5 and o-series
 * models, cl100k_base for gpt-4, gpt-3.5 and the text-embedding models); any other
 * model is counted as characters / 4, and the estimate says which it used.
 */
import type { ChatMessage } from '../../llm/types.js';

export interface TokenCounter {
  /** How it counts, for the estimate's notes: 'o200k_base (js-tiktoken)' or 'characters / 4'. */
  method: string;
  count(text: string): number;
}

type Encoding = 'o200k_base' | 'cl100k_base';

/** The tokenizer of an OpenAI model family, by name; null for models of other families. */
export function encodingFor(model: string): Encoding | null {
  const m = model.trim().toLowerCase().replace(/^openai\//, '');
  if (/^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o\d)/.test(m)) return 'o200k_base';
  if (/^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada)/.test(m)) return 'cl100k_base';
  return null;
}

const CHARS = { method: 'characters / 4 (no tokenizer for this model family)', count: (text: string) => Math.ceil(text.length / 4) };
const encoders = new Map<Encoding, Promise<TokenCounter>>();

async function load(encoding: Encoding): Promise<TokenCounter> {
  const { Tiktoken } = await import('js-tiktoken/lite');
  const ranks = encoding === 'o200k_base' ? (await import('js-tiktoken/ranks/o200k_base')).default : (await import('js-tiktoken/ranks/cl100k_base')).default;
  const enc = new Tiktoken(ranks);
  // Special-token text in a prompt is counted as ordinary text, as the API bills it.
  return { method: `${encoding} (js-tiktoken)`, count: (text) => enc.encode(text, [], []).length };
}

export function tokenCounter(model: string): Promise<TokenCounter> {
  const encoding = encodingFor(model);
  if (!encoding) return Promise.resolve(CHARS);
  let counter = encoders.get(encoding);
  if (!counter) {
    counter = load(encoding);
    encoders.set(encoding, counter);
  }
  return counter;
}

/** The text of a message (image parts are not counted). */
export function messageText(m: ChatMessage): string {
  return typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** A chat request's prompt tokens: each message's text plus OpenAI's few tokens of framing per message and per reply. */
export function promptTokens(counter: TokenCounter, messages: readonly ChatMessage[]): number {
  return messages.reduce((n, m) => n + 4 + counter.count(messageText(m)), 3);
}
