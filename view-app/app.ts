/**
 * The `memrl view` front end: preact, a hash router, and a task × epoch grid virtualised
 * with @tanstack/virtual-core (a 1,140-task run renders only the rows in sight). Data
 * comes from the local server's /api; nothing else is fetched.
 */
import { h, render, type VNode } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import { elementScroll, observeElementOffset, observeElementRect, Virtualizer } from '@tanstack/virtual-core';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;
type El = VNode<any>;

const fmt = (x: number | null | undefined, d = 3): string => (x === null || x === undefined ? '–' : x.toFixed(d));

function useApi(path: string): { data: Json; error: string | null } {
  const [state, setState] = useState<{ data: Json; error: string | null }>({ data: null, error: null });
  useEffect(() => {
    let live = true;
    setState({ data: null, error: null });
    fetch(path)
      .then(async (r) => {
        const body = await r.json();
        if (!live) return;
        setState(r.ok ? { data: body, error: null } : { data: null, error: body.error ?? r.statusText });
      })
      .catch((e: Error) => live && setState({ data: null, error: e.message }));
    return () => {
      live = false;
    };
  }, [path]);
  return state;
}

function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/');
  useEffect(() => {
    const on = (): void => setHash(location.hash || '#/');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

/** What each outcome status means, for the grid's legend (a status not listed here shows its name alone). */
const STATUS_MEANING: Record<string, string> = {
  pass: 'solved',
  fail: 'wrong answer or a failing test',
  error: 'the harness, endpoint or task failed, not the answer',
  timeout: 'ran past the time limit',
  syntax_error: 'the code did not parse',
  runtime_error: 'the code crashed before any test reported',
  skipped: 'not run',
};

/** The grid's key: every status colour with its meaning and how many episodes have it. */
function Legend(p: { statuses: { status: string; count: number }[] }): El {
  const item = (cls: string, name: string, text: string, status?: string): El =>
    h('span', { class: 'legend-item', 'data-status': status }, [h('span', { class: `swatch ${cls}` }), h('b', null, name), ` ${text}`]);
  return h('div', { class: 'legend', id: 'legend' }, [
    ...p.statuses.map((s) => item(s.status, s.status, `${STATUS_MEANING[s.status] ? `${STATUS_MEANING[s.status]} ` : ''}(${s.count})`, s.status)),
    item('none', 'no episode', ''),
    h('span', { class: 'note' }, 'A number in a cell: memories injected.'),
  ]);
}

/** An outcome as a coloured chip; a link when it leads to the episode. */
function StatusChip(p: { status: string; href?: string }): El {
  return h(p.href ? 'a' : 'span', { class: `chip ${p.status}`, href: p.href }, p.status);
}

/** An injected memory as a chip: its id, the Q it had when retrieved, and its similarity to the task. */
function MemoryChip(p: { n: number; m: { id: string; q: number | null; sim: number | null } }): El {
  const parts = [p.m.id, ...(p.m.q === null ? [] : [`Q ${fmt(p.m.q)}`]), ...(p.m.sim === null ? [] : [`sim ${fmt(p.m.sim)}`])];
  return h('a', { class: 'chip memory', href: `#/run/${p.n}/memory/${encodeURIComponent(p.m.id)}`, title: 'memory · Q at retrieval · similarity to the task' }, parts.join(' · '));
}

function Loading(p: { error: string | null }): El {
  return p.error ? h('p', { class: 'banner', role: 'alert' }, p.error) : h('p', null, 'loading…');
}

function Runs(): El {
  const { data, error } = useApi('/api/runs');
  const [pick, setPick] = useState<number[]>([]);
  if (!data) return h(Loading, { error });
  const toggle = (n: number): void => setPick((p) => (p.includes(n) ? p.filter((x) => x !== n) : [...p, n].slice(-2)));
  return h('div', null, [
    h('h2', null, `Runs (${data.length})`),
    pick.length === 2 ? h('p', null, h('a', { href: `#/compare/${pick[0]}/${pick[1]}`, id: 'compare-link' }, 'Compare the two selected runs')) : h('p', { class: 'note' }, 'Tick two runs to compare them task by task.'),
    h('table', { id: 'runs' }, [
      h('thead', null, h('tr', null, ['', 'run', 'folder', 'model', 'status', 'tasks', 'epochs', 'last', 'CSR', 'missing'].map((c) => h('th', null, c)))),
      h(
        'tbody',
        null,
        data.map((r: Json) =>
          h('tr', { 'data-run': r.n }, [
            h('td', null, h('input', { type: 'checkbox', checked: pick.includes(r.n), onChange: () => toggle(r.n), 'aria-label': `select ${r.label}` })),
            h('td', null, h('a', { href: `#/run/${r.n}` }, r.label)),
            h('td', { class: 'note' }, r.path),
            h('td', null, r.simulated ? `${r.model} (simulated)` : r.model),
            h('td', { title: r.statusReason }, r.status),
            h('td', null, r.tasks),
            h('td', null, r.epochs),
            h('td', null, fmt(r.last)),
            h('td', null, fmt(r.csr)),
            h('td', { class: 'note' }, r.missing.length ? `no ${r.missing.join(', ')} (older memrl)` : ''),
          ]),
        ),
      ),
    ]),
  ]);
}

/** A virtualised list of rows inside a scrolling element. */
function useVirtual(count: number, rowHeight: number): { ref: { current: HTMLDivElement | null }; items: { index: number; start: number }[]; total: number } {
  const ref = useRef<HTMLDivElement | null>(null);
  const [, rerender] = useReducer((x: number) => x + 1, 0);
  const v = useMemo(
    () =>
      new Virtualizer<HTMLDivElement, HTMLDivElement>({
        count,
        getScrollElement: () => ref.current,
        estimateSize: () => rowHeight,
        scrollToFn: elementScroll,
        observeElementRect,
        observeElementOffset,
        overscan: 10,
        onChange: () => rerender(0),
      }),
    [count, rowHeight],
  );
  useLayoutEffect(() => v._didMount(), [v]);
  useLayoutEffect(() => v._willUpdate());
  return { ref, items: v.getVirtualItems().map((i) => ({ index: i.index, start: i.start })), total: v.getTotalSize() };
}

function RunGrid(p: { n: number }): El {
  const { data, error } = useApi(`/api/runs/${p.n}`);
  const [status, setStatus] = useState('all');
  const [flips, setFlips] = useState(false);
  const [memory, setMemory] = useState('all');
  const [category, setCategory] = useState('all');
  const rows: number[] = useMemo(() => {
    if (!data) return [];
    return data.tasks
      .map((_: string, i: number) => i)
      .filter((i: number) => {
        const cells = data.cells[i].filter(Boolean);
        if (status !== 'all' && !cells.some((c: Json) => c[0] === status)) return false;
        if (flips && !cells.some((c: Json, k: number) => k > 0 && (c[0] === 'pass') !== (cells[k - 1][0] === 'pass'))) return false;
        if (memory === 'used' && !cells.some((c: Json) => c[1] > 0)) return false;
        if (memory === 'none' && cells.some((c: Json) => c[1] > 0)) return false;
        if (category !== 'all' && data.category[i] !== category) return false;
        return true;
      });
  }, [data, status, flips, memory, category]);
  const virt = useVirtual(rows.length, 22);
  if (!data) return h(Loading, { error });
  const categories = [...new Set(data.category.filter(Boolean))] as string[];
  const select = (value: string, set: (v: string) => void, options: string[], label: string): El =>
    h('label', null, [`${label} `, h('select', { value, onChange: (e: Event) => set((e.target as HTMLSelectElement).value), 'aria-label': label }, options.map((o) => h('option', { value: o }, o)))]);
  return h('div', null, [
    h('h2', null, data.run.label),
    data.run.missing.length ? h('p', { class: 'banner' }, `This run was made by a memrl that did not record ${data.run.missing.join(' or ')}: the grid and outcomes are shown, those are not.`) : null,
    h('p', { class: 'note' }, `${data.run.path} · ${data.run.status} · ${data.tasks.length} tasks × ${data.columns.length} columns (phase/epoch) · last ${fmt(data.run.last)}`),
    h('details', { id: 'manifest' }, [h('summary', null, 'manifest (run.json)'), h('pre', null, JSON.stringify(data.manifest, null, 2))]),
    h('div', { class: 'filters' }, [
      select(status, setStatus, ['all', ...data.statuses.map((s: Json) => s.status)], 'status'),
      h('label', null, [h('input', { type: 'checkbox', checked: flips, onChange: () => setFlips(!flips), id: 'flips' }), ' flips only']),
      select(memory, setMemory, ['all', 'used', 'none'], 'memory'),
      categories.length ? select(category, setCategory, ['all', ...categories], 'category') : null,
      h('span', { class: 'note', id: 'shown' }, `${rows.length} task(s)`),
    ]),
    h(Legend, { statuses: data.statuses }),
    h('div', { class: 'gridrow', style: 'position:relative' }, [h('div', { class: 'task' }, 'task'), ...data.columns.map((c: string) => h('div', { class: 'cell', style: 'color:#333' }, c.replace('train/', 'e').replace('valid/', 'v')))]),
    h(
      'div',
      { class: 'grid', ref: virt.ref, id: 'grid' },
      h(
        'div',
        { style: `height:${virt.total}px;position:relative` },
        virt.items.map((it) => {
          const i = rows[it.index]!;
          return h('div', { class: 'gridrow', style: `top:${it.start}px`, key: i, 'data-task': data.tasks[i] }, [
            h('div', { class: 'task', title: data.tasks[i] }, data.tasks[i]),
            ...data.cells[i].map((c: Json, k: number) => {
              if (!c) return h('div', { class: 'cell none' });
              const [phase, epoch] = data.columns[k].split('/');
              return h('a', { class: `cell ${c[0]}`, href: `#/run/${p.n}/ep/${phase}/${epoch}/${c[2]}`, title: `${data.tasks[i]} · ${data.columns[k]} · ${c[0]} · ${c[1]} memories` }, c[1] > 0 ? String(c[1]) : '');
            }),
          ]);
        }),
      ),
    ),
  ]);
}

function contentText(content: Json): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: Json) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('\n');
  return JSON.stringify(content);
}

