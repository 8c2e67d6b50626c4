/**
 * `memrl view`: a local web app over run folders. node:http on 127.0.0.1 only; the page
 * and its script are served from here (dist/view-app/app.js, built by `npm run build`)
 * and it fetches nothing from anywhere else, so no data leaves the machine.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessage, MemrlError, UserError } from '../util/errors.js';
import { ViewData } from './data.js';

/** dist/src/view/server.js → dist/view-app/app.js */
const APP_JS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'view-app', 'app.js');

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>memrl view</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#222}
header{padding:8px 16px;background:#1f2937;color:#fff}header a{color:#fff;text-decoration:none;font-weight:600}
main{padding:12px 16px;overflow-wrap:break-word}table{border-collapse:collapse}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f6f6f6}
pre{white-space:pre-wrap;overflow-wrap:anywhere}
.grid{height:70vh;overflow:auto;border:1px solid #ddd;position:relative}.gridrow{display:flex;position:absolute;left:0;right:0;height:22px}
.task{width:260px;flex:none;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-size:12px;padding:2px 6px}
.cell{width:34px;height:18px;margin:2px;flex:none;border-radius:3px;cursor:pointer;font-size:10px;color:#fff;text-align:center;line-height:18px}
.pass{background:#2e7d32}.fail{background:#c62828}.error{background:#6d4c41}.timeout{background:#b35000}.syntax_error{background:#ad1457}.runtime_error{background:#7b1fa2}.skipped{background:#616161}.none{background:#eee}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;margin:6px 0;font-size:12px}.legend span.swatch{display:inline-block;width:14px;height:14px;border-radius:3px;vertical-align:-2px;margin-right:4px}.legend .none{border:1px solid #ccc}
.chip{display:inline-block;border-radius:10px;padding:0 8px;margin:1px 4px 1px 0;font-size:12px;line-height:20px;text-decoration:none}a.chip:hover{text-decoration:underline}
a.chip,span.chip{color:#fff;font-weight:600}.chip.memory{background:#e8eaf6;color:#1a237e;font-weight:400}
.msg{border:1px solid #ddd;border-radius:6px;margin:8px 0;padding:6px 10px}.msg pre{margin:4px 0;font-size:12px}
.msg.system{background:#f5f5f5}.msg.user{background:#eef4ff}.msg.assistant{background:#effaf0}.role{font-weight:600;font-size:12px;color:#555}
.note{color:#555;font-size:12px}.banner{background:#fff4e0;border:1px solid #f3d9a4;padding:6px 10px;border-radius:4px;margin:6px 0}
.filters label{margin-right:12px}
</style></head><body><header><a href="#/">memrl view</a></header><main id="app">loading…</main>
<script type="module" src="/app.js"></script></body></html>`;

export interface ViewServer {
  url: string;
  close(): Promise<void>;
}

export async function startViewServer(paths: string[], port: number): Promise<ViewServer> {
  const data = new ViewData(paths);
  if (!existsSync(APP_JS)) throw new MemrlError('harness', 'view_not_built', `${APP_JS} is missing: build memrl first (npm run build)`);
  const app = readFileSync(APP_JS);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (status: number, type: string, body: string | Buffer): void => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
      res.end(body);
    };
    try {
      if (url.pathname === '/') return send(200, 'text/html; charset=utf-8', PAGE);
      if (url.pathname === '/app.js') return send(200, 'text/javascript; charset=utf-8', app);
      if (url.pathname === '/favicon.ico') return send(204, 'image/x-icon', '');
      const parts = url.pathname.split('/').filter(Boolean);
      if (parts[0] !== 'api') return send(404, 'text/plain', 'not found');
      const n = (s: string | undefined): number => {
        const v = Number(s);
        if (!Number.isInteger(v) || v < 0) throw new UserError(`bad number ${s}`, 'view_not_found');
        return v;
      };
      let body: unknown;
      if (parts[1] === 'runs' && parts.length === 2) body = data.runs();
      else if (parts[1] === 'runs' && parts.length === 3) body = data.grid(n(parts[2]));
      else if (parts[1] === 'runs' && parts[3] === 'episode') body = data.episode(n(parts[2]), String(parts[4]), n(parts[5]), n(parts[6]));
      else if (parts[1] === 'runs' && parts[3] === 'memory') body = data.memory(n(parts[2]), decodeURIComponent(String(parts[4])));
      else if (parts[1] === 'compare') body = data.compare(n(parts[2]), n(parts[3]));
      else return send(404, 'application/json', JSON.stringify({ error: 'no such API path' }));
      return send(200, 'application/json', JSON.stringify(body));
    } catch (err) {
      const notFound = err instanceof MemrlError && err.code === 'view_not_found';
      return send(notFound ? 404 : 500, 'application/json', JSON.stringify({ error: errorMessage(err) }));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new UserError(`--port ${port}: already in use on 127.0.0.1; give another --port (or 0 for any free one)`, 'port_in_use') : err),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${actual}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
