/**
 * LLB db on a server container (`--evaluator docker`): one MySQL-compatible server
 * per run (the official mysql:8, or memrl/llb-db-mariadb built from
 * docker/llb-db-mariadb.Dockerfile), no network. The harness talks to it by
 * exec'ing the image's own `mysql` client inside the container over the server's
 * unix socket, so no port is published; the per-task databases and users are the
 * shared SqlServer's, exactly as on the local server.
 */
import { randomBytes } from 'node:crypto';
import { PassThrough, type Duplex } from 'node:stream';
import { Box, ContainerGoneError, type BoxSpec } from '../../container/box.js';
import type { ContainerBackend } from '../../container/backend.js';
import type { ImageFacts } from '../../container/image.js';
import { clientArgs, SqlServer, SqlTransportError, type ClientRequest, type ClientRun, type SqlTransport } from './mariadb.js';

const MiB = 1024 * 1024;
const READY_TIMEOUT_MS = 180_000;
/** Servers started after the first one died under the run (killed from outside, engine restarted). */
const MAX_RESTARTS = 3;
/** Client sessions per server: statements of different tasks run side by side. */
const MAX_SESSIONS = 8;
/** Bytes of a result kept (the rest of a runaway result set is dropped inside the container). */
const MAX_OUTPUT_BYTES = 16 * MiB;

/**
 * A client session: one long-lived exec of this bash loop in the server container,
 * which runs the image's `mysql` client once per request. An exec costs the engine
 * far more than the client's own start (100+ ms against a few ms), and a task needs
 * several statements. Request: a line `user database password length` ('-' for
 * none) and then `length` bytes of SQL; reply: a line `status out-length
 * err-length` and then the client's stdout and stderr. The loop ends when its
 * stdin closes.
 */
const SESSION_LOOP = `
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
while IFS=' ' read -r user db pw len; do
  head -c "$len" > "$d/in"
  args=(--protocol=socket -u "$user" --batch --raw --default-character-set=utf8mb4)
  [ "$db" != - ] && args+=(-D "$db")
  if [ "$pw" != - ]; then export MYSQL_PWD="$pw"; else unset MYSQL_PWD; fi
  mysql "\${args[@]}" < "$d/in" > "$d/out" 2> "$d/err"
  rc=$?
  o=$(wc -c < "$d/out"); [ "$o" -gt ${MAX_OUTPUT_BYTES} ] && o=${MAX_OUTPUT_BYTES}
  e=$(wc -c < "$d/err"); [ "$e" -gt 65536 ] && e=65536
  printf '%s %s %s\n' "$rc" "$o" "$e"
  head -c "$o" "$d/out"; head -c "$e" "$d/err"
done
`;

class SessionEnded extends Error {}

class ClientSession {
  /** Reply bytes not consumed yet, as received (joined only when a whole reply is there). */
  private chunks: Buffer[] = [];
  private have = 0;
  /** The current reply's header, once its line is complete. */
  private header: { code: number; outLen: number; errLen: number; skip: number } | null = null;
  private waiting: { resolve: (r: ClientRun) => void; reject: (e: Error) => void } | null = null;
  ended = false;

  private constructor(private readonly stream: Duplex) {}

  static async open(box: Box): Promise<ClientSession> {
    const exec = await box.container.exec({ Cmd: ['bash', '-c', SESSION_LOOP], AttachStdin: true, AttachStdout: true, AttachStderr: true });
    const stream = (await exec.start({ hijack: true, stdin: true })) as Duplex;
    const session = new ClientSession(stream);
    const out = new PassThrough();
    box.engine.docker.modem.demuxStream(stream, out, new PassThrough().resume());
    out.on('data', (b: Buffer) => session.onData(b));
    const end = (): void => session.onEnd();
    stream.once('end', end);
    stream.once('close', end);
    stream.once('error', end);
    return session;
  }