/** Who made a recorded call: the agent, the judge, or the memory method (and what for). */
function callLabel(c: Json): string {
  if (c.role === 'judge') return 'judge model';
  if (c.role === 'memory') return `memory method${c.purpose ? `: ${c.purpose}` : ''}`;
  return 'agent';
}

function Episode(p: { n: number; phase: string; epoch: number; task: number }): El {
  const { data, error } = useApi(`/api/runs/${p.n}/episode/${p.phase}/${p.epoch}/${p.task}`);
  if (!data) return h(Loading, { error });
  const r = data.row;
  return h('div', null, [
    h('p', null, h('a', { href: `#/run/${p.n}` }, `← ${data.run.label}`)),
    h('h2', null, `${r.taskId} · ${r.phase} epoch ${r.epoch}: ${r.status}`),
    h('p', { class: 'note' }, `reward ${r.reward} · steps ${r.steps} · ${r.totalTokens} tokens${r.error ? ` · ${r.error}` : ''}`),
    h('h3', null, `Injected memories (${data.injected.length})`),
    data.injected.length
      ? h('table', { id: 'injected' }, [
          h('thead', null, h('tr', null, ['memory', 'outcome', 'similarity', 'Q at retrieval', 'Q update by this episode', 'Q after this epoch', 'written by'].map((c) => h('th', null, c)))),
          h(
            'tbody',
            null,
            data.injected.map((m: Json) =>
              h('tr', null, [
                h('td', null, h('a', { href: `#/run/${p.n}/memory/${encodeURIComponent(m.id)}` }, m.id)),
                h('td', null, m.success === null ? '–' : m.success ? 'success' : 'failure'),
                h('td', null, fmt(m.sim)),
                h('td', null, fmt(m.q)),
                h('td', { class: 'q-update' }, m.qUpdate ? `${fmt(m.qUpdate.before)} → ${fmt(m.qUpdate.after)}` : '–'),
                h('td', null, fmt(m.qAfterEpoch)),
                h('td', null, m.writer ? h('a', { href: `#/run/${p.n}/ep/${m.writer.phase}/${m.writer.epoch}/${m.writer.taskIndex}` }, `${m.writer.taskId} · e${m.writer.epoch}`) : '–'),
              ]),
            ),
          ),
        ])
      : h('p', { class: 'note' }, 'None.'),
    h('h3', null, 'Transcript'),
    ...data.missing.map((m: string) => h('p', { class: 'banner' }, m)),
    data.transcript
      ? h(
          'div',
          { id: 'transcript' },
          data.transcript.calls.flatMap((c: Json, i: number) => [
            h('p', { class: 'role' }, `call ${i + 1}: ${callLabel(c)}${c.model ? ` (${c.model})` : ''}${c.usage ? ` · ${c.usage.totalTokens} tokens` : ''}`),
            ...c.messages.map((m: Json) => h('div', { class: `msg ${m.role}` }, [h('div', { class: 'role' }, m.role), h('pre', null, contentText(m.content))])),
            c.reply !== undefined ? h('div', { class: 'msg assistant reply' }, [h('div', { class: 'role' }, 'reply'), h('pre', null, c.reply)]) : h('p', { class: 'banner' }, `the call failed: ${c.error}`),
          ]),
        )
      : null,
    h('h3', null, 'Evaluation'),
    h('pre', { id: 'evaluation' }, JSON.stringify({ status: r.status, error: r.error ?? null, ...data.evaluation, ...(data.transcript?.evaluatorOutput ? { evaluatorOutput: data.transcript.evaluatorOutput } : {}) }, null, 2)),
    h('h3', null, 'Memory written'),
    data.written ? h('div', null, [h('p', null, h('a', { href: `#/run/${p.n}/memory/${encodeURIComponent(data.written.id)}` }, data.written.id)), h('pre', { id: 'written' }, data.written.content ?? '(not in memories.jsonl)')]) : h('p', { class: 'note' }, 'None (validation, or a method that keeps no memory).'),
  ]);
}

