/**
 * A loopback HTTP server that plays the data sources of memrl's manifest: each file of
 * ../shared/data under its source URL's path (memrl is pointed at it with
 * MEMRL_DATA_BASE_URL). BigCodeBench's tasks are served as the hub serves them, a
 * Parquet file of the release's rows, written here from the mirror's JSON lines; HLE
 * (gated) is our fixture behind a token, answering 401 without one as the hub does.
 * Range requests are honoured (206). Faults are set per path: a connection cut after
 * half the bytes (once), a 503 (once), a stall after half, a flipped byte, a 404.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { datasetsOf } from '../../src/app/run-data.js';
import { builtinRegistry } from '../../src/app/registry.js';
import type { DataFile, DatasetSpec } from '../../src/data/manifest.js';
import { sharedDataDir } from '../../src/util/paths.js';

export const HLE_TOKEN = 'hf_loopback_test_token_123';

export interface Served {
  method: string;
  path: string;
  range?: string;
  auth: boolean;
}

export type Fault = 'cut-once' | 'busy-once' | 'stall' | 'corrupt' | 'missing';

export interface DataServer {
  url: string;
  requests: Served[];
  /** Set a fault on the file at this manifest path (e.g. 'llb/db_val.json'). */
  fault(manifestPath: string, fault: Fault | null): void;
  /** The bytes served for a manifest path. */
  bytesOf(manifestPath: string): Buffer;
  /** Serve these bytes at this URL path too (a plug-in's file). */
  serve(urlPath: string, body: Buffer): void;
  close(): Promise<void>;
}

export const SPECS: readonly DatasetSpec[] = datasetsOf(builtinRegistry());

export function specNamed(name: string): DatasetSpec {
  return SPECS.find((s) => s.name === name)!;
}

/** The hub's form of the release: one row per JSON line, the manifest's columns, as strings. */
export function hubParquet(jsonLines: string, columns: readonly string[]): Buffer {
  const rows = jsonLines
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, string>);
  const buf = parquetWriteBuffer({
    codec: 'SNAPPY',
    columnData: columns.map((name) => ({ name, data: rows.map((r) => r[name]!) })),
    schema: [{ name: 'root', num_children: columns.length }, ...columns.map((name) => ({ name, type: 'BYTE_ARRAY' as const, converted_type: 'UTF8' as const, repetition_type: 'REQUIRED' as const }))],
  });
  return Buffer.from(buf);
}

function content(file: DataFile): Buffer {
  if (file.path.startsWith('hle/')) return readFileSync(join('test', 'fixtures', 'hle', 'hle_snappy.parquet'));
  const mirror = readFileSync(join(sharedDataDir(), file.path));
  if (file.from) return hubParquet(gunzipSync(mirror).toString('utf8'), file.from.columns);
  return mirror;
}

export async function startDataServer(): Promise<DataServer> {
  const byUrlPath = new Map<string, { file: DataFile; gated: boolean }>();
  for (const spec of SPECS) for (const file of spec.files) byUrlPath.set(new URL(file.url).pathname, { file, gated: spec.gated !== undefined });
  const bodies = new Map<string, Buffer>();
  const bodyOf = (file: DataFile): Buffer => bodies.get(file.path) ?? bodies.set(file.path, content(file)).get(file.path)!;
  const faults = new Map<string, Fault>();
  const requests: Served[] = [];
  const sockets = new Set<import('node:net').Socket>();

  const extra = new Map<string, Buffer>();

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push({ method: req.method ?? 'GET', path, ...(req.headers.range ? { range: req.headers.range } : {}), auth: req.headers.authorization !== undefined });
    if (extra.has(path)) {
      res.writeHead(200, { 'content-length': String(extra.get(path)!.length) }).end(extra.get(path));
      return;
    }
    const entry = byUrlPath.get(path);
    const fault = entry ? faults.get(entry.file.path) : undefined;
    if (!entry || fault === 'missing') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Entry not found');
      return;
    }
    if (fault === 'busy-once') {
      faults.delete(entry.file.path);
      res.writeHead(503, { 'retry-after': '0' }).end('busy');
      return;
    }
    if (entry.gated && req.headers.authorization !== `Bearer ${HLE_TOKEN}`) {
      res.writeHead(req.headers.authorization ? 403 : 401, { 'x-error-code': 'GatedRepo' }).end('Access to this dataset is restricted');
      return;
    }
    let body = bodyOf(entry.file);
    if (fault === 'corrupt') {
      body = Buffer.from(body);
      const i = Math.floor(body.length / 2);
      body[i] = body[i]! ^ 0x01;
    }
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    if (start >= body.length && m) {
      res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
      return;
    }
    const part = body.subarray(start);
    res.writeHead(m ? 206 : 200, {
      'content-length': String(part.length),
      'accept-ranges': 'bytes',
      ...(m ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
    });
    if (fault === 'cut-once' || fault === 'stall') {
      const half = Math.floor(part.length / 2);
      if (fault === 'cut-once') faults.delete(entry.file.path);
      // Half the bytes, then the connection dies (cut) or stays silent (stall: a pull to kill).
      res.write(part.subarray(0, half), () => {
        if (fault === 'cut-once') setTimeout(() => req.socket.destroy(), 50);
      });
      return;
    }
    res.end(part);
  };

  const server: Server = createServer(handle);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    fault: (p, f) => (f ? faults.set(p, f) : faults.delete(p)),
    serve: (p, body) => extra.set(p, body),
    bytesOf: (p) => {
      for (const { file } of byUrlPath.values()) if (file.path === p) return bodyOf(file);
      throw new Error(`no file ${p}`);
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