  private onData(b: Buffer): void {
    this.chunks.push(b);
    this.have += b.length;
    if (!this.waiting) return;
    if (!this.header) {
      // The header line comes first and is short: only the first bytes are ever joined here.
      const head = Buffer.concat(this.chunks).subarray(0, 200);
      const nl = head.indexOf(10);
      if (nl < 0) {
        if (head.length >= 200) this.fail(new SessionEnded(`garbled reply from the client session: ${head.toString('utf8')}`));
        return;
      }
      const m = /^(\d+) (\d+) (\d+)$/.exec(head.subarray(0, nl).toString('latin1'));
      if (!m) {
        this.fail(new SessionEnded(`garbled reply from the client session: ${head.subarray(0, nl).toString('utf8')}`));
        return;
      }
      this.header = { code: Number(m[1]), outLen: Number(m[2]), errLen: Number(m[3]), skip: nl + 1 };
    }
    const { code, outLen, errLen, skip } = this.header;
    if (this.have < skip + outLen + errLen) return;
    const all = Buffer.concat(this.chunks, this.have);
    const body = all.subarray(skip);
    const run: ClientRun = { code, stdout: body.subarray(0, outLen).toString('utf8'), stderr: body.subarray(outLen, outLen + errLen).toString('utf8'), killed: false };
    const rest = Buffer.from(body.subarray(outLen + errLen));
    this.chunks = rest.length ? [rest] : [];
    this.have = rest.length;
    this.header = null;
    const w = this.waiting;
    this.waiting = null;
    w.resolve(run);
  }

  private onEnd(): void {
    this.fail(new SessionEnded('the client session ended'));
  }

  private fail(err: Error): void {
    this.ended = true;
    const w = this.waiting;
    this.waiting = null;
    w?.reject(err);
    this.stream.destroy();
  }

  /** One client run; at the backstop the session is dropped and the run reported as killed. */
  run(req: ClientRequest): Promise<ClientRun> {
    if (this.ended) return Promise.reject(new SessionEnded('the client session ended'));
    const input = Buffer.from(req.input, 'utf8');
    // Our names and passwords are [A-Za-z0-9_]; anything else cannot go on the header line.
    for (const field of [req.user, req.database ?? '-', req.password ?? '-']) {
      if (!/^[A-Za-z0-9_-]+$/.test(field)) return Promise.reject(new SqlTransportError(`cannot pass '${field}' to the client session`));
    }
    return new Promise<ClientRun>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        this.fail(new SessionEnded('backstop'));
        resolve({ code: null, stdout: '', stderr: '', killed: true });
      }, req.backstopMs);
      this.waiting = {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.stream.write(`${req.user} ${req.database ?? '-'} ${req.password ?? '-'} ${input.length}\n`);
      this.stream.write(input);
    });
  }

  close(): void {
    this.ended = true;
    this.stream.end();
    this.stream.destroy();
  }
}

/**
 * The client inside the server container, through a pool of sessions; a vanished
 * container is a SqlTransportError (the statements in flight fail as evaluator
 * errors) and the next statement starts a fresh server, up to MAX_RESTARTS times.
 */
class ContainerTransport implements SqlTransport {
  private dead = false;
  private restarting: Promise<void> | null = null;
  private idle: ClientSession[] = [];
  private open = 0;
  private queue: (() => void)[] = [];
  restarts = 0;
  closed = false;

  constructor(
    public box: Box,
    private readonly image: string,
    private readonly startBox: () => Promise<Box>,
  ) {}

  get label(): string {
    return `container ${this.box.shortId} (${this.image})`;
  }

  private async revive(): Promise<void> {
    if (this.restarts >= MAX_RESTARTS) throw new SqlTransportError(`the SQL server container died ${this.restarts + 1} times; not restarting it again`);
    this.restarting ??= (async () => {
      this.restarts++;
      this.dropSessions();
      await this.box.remove();
      const box = await this.startBox();
      if (this.closed) {
        await box.remove();
        throw new SqlTransportError('the SQL server was closed');
      }
      this.box = box;
      this.dead = false;
    })().finally(() => (this.restarting = null));
    await this.restarting;
  }

  private async acquire(): Promise<ClientSession> {
    for (;;) {
      const s = this.idle.pop();
      if (s && !s.ended) return s;
      if (s) {
        this.open--;
        continue;
      }
      if (this.open < MAX_SESSIONS) {
        this.open++;
        try {
          return await ClientSession.open(this.box);
        } catch (err) {
          this.open--;
          throw err;
        }
      }
      await new Promise<void>((r) => this.queue.push(r));
    }
  }

  private release(s: ClientSession): void {
    if (s.ended) this.open--;
    else this.idle.push(s);
    this.queue.shift()?.();
  }

  dropSessions(): void {
    for (const s of this.idle) s.close();
    this.open -= this.idle.length;
    this.idle = [];
  }