function Memory(p: { n: number; id: string }): El {
  const { data, error } = useApi(`/api/runs/${p.n}/memory/${encodeURIComponent(p.id)}`);
  if (!data) return h(Loading, { error });
  const m = data.memory;
  return h('div', null, [
    h('p', null, h('a', { href: `#/run/${p.n}` }, `← ${data.run.label}`)),
    h('h2', null, `Memory ${m.id}`),
    data.writer ? h('p', null, ['written by ', h('a', { href: `#/run/${p.n}/ep/${data.writer.phase}/${data.writer.epoch}/${data.writer.taskIndex}` }, `${data.writer.taskId} · epoch ${data.writer.epoch} (${data.writer.status})`)]) : null,
    h('p', { class: 'note' }, `final Q ${fmt(m.q)} · ${m.success ? 'success' : 'failure'} memory · ${m.visits ?? 0} updates`),
    h('h3', null, 'Q after each epoch'),
    data.qOverTime.length ? h('table', { id: 'q-over-time' }, [h('tr', null, data.qOverTime.map((x: Json) => h('th', null, `e${x.epoch}`))), h('tr', null, data.qOverTime.map((x: Json) => h('td', null, fmt(x.q))))]) : h('p', { class: 'note' }, 'No Q history in this run (an older memrl).'),
    h('h3', null, `Episodes that used it (${data.uses.length})`),
    h('table', { id: 'uses' }, [
      h('thead', null, h('tr', null, ['episode', 'outcome', 'Q then', 'Q after its update', 'similarity'].map((c) => h('th', null, c)))),
      h('tbody', null, data.uses.map((u: Json) => h('tr', null, [h('td', null, h('a', { href: `#/run/${p.n}/ep/${u.phase}/${u.epoch}/${u.taskIndex}` }, `${u.taskId} · ${u.phase} e${u.epoch}`)), h('td', null, h(StatusChip, { status: u.status })), h('td', null, fmt(u.q)), h('td', { class: 'q-after' }, fmt(u.qAfter)), h('td', null, fmt(u.sim))]))),
    ]),
    h('h3', null, 'Content'),
    h('pre', null, m.content ?? ''),
  ]);
}

