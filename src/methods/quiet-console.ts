/**
 * A library that prints to the console (mem0ai logs its failures as stack traces with
 * console.error) would break the run's one-line-per-event terminal. While `fn` runs,
 * what it prints through console.* is collected instead and handed to the caller (for
 * the run's log). Nested or overlapping captures share one patch.
 */
const METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;
type Method = (typeof METHODS)[number];

const sinks = new Set<string[]>();
let saved: Partial<Record<Method, (...args: unknown[]) => void>> | undefined;

function text(args: unknown[]): string {
  return args.map((a) => (a instanceof Error ? (a.stack ?? a.message) : typeof a === 'string' ? a : safeJson(a))).join(' ');
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/** `fn`'s result; what it printed to the console meanwhile goes to `printed` (also when it throws), never to the terminal. */
export async function capturingConsole<T>(fn: () => Promise<T>, printed: (lines: string[]) => void): Promise<T> {
  const lines: string[] = [];
  if (sinks.size === 0) {
    saved = {};
    for (const m of METHODS) {
      saved[m] = console[m];
      console[m] = (...args: unknown[]) => {
        const line = text(args);
        for (const sink of sinks) sink.push(line);
      };
    }
  }
  sinks.add(lines);
  try {
    return await fn();
  } finally {
    sinks.delete(lines);
    if (sinks.size === 0 && saved) {
      for (const m of METHODS) console[m] = saved[m] as (typeof console)[Method];
      saved = undefined;
    }
    if (lines.length > 0) printed(lines);
  }
}
