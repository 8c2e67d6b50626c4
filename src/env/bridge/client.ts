/**
 * The client side of a bridge, whatever the transport: requests are JSON lines
 * `{"id": n, ...}`, replies `{"id": n, "ok": true, ...}` or `{"id": n, "ok": false,
 * "error": "...", "code": "..."}`; other lines on stdout are noise. A request that
 * times out kills the bridge; a crashed, killed or flooding bridge fails its pending
 * requests with a BridgeFault and is restarted on the next request, first with its
 * `hello` request (the caller's handshake). The bridge's stderr goes to the log.
 */
import type { Logger } from 'pino';
import { BRIDGE_CLOSE_GRACE_MS, BRIDGE_MAX_LINE_BYTES } from '../limits.js';
import type { PeerMessage } from '../contract.js';
import type { BridgeProcess, BridgeTransport } from './contract.js';
import { BridgeFault, BridgeRequestError } from './faults.js';
import { readLines } from '../lines.js';

export interface BridgeClientOptions {
  /** Where bridges run (a promise: the registry opens backends lazily). */
  transport: BridgeTransport | Promise<BridgeTransport>;
  /** What the bridge is, for messages: e.g. 'the household bridge'. */
  label: string;
  /** Start of the log events' names, e.g. 'household_bridge' → household_bridge_timeout. */
  logEvent: string;
  /** Per-request timeout. */
  timeoutMs: number;
  /** The first request of every start (the caller's handshake); its reply goes to onHello. */
  hello?: { request: PeerMessage; timeoutMs: number };
  /** Longest line the bridge may send (default BRIDGE_MAX_LINE_BYTES). */
  maxLineBytes?: number;
  log?: Logger;
}

interface Pending {
  resolve(value: PeerMessage): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class BridgeClient {
  private proc: BridgeProcess | undefined;
  private ready: Promise<void> | undefined;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  /** Times the bridge was (re)started. */
  starts = 0;

  constructor(private readonly opts: BridgeClientOptions) {}

  /** The local child's pid (tests kill it to simulate a crash). */
  get pid(): number | undefined {
    const pid = this.proc?.where.pid;
    return typeof pid === 'number' ? pid : undefined;
  }

  /** The bridge container's id, with the docker transport. */
  get containerId(): string | undefined {
    const id = this.proc?.where.container;
    return typeof id === 'string' ? id : undefined;
  }

  /** Per-request timeout. */
  get timeoutMs(): number {
    return this.opts.timeoutMs;
  }

  /** The reply to the hello request of a (re)start; subclasses read what the bridge says about itself. */
  protected onHello(_reply: PeerMessage): void {}

  private event(what: string): string {
    return `${this.opts.logEvent}_${what}`;
  }

  private async start(): Promise<void> {
    this.starts += 1;
    const proc = await (await this.opts.transport).launch();
    this.proc = proc;
    const log = this.opts.log;
    const maxLine = this.opts.maxLineBytes ?? BRIDGE_MAX_LINE_BYTES;
    readLines(proc.stderr, maxLine, {
      line: (line) => log?.warn({ event: this.event('stderr'), ...proc.where, line }, 'bridge stderr'),
      overflow: (bytes) => log?.warn({ event: this.event('stderr'), ...proc.where, bytes }, 'bridge stderr line too long; dropped'),
    });
    readLines(proc.stdout, maxLine, {
      line: (line) => this.onLine(line),
      overflow: (bytes) => {
        log?.error({ event: this.event('flood'), ...proc.where, bytes }, 'bridge line too long; killed');
        this.detach(proc, new BridgeFault(`${this.opts.label} sent a line longer than ${maxLine} bytes; it was restarted`));
      },
    });
    proc.stdin.on('error', () => undefined); // reported through `exited` / the write callback
    void proc.exited.then((why) => {
      if (this.proc === proc && this.pending.size > 0) log?.error({ event: this.event('exit'), ...proc.where, why }, 'bridge died');
      this.detach(proc, new BridgeFault(`${this.opts.label} ${why}`));
    });
    const hello = this.opts.hello;
    if (hello) this.onHello(await this.send(hello.request, hello.timeoutMs));
  }

  private onLine(line: string): void {
    let msg: PeerMessage;
    try {
      msg = JSON.parse(line) as PeerMessage;
    } catch {
      this.opts.log?.warn({ event: this.event('noise'), line: line.slice(0, 1000) }, 'non-JSON line on bridge stdout');
      return;
    }
    const id = Number(msg?.id);
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (msg.ok === true) p.resolve(msg);
    else p.reject(new BridgeRequestError(String(msg.error ?? 'bridge error'), String(msg.code ?? 'bad_request')));
  }

  /** Forget a dead or hung process (the next request starts a new one) and fail what it owed. */
  private detach(proc: BridgeProcess, err: Error): void {
    if (this.proc !== proc) return;
    this.proc = undefined;
    this.ready = undefined;
    this.failAll(err);
    void proc.stop();
  }

  private failAll(err: Error): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(err);
    }
  }

  private send(msg: PeerMessage, timeoutMs: number): Promise<PeerMessage> {
    const proc = this.proc;
    if (!proc) return Promise.reject(new BridgeFault(`${this.opts.label} is not running`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.opts.log?.error({ event: this.event('timeout'), ...proc.where, cmd: msg.cmd, timeoutMs }, 'bridge hung; killed');
        reject(new BridgeFault(`${this.opts.label} did not answer "${String(msg.cmd)}" within ${Math.round(timeoutMs / 1000)} s; it was restarted`));
        this.detach(proc, new BridgeFault(`${this.opts.label} was killed after a timeout`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      proc.stdin.write(`${JSON.stringify({ id, ...msg })}\n`, (err) => {
        if (err) this.detach(proc, new BridgeFault(`cannot write to ${this.opts.label}: ${err.message}`));
      });
    });
  }

  /** Send one request, starting (or restarting) the bridge first if needed. */
  async request<R = PeerMessage>(msg: PeerMessage, timeoutMs = this.opts.timeoutMs): Promise<R> {
    const p = this.proc;
    if (p && !p.running) this.detach(p, new BridgeFault(`${this.opts.label} died`));
    if (!this.ready) this.ready = this.start();
    try {
      await this.ready;
    } catch (err) {
      this.kill();
      throw err;
    }
    return (await this.send(msg, timeoutMs)) as R;
  }

  /** Stops the bridge at once (the next request starts a new one). */
  kill(): void {
    const p = this.proc;
    this.ready = undefined;
    if (p) this.detach(p, new BridgeFault(`${this.opts.label} was stopped`));
  }

  /** Ask the bridge to exit ({"cmd": "close"}); stop it if it does not within a second. */
  async close(): Promise<void> {
    // A start in flight: let it settle so its process is not left behind.
    await this.ready?.catch(() => undefined);
    const proc = this.proc;
    if (!proc) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await this.send({ cmd: 'close' }, BRIDGE_CLOSE_GRACE_MS);
      await Promise.race([proc.exited, new Promise((r) => (timer = setTimeout(r, BRIDGE_CLOSE_GRACE_MS)))]);
    } catch {
      // stopped below
    } finally {
      clearTimeout(timer);
    }
    if (this.proc === proc) this.proc = undefined;
    this.ready = undefined;
    await proc.stop();
  }
}