function Compare(p: { a: number; b: number }): El {
  const { data, error } = useApi(`/api/compare/${p.a}/${p.b}`);
  const [all, setAll] = useState(false);
  if (!data) return h(Loading, { error });
  const shown = data.rows.filter((r: Json) => all || r.flipped);
  const mems = (n: number, s: Json): El => (s.injected.length ? h('span', null, s.injected.map((m: Json) => h(MemoryChip, { n, m }))) : h('span', { class: 'note' }, 'none'));
  return h('div', null, [
    h('h2', null, `${data.a.label} vs ${data.b.label}`),
    h('p', { id: 'compare-summary' }, `${data.shared} shared training tasks at each run's last epoch: ${data.onlyA} solved only by ${data.a.label}, ${data.onlyB} only by ${data.b.label}.`),
    h('label', null, [h('input', { type: 'checkbox', checked: all, onChange: () => setAll(!all) }), ' show tasks that did not flip too']),
    h('p', { class: 'note' }, 'Each memory: its id · its Q when it was retrieved · its similarity to the task.'),
    h('table', { id: 'compare' }, [
      h('thead', null, h('tr', null, ['task', data.a.label, 'memories injected', data.b.label, 'memories injected'].map((c) => h('th', null, c)))),
      h(
        'tbody',
        null,
        shown.map((r: Json) =>
          h('tr', { 'data-task': r.taskId }, [
            h('td', null, r.taskId),
            h('td', null, h(StatusChip, { status: r.a.status, href: `#/run/${p.a}/ep/train/${r.a.epoch}/${r.a.taskIndex}` })),
            h('td', null, mems(p.a, r.a)),
            h('td', null, h(StatusChip, { status: r.b.status, href: `#/run/${p.b}/ep/train/${r.b.epoch}/${r.b.taskIndex}` })),
            h('td', null, mems(p.b, r.b)),
          ]),
        ),
      ),
    ]),
  ]);
}

function App(): El {
  const hash = useHash();
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  if (parts[0] === 'run' && parts[2] === 'ep') return h(Episode, { n: Number(parts[1]), phase: parts[3]!, epoch: Number(parts[4]), task: Number(parts[5]) });
  if (parts[0] === 'run' && parts[2] === 'memory') return h(Memory, { n: Number(parts[1]), id: decodeURIComponent(parts[3]!) });
  if (parts[0] === 'run') return h(RunGrid, { n: Number(parts[1]) });
  if (parts[0] === 'compare') return h(Compare, { a: Number(parts[1]), b: Number(parts[2]) });
  return h(Runs, {});
}

// The page's static "loading…" goes: preact appends to what is there.
const root = document.getElementById('app')!;
root.textContent = '';
render(h(App, {}), root);