  async run(req: ClientRequest): Promise<ClientRun> {
    if (this.dead) {
      try {
        await this.revive();
      } catch (err) {
        throw err instanceof SqlTransportError ? err : new SqlTransportError(`cannot restart the SQL server container: ${(err as Error).message}`);
      }
    }
    const box = this.box;
    let session: ClientSession | undefined;
    try {
      session = await this.acquire();
      return await session.run(req);
    } catch (err) {
      if (err instanceof SqlTransportError) throw err;
      const state = await box.state();
      if (!state.running) {
        if (box === this.box) this.dead = true;
        throw new SqlTransportError(new ContainerGoneError(box.id, state.detail).message);
      }
      throw new SqlTransportError(`SQL server container ${box.shortId}: ${(err as Error).message}`);
    } finally {
      if (session) this.release(session);
    }
  }
}

export interface ContainerSqlServer {
  server: SqlServer;
  image: ImageFacts;
  /** The server container now (a new one after a restart). */
  box(): Box;
  /** How many times the server was restarted after dying. */
  restarts(): number;
  /** Removes the server container (and with it every task database). Idempotent. */
  close(): Promise<void>;
}

export function sqlServerSpec(image: string, backend: ContainerBackend, rootPassword: string): BoxSpec {
  return {
    image,
    role: 'llb-db',
    // mysql:8 sets root's password from this; the MariaDB image ignores it (root logs in by unix_socket).
    env: { MYSQL_ROOT_PASSWORD: rootPassword },
    network: false,
    memoryBytes: backend.settings.memoryMb * MiB,
    pids: backend.settings.pids,
    // The entrypoints start as root, chown the data directory and drop to the mysql user.
    capAdd: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID'],
    // The server writes its data directory and socket under the image's own paths.
    readOnlyRoot: false,
    tmpfs: { '/tmp': 256 * MiB },
  };
}

/**
 * Starts the server container and waits until the final server answers. mysql:8's
 * entrypoint first runs a temporary server (socket only, --skip-networking) to set
 * up root, then restarts: the server is ready when 127.0.0.1:3306 inside answers
 * (even an access-denied answer counts), and then the admin login over the socket works.
 */
export async function startContainerSqlServer(backend: ContainerBackend, image: string): Promise<ContainerSqlServer> {
  const facts = await backend.image(image);
  const rootPassword = randomBytes(16).toString('hex');
  const startBox = async (): Promise<Box> => {
    const box = await Box.start(backend.engine, sqlServerSpec(image, backend, rootPassword));
    try {
      await waitForTcp(box);
      return box;
    } catch (err) {
      await box.remove();
      throw err;
    }
  };
  const transport = new ContainerTransport(await startBox(), image, startBox);
  const close = async (): Promise<void> => {
    transport.closed = true;
    transport.dropSessions();
    await transport.box.remove();
  };
  try {
    const server = new SqlServer(transport, { user: 'root', password: rootPassword }, `the server container from ${image} did not come up`);
    const up = await server.probe();
    if (!up.ok) throw new Error(up.reason);
    return { server, image: facts, box: () => transport.box, restarts: () => transport.restarts, close };
  } catch (err) {
    await close();
    throw err;
  }
}

async function waitForTcp(box: Box): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    const state = await box.state();
    if (!state.running) throw new Error(`the SQL server container ${box.shortId} stopped while starting (${state.detail})${await logTail(box)}`);
    const r = await box.exec(['mysql', '--protocol=tcp', '-h', '127.0.0.1', '-P', '3306', '-u', 'memrl_probe', '--connect-timeout=2', '-e', 'SELECT 1'], {
      env: { MYSQL_PWD: 'x' },
      timeoutMs: 10_000,
    });
    // 0, or the server's own refusal (ERROR 1045/1698 access denied): a server answers over TCP.
    if (r.exitCode === 0 || /ERROR (1045|1698|1130)\b/.test(r.stderr)) return;
    last = r.stderr.trim().split('\n').at(-1) ?? '';
    await new Promise((res) => setTimeout(res, 500));
  }
  throw new Error(`the SQL server container ${box.shortId} did not answer within ${READY_TIMEOUT_MS / 1000} s (${last})${await logTail(box)}`);
}

async function logTail(box: Box): Promise<string> {
  try {
    const buf = (await box.container.logs({ stdout: true, stderr: true, tail: 5 })) as unknown as Buffer;
    // Multiplexed frames: drop the 8-byte headers roughly by keeping printable text.
    const text = buf.toString('utf8').replace(/[\x00-\x08\x0e-\x1f]/g, '').trim();
    return text ? `; its last log lines: ${text.slice(-500)}` : '';
  } catch {
    return '';
  }
}

export { SqlTransportError };
