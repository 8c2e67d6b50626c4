/**
 * Before a run starts: can memrl reach the model endpoints it is about to use? A name
 * that does not resolve, a closed port or a failing TLS handshake stops the command at
 * once, with one line naming the config key and the URL, instead of every episode
 * retrying into an `error` row. It costs no tokens: only DNS, TCP and TLS.
 */
import { lookup } from 'node:dns/promises';
import { closeSync, existsSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { redactUrlCredentials } from '../llm/redact.js';
import { UserError, errorMessage } from '../util/errors.js';
import { fsCause, fsError, netCause } from '../util/fs-errors.js';

const TIMEOUT_MS = 10_000;

export interface Endpoint {
  /** The config key naming it, e.g. 'llm.base_url'. */
  key: string;
  url: string;
}

/** One line on the first endpoint that cannot be reached; nothing when all can. */
export async function checkEndpoints(endpoints: readonly Endpoint[]): Promise<void> {
  const seen = new Set<string>();
  for (const e of endpoints) {
    if (seen.has(e.url)) continue;
    seen.add(e.url);
    const problem = await reachability(e.url);
    if (problem) throw new UserError(`${e.key} ${redactUrlCredentials(e.url)}: ${problem}; check the URL and that the server is up (or run offline with provider sim / local)`, 'endpoint_unreachable');
  }
}

async function reachability(raw: string): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `unsupported scheme ${url.protocol} (use http:// or https://)`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  try {
    await lookup(host);
  } catch (err) {
    return `the host ${host} does not resolve (${netCause(err)})`;
  }
  return new Promise((done) => {
    let settled = false;
    const finish = (problem: string | undefined, socket?: Socket): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.destroy();
      done(problem);
    };
    const timer = setTimeout(() => finish(`no answer from ${host}:${port} within ${TIMEOUT_MS / 1000} s`, socket), TIMEOUT_MS);
    const socket: Socket =
      url.protocol === 'https:'
        ? tlsConnect({ host, port, servername: /^[\d.:]+$/.test(host) ? undefined : host }, () => finish(undefined, socket))
        : tcpConnect({ host, port }, () => finish(undefined, socket));
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const why = netCause(err);
      finish(`${url.protocol === 'https:' ? 'cannot connect over TLS' : 'cannot connect'} to ${host}:${port} (${why})`, socket);
    });
  });
}

/**
 * A folder memrl will write into (made if missing): its nearest existing ancestor must
 * be a writable folder. Checked before anything is written, so a read-only results
 * folder is one line, not a raw EACCES halfway through.
 */
export function checkWritableFolder(dir: string, what: string): void {
  // A name over 255 bytes, or a path over 4095, fails every write there (ENAMETOOLONG).
  if (resolve(dir).split(sep).some((part) => Buffer.byteLength(part) > 255) || Buffer.byteLength(resolve(dir)) > 4095) {
    throw fsError(Object.assign(new Error('name too long'), { code: 'ENAMETOOLONG', syscall: 'mkdir' }), { what, path: dir }) as UserError;
  }
  let probe = dir;
  while (!existsSync(probe)) {
    const up = dirname(probe);
    if (up === probe) break;
    probe = up;
  }
  if (!statSync(probe).isDirectory()) throw new UserError(`${what} ${dir}: ${probe} is a file, not a folder; choose another path`, 'folder_unwritable');
  // Creating a file is the only honest test (root passes access() checks on read-only places).
  const test = join(probe, `.memrl-write-test-${process.pid}`);
  try {
    closeSync(openSync(test, 'wx'));
    rmSync(test, { force: true });
  } catch (err) {
    throw new UserError(`${what} ${dir}: cannot write into ${probe} (${fsCause(err) ?? errorMessage(err)}); choose a folder you can write to`, 'folder_unwritable');
  }
}
