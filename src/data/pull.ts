/**
 * `memrl data pull`: every file of a dataset into the cache, from its source URL or from
 * a mirror folder (`--from`), each checked against the manifest before it takes its
 * name. A file arrives as `<name>.part` (a download, kept by a killed pull so the next
 * one resumes it) or `<name>.tmp-<pid>` (a copy, a conversion); only a copy whose
 * checksum matches is renamed into place, so a present file is always the release.
 * Any failure is one line naming the file, the URL (or mirror) and what to do, and
 * removes what the attempt wrote.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { UserError, errorMessage } from '../util/errors.js';
import { writeFileAtomic } from '../util/fs.js';
import { FileLock } from '../util/lock.js';
import { isGzipPath } from './checksum.js';
import { DataFetchError, download } from './download.js';
import { cachePath, cacheRoot } from './locations.js';
import type { DataFile, DatasetSpec } from './manifest.js';
import { parquetToJsonLines } from './normalise.js';
import { progressBar } from './progress.js';
import { checkCopy, recordChecksum } from './verify.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface PullOptions {
  /** A mirror folder laid out like the cache: copy from it instead of downloading. */
  from?: string;
  env?: Env;
  signal?: AbortSignal;
  /** Progress bars and one line per file go here. */
  err(text: string): void;
  tty: boolean;
}

export interface PulledFile {
  path: string;
  action: 'present' | 'copied' | 'downloaded';
  sha256: string;
  pinned: boolean;
}

/** HF_HUB_OFFLINE=1 (the hub libraries' switch) or MEMRL_OFFLINE=1: no request leaves this process. */
export function offlineSwitch(env: Env): string | null {
  for (const name of ['MEMRL_OFFLINE', 'HF_HUB_OFFLINE']) if (/^(1|true|yes|on)$/i.test(env[name] ?? '')) return name;
  return null;
}

/**
 * Where a file is fetched from. MEMRL_DATA_BASE_URL puts another origin in front of the
 * manifest's paths: the tests' loopback server, never a setting for users.
 */
export function fetchUrl(url: string, env: Env): string {
  const base = env.MEMRL_DATA_BASE_URL;
  if (!base) return url;
  const u = new URL(url);
  return `${base.replace(/\/+$/, '')}${u.pathname}${u.search}`;
}

/** HF_TOKEN goes to the hub only (its CDN redirects drop it), never to another host. */
function tokenFor(url: string, env: Env): string | null {
  return new URL(url).hostname === 'huggingface.co' ? env.HF_TOKEN || null : null;
}

/** The one line for a failed download. */
function fetchFailure(spec: DatasetSpec, file: DataFile, source: string, err: DataFetchError, env: Env): UserError {
  const head = `data pull ${spec.name}: ${file.path} from ${source}`;
  const mirror = `or copy it from a mirror with memrl data pull ${spec.name} --from <dir>`;
  switch (err.failure) {
    case 'not_found':
      return new UserError(`${head}: not found (HTTP 404); the release moved: report it to memrl's maintainers, ${mirror}`, 'data_not_found');
    case 'refused':
      if (spec.gated) {
        const token = env.HF_TOKEN ? 'HF_TOKEN is set but its account has not accepted them' : 'HF_TOKEN is not set';
        return new UserError(
          `${head}: refused (HTTP ${err.status}): ${spec.title} is gated: accept its terms at ${spec.gated} while logged in to Hugging Face, then set HF_TOKEN to a read token of that account (https://huggingface.co/settings/tokens); ${token}`,
          'data_gated',
        );
      }
      return new UserError(`${head}: refused (HTTP ${err.status}); set HF_TOKEN if the file needs a Hugging Face login, ${mirror}`, 'data_refused');
    case 'unreachable':
    case 'cut':
      return new UserError(`${head}: cannot download it (${err.detail}); check the network (and HTTPS_PROXY / NO_PROXY behind a proxy), then run the command again, ${mirror}`, 'data_unreachable');
    case 'disk':
      return new UserError(`${head}: the disk is full (${err.detail}) writing into ${cacheRoot(env).dir}; free some space or point MEMRL_DATA_DIR at a larger disk, then run the command again`, 'data_disk_full');
    case 'http':
      return new UserError(`${head}: the server answered ${err.detail}; try again later, ${mirror}`, 'data_http');
  }
}

function removeQuietly(...paths: string[]): void {
  for (const p of paths) rmSync(p, { force: true });
}

/** A download that should be Parquet and is not (an HTML error page, a truncated file) fails here, before it is kept. */
function checkReadable(file: DataFile, path: string, label: string): void {
  if (!(file.from?.format === 'parquet' || file.path.endsWith('.parquet'))) return;
  const bytes = readFileSync(path);
  try {
    parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  } catch (err) {
    throw new UserError(`${label}: what arrived is not a readable Parquet file (${errorMessage(err)}); nothing of it was kept: run the command again`, 'data_unreadable');
  }
}

