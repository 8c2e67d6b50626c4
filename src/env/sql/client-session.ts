/**
 * A client session in a SQL server container: one long-lived exec running the
 * image's own `mysql` client once per request, over the server's unix socket.
 */
import { PassThrough, type Duplex } from 'node:stream';
import type { Box } from '../container/box.js';
import { SQL_MAX_ERROR_BYTES, SQL_MAX_RESULT_BYTES } from '../limits.js';
import type { ClientRequest, ClientRun } from './contract.js';
import { SqlTransportError } from './faults.js';

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
  o=$(wc -c < "$d/out"); [ "$o" -gt ${SQL_MAX_RESULT_BYTES} ] && o=${SQL_MAX_RESULT_BYTES}
  e=$(wc -c < "$d/err"); [ "$e" -gt ${SQL_MAX_ERROR_BYTES} ] && e=${SQL_MAX_ERROR_BYTES}
  printf '%s %s %s\n' "$rc" "$o" "$e"
  head -c "$o" "$d/out"; head -c "$e" "$d/err"
done
`;

/** The session's exec stream ended (or was dropped at a backstop): the next request takes another session. */
export class SessionEnded extends Error {}

export class ClientSession {
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
