/** `memrl table --format md`: a pipe table (GitHub/Pandoc) with its notes underneath. */
import type { ResultTable } from './result-table.js';
import { MARK_SYMBOLS, flatColumnTitles, layoutTable, rowCells, tableNotes, type RowDimension } from './table-layout.js';

export function formatMarkdown(table: ResultTable, rowsBy: RowDimension = 'method'): string {
  const layout = layoutTable(table, rowsBy);
  const esc = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
  const titles = flatColumnTitles(layout);
  const lines = [
    `| ${[layout.corner, ...titles].map(esc).join(' | ')} |`,
    `|${['---', ...titles.map(() => '---:')].join('|')}|`,
  ];
  layout.rows.forEach((row, r) => {
    const cells = rowCells(
      layout,
      r,
      (cell, t) => {
        const value = t === null ? '–' : t.halfWidth === null ? t.mean : `${t.mean} ± ${t.halfWidth} (n=${t.n})`;
        const marks = cell.marks.map((k) => MARK_SYMBOLS[k].text).join('');
        return `${cell.best ? `**${value}**` : value}${marks}`;
      },
      '–',
    );
    lines.push(`| ${[esc(row.label), ...cells].join(' | ')} |`);
  });
  const notes = tableNotes(table, (k) => MARK_SYMBOLS[k].text).map((n) => n.text);
  return [lines.join('\n'), ...notes].join('\n\n') + '\n';
}
