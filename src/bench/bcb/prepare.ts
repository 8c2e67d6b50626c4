/**
 * The harness's first two steps alone, outside any sandbox: the syntax check (a
 * SYNTAX_ERROR never runs) and, when asked, BigCodeBench's sanitizer. Both only parse
 * the code, so plain python3 is safe here; `memrl fidelity` uses this to compare them
 * with the reference's recorded gate.
 *
 * One long-lived interpreter per python serves every call (python/prepare_server.py,
 * running the harness's own `gate`): a fidelity check asks once per vector and switch,
 * and a fresh interpreter each time cost ~0.5 s of blocked event loop on slow machines.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { asset } from '../../util/paths.js';
import { harnessPath } from './evaluate.js';

export interface PreparedCode {
  /** What the tests would run against (sanitized when asked and the code compiles). */
  code: string;
  syntaxOk: boolean;
}

interface Reply {
  id: number;
  code?: string;
  syntax_error?: string | null;
  error?: string;
}

interface Waiting {
  resolve(r: PreparedCode): void;
  reject(e: Error): void;
}

class PrepareServer {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private stdout = '';
  private stderr = '';
  private failure: Error | null = null;

  constructor(
    private readonly python: string,
    private readonly onGone: () => void,
  ) {
    this.child = spawn(python, [asset('src', 'bench', 'bcb', 'python', 'prepare_server.py'), harnessPath()], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => this.read(chunk));
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-4000)));
    this.child.stdin.on('error', () => {}); // a dead server shows as 'exit'/'error' below
    this.child.on('error', (err) => this.fail(new Error(`cannot run ${this.python} for the BigCodeBench syntax check: ${err.message}`)));
    this.child.on('exit', (code, signal) => {
      const last = this.stderr.trim().split('\n').at(-1) ?? '';
      this.fail(new Error(`the BigCodeBench syntax check (${this.python}) ended (${signal ?? `exit ${code}`})${last ? `: ${last}` : ''}`));
    });
    this.idle(true);
  }

  prepare(code: string, sanitize: string | null): Promise<PreparedCode> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const reply = new Promise<PreparedCode>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.idle(false);
    this.child.stdin.write(JSON.stringify({ id, code, sanitize }) + '\n');
    return reply;
  }

  private read(chunk: string): void {
    this.stdout += chunk;
    let nl: number;
    while ((nl = this.stdout.indexOf('\n')) !== -1) {
      const line = this.stdout.slice(0, nl);
      this.stdout = this.stdout.slice(nl + 1);
      let reply: Reply;
      try {
        reply = JSON.parse(line) as Reply;
      } catch {
        this.fail(new Error(`the BigCodeBench syntax check (${this.python}) wrote something other than its replies: ${line.slice(0, 200)}`));
        this.child.kill();
        return;
      }
      const w = this.waiting.get(reply.id);
      if (!w) continue;
      this.waiting.delete(reply.id);
      if (reply.error !== undefined) w.reject(new Error(`the BigCodeBench syntax check failed: ${reply.error}`));
      else w.resolve({ code: reply.code ?? '', syntaxOk: reply.syntax_error == null });
    }
    if (this.waiting.size === 0) this.idle(true);
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    this.onGone();
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
    this.idle(true);
  }

  /** An idle server must not keep memrl running; a busy one must (its reply is awaited). */
  private idle(yes: boolean): void {
    const handles = [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as unknown as { ref(): void; unref(): void }[];
    for (const handle of handles) {
      if (yes) handle.unref();
      else handle.ref();
    }
  }
}

const servers = new Map<string, PrepareServer>();

export function prepareBcbCode(code: string, opts: { sanitize: boolean; entryPoint?: string; python?: string }): Promise<PreparedCode> {
  const python = opts.python ?? process.env.MEMRL_SANDBOX_PYTHON ?? 'python3';
  let server = servers.get(python);
  if (!server) {
    const made: PrepareServer = new PrepareServer(python, () => {
      if (servers.get(python) === made) servers.delete(python);
    });
    servers.set(python, (server = made));
  }
  return server.prepare(code, opts.sanitize ? (opts.entryPoint ?? 'task_func') : null);
}