/** Fetches (or copies) one file into `tmp`, converted to the form memrl reads. */
async function fetchInto(spec: DatasetSpec, file: DataFile, target: string, tmp: string, opts: PullOptions, env: Env): Promise<'copied' | 'downloaded'> {
  if (opts.from) {
    const src = join(opts.from, file.path);
    if (!existsSync(src)) {
      throw new UserError(`data pull ${spec.name} --from ${opts.from}: ${file.path} is not there; a mirror is laid out like the cache (${join(opts.from, file.path)})`, 'data_not_in_mirror');
    }
    copyFileSync(src, tmp);
    chmodSync(tmp, 0o644); // a mirror's files may be read-only; the cache's are the user's
    return 'copied';
  }
  const off = offlineSwitch(env);
  if (off) {
    throw new UserError(`data pull ${spec.name}: ${file.path} is not in the cache and ${off}=${env[off]} forbids downloading it from ${file.url}; copy it from a mirror with --from <dir>, or unset ${off}`, 'data_offline');
  }
  const part = `${target}.part`;
  const bar = progressBar(`${spec.name}: ${file.path}`, opts.tty);
  try {
    const url = fetchUrl(file.url, env);
    await download({ url, token: tokenFor(file.url, env), dest: part, onProgress: (d, t) => bar.update(d, t), ...(opts.signal ? { signal: opts.signal } : {}) });
  } finally {
    bar.stop();
  }
  checkReadable(file, part, `data pull ${spec.name}: ${file.path} from ${file.url}`);
  if (file.from) {
    writeFileAtomic(tmp, await parquetToJsonLines(part, file.from, isGzipPath(target), `data pull ${spec.name}: ${file.path} from ${file.url}`));
    removeQuietly(part);
  } else {
    renameSync(part, tmp);
  }
  return 'downloaded';
}

async function pullFile(spec: DatasetSpec, file: DataFile, opts: PullOptions, env: Env): Promise<PulledFile> {
  const target = cachePath(file, env);
  if (existsSync(target)) {
    const have = await checkCopy(file, target);
    if (have.status === 'present' || have.status === 'unpinned') return { path: target, action: 'present', sha256: have.actual!.sha256, pinned: file.sha256 !== null };
    opts.err(`${spec.name}: ${file.path} in the cache is not the release (sha256 ${have.actual!.sha256.slice(0, 12)}…); fetching it again\n`);
  }
  mkdirSync(dirname(target), { recursive: true });
  const tmp = `${target}.tmp-${process.pid}`;
  const source = opts.from ? join(opts.from, file.path) : file.url;
  try {
    const action = await fetchInto(spec, file, target, tmp, opts, env);
    const got = await checkCopy(file, tmp);
    if (got.status === 'corrupt') {
      throw new UserError(
        `data pull ${spec.name}: ${file.path} from ${source} has sha256 ${got.actual!.sha256}, not the release's ${got.expected}; nothing of it was kept: ` +
          (opts.from ? 'the mirror holds another file: replace it with a verified copy' : 'the download was damaged or the source changed: run the command again, or copy a verified file with --from <dir>'),
        'data_checksum',
      );
    }
    // A file no checksum pins (a gated set): its checksum is recorded beside it, and checked from then on.
    if (file.sha256 === null) recordChecksum(target, got.actual!.sha256);
    renameSync(tmp, target);
    return { path: target, action, sha256: got.actual!.sha256, pinned: file.sha256 !== null };
  } catch (err) {
    // A cancelled pull keeps its .part for the next one to resume; any failure leaves nothing.
    removeQuietly(tmp, ...(opts.signal?.aborted ? [] : [`${target}.part`]));
    const code = (err as { code?: unknown }).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') throw fetchFailure(spec, file, source, new DataFetchError('disk', code), env);
    if (err instanceof DataFetchError) throw fetchFailure(spec, file, source, err, env);
    // A system error on this machine (permissions, a read-only cache): one line; anything else is memrl's fault.
    if (typeof code === 'string' && !(err instanceof UserError)) throw new UserError(`data pull ${spec.name}: ${file.path} from ${source}: ${errorMessage(err)}`, 'data_pull_failed');
    throw err;
  }
}

/** Pulls every file of `spec` into the cache; resolves with what happened to each. */
export async function pullDataset(spec: DatasetSpec, opts: PullOptions): Promise<PulledFile[]> {
  const env = opts.env ?? process.env;
  const root = cacheRoot(env).dir;
  mkdirSync(root, { recursive: true });
  const lock = FileLock.acquire(join(root, `.pull-${spec.name}.lock`), `memrl data pull ${spec.name}`, `the ${spec.name} data in ${root}`);
  const done: PulledFile[] = [];
  try {
    for (const file of spec.files) {
      const started = Date.now();
      const got = await pullFile(spec, file, opts, env);
      done.push(got);
      const how = got.action === 'present' ? 'already in the cache' : got.action === 'copied' ? `copied from ${opts.from}` : `downloaded from ${file.url}`;
      const check = got.pinned ? 'sha256 matches the release' : `sha256 ${got.sha256} recorded (memrl's manifest cannot pin this gated file)`;
      const secs = got.action === 'present' ? '' : ` in ${((Date.now() - started) / 1000).toFixed(1)} s`;
      opts.err(`${spec.name}: ${file.path} ${how}${secs}; ${check}\n`);
    }
  } finally {
    lock.release();
  }
  return done;
}
