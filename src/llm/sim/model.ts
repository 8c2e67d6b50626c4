/**
 * The deterministic offline chat model. It never calls a network: benchmark
 * "players" produce agent and judge replies, and a built-in writer produces
 * memory-building replies. Every call's randomness is derived from the request
 * itself, so a run gives the same replies at any concurrency and in any order.
 */
import { UserError } from '../../util/errors.js';
import { hash32, Rng } from '../../util/rng.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../types.js';
import { memoryReply } from './memory-writer.js';
import { estimateTokens, messageText } from './text.js';

/**
 * A benchmark's simulated agent (and judge). It reads the request (prompt, tags,
 * memoryHints) and replies in the benchmark's format; `rng` is private to this call.
 * `rngFor` gives the generator another request would get (a multi-turn player uses
 * it to redo an earlier turn's draw when that turn's reply came from a cache).
 */
export interface SimPlayer {
  reply(req: ChatRequest, rng: Rng, rngFor?: (req: ChatRequest) => Rng): string;
}

export interface SimChatOptions {
  seed: number;
  /** Keyed by ChatTags.benchmark. */
  players: Record<string, SimPlayer>;
}

/** Images are not in the text: count each like a low-detail image. */
const IMAGE_TOKENS = 85;

export class SimChatModel implements ChatModel {
  readonly label = 'sim';
  readonly simulated = true;

  constructor(private readonly opts: SimChatOptions) {}

  /** The per-call generator: a function of the seed and the request content only. */
  rngFor(req: ChatRequest): Rng {
    const t = req.tags;
    const hintIds = (req.memoryHints ?? []).map((h) => h.id).join(',');
    const messagesHash = hash32(JSON.stringify(req.messages));
    return Rng.derive(
      this.opts.seed,
      'sim',
      t.benchmark,
      t.taskId,
      t.epoch,
      t.phase,
      t.role,
      t.purpose ?? '',
      t.turn ?? '',
      hintIds,
      messagesHash,
    );
  }

  async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    signal?.throwIfAborted();
    const rng = this.rngFor(req);
    let text: string;
    if (req.tags.role === 'memory') {
      text = memoryReply(req, rng);
    } else {
      const player = this.opts.players[req.tags.benchmark];
      if (!player) {
        const known = Object.keys(this.opts.players);
        throw new UserError(
          `the sim model has no player for benchmark "${req.tags.benchmark}"` +
            (known.length ? ` (it has: ${known.join(', ')})` : ' (none registered)') +
            `; use a real provider for this benchmark or add a sim player.`,
        );
      }
      text = player.reply(req, rng, (r) => this.rngFor(r));
    }
    let promptChars = 0;
    let images = 0;
    for (const m of req.messages) {
      promptChars += messageText(m).length;
      if (typeof m.content !== 'string') images += m.content.filter((p) => p.type === 'image_url').length;
    }
    const promptTokens = estimateTokens(promptChars) + images * IMAGE_TOKENS;
    const completionTokens = estimateTokens(text.length);
    return {
      text,
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
      model: 'sim',
      latencyMs: 0,
    };
  }
}
