/**
 * The hub serves BigCodeBench as Parquet; memrl writes its rows back as the release's
 * JSON lines (Python's json.dumps, as BigCodeBench's own writer does). Checked against
 * Python itself on awkward strings, and on the whole release: a hub-style Parquet made
 * from the mirror's records comes back byte for byte, with the manifest's checksum.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bcbFile, BCB_TASKS_FILE } from '../../src/bench/bcb/data-files.js';
import { parquetToJsonLines, pythonJson } from '../../src/data/normalise.js';
import { sharedDataDir } from '../../src/util/paths.js';
import { runAsync } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { hubParquet } from './data-server.js';

const MIRROR_TASKS = join(sharedDataDir(), BCB_TASKS_FILE);

describe('Parquet rows written as the release JSON lines', () => {
  it("writes values exactly as Python's json.dumps does", async () => {
    const cases: unknown[] = [
      'plain',
      'quote " backslash \\ slash / tab \t newline \n return \r',
      'bell \u0007 escape \u001b delete \u007f nbsp \u00a0',
      'accents café, CJK 数据, emoji 😀 (a surrogate pair)',
      '\u2028 and \u2029',
      { task_id: 'BigCodeBench/1', libs: "['os', 're']", nested: [1, -2, true, false, null, 'x'] },
      [],
      {},
    ];
    const dir = tempDir('memrl-pyjson-');
    writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases));
    const py = await runAsync('python3', ['-c', 'import json,sys\nfor c in json.load(open(sys.argv[1])): print(json.dumps(c))', join(dir, 'cases.json')]);
    expect(py.code, py.stderr).toBe(0);
    expect(cases.map(pythonJson)).toEqual(py.stdout.trimEnd().split('\n'));
  });

  it.skipIf(!existsSync(MIRROR_TASKS))('turns a hub-style Parquet of the release into its JSON lines, byte for byte, with the pinned checksum', async () => {
    const file = bcbFile(BCB_TASKS_FILE);
    const lines = gunzipSync(readFileSync(MIRROR_TASKS));
    const dir = tempDir('memrl-normalise-');
    const parquet = join(dir, 'v0.1.0_hf-00000-of-00001.parquet');
    writeFileSync(parquet, hubParquet(lines.toString('utf8'), file.from!.columns));

    const plain = await parquetToJsonLines(parquet, file.from!, false, 'test');
    expect(plain.equals(lines)).toBe(true);
    expect(createHash('sha256').update(plain).digest('hex')).toBe(file.sha256);
    const gz = await parquetToJsonLines(parquet, file.from!, true, 'test');
    expect(gunzipSync(gz).equals(lines)).toBe(true);
  });

  it('refuses a download that is not Parquet, or lacks a column, naming it', async () => {
    const file = bcbFile(BCB_TASKS_FILE);
    const dir = tempDir('memrl-normalise-bad-');
    writeFileSync(join(dir, 'page.parquet'), '<html>Sign in to continue</html>');
    await expect(parquetToJsonLines(join(dir, 'page.parquet'), file.from!, true, 'data pull bcb: x')).rejects.toThrow(/data pull bcb: x: the downloaded file is not readable Parquet/);
    writeFileSync(join(dir, 'short.parquet'), hubParquet('{"task_id": "BigCodeBench/0"}\n', ['task_id']));
    await expect(parquetToJsonLines(join(dir, 'short.parquet'), file.from!, true, 'data pull bcb: x')).rejects.toThrow(/lacks the column\(s\) complete_prompt, instruct_prompt/);
  });
});
