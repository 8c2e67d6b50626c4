/**
 * `memrl table --format latex`: a booktabs `tabular` (needs \usepackage{booktabs})
 * and its notes as a footnotesize paragraph, ready to drop into a table float.
 */
import type { ResultTable } from './result-table.js';
import { MARK_SYMBOLS, layoutTable, rowCells, tableNotes, type RowDimension } from './table-layout.js';

const SPECIALS: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
  '{': '\\{',
  '}': '\\}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
};
const UNICODE: Record<string, string> = { '±': '$\\pm$', '≥': '$\\geq$', '×': '$\\times$', '–': '--', '—': '---' };

/** Plain text into LaTeX text mode: specials escaped, the few symbols we print spelled out. */
export function latexText(s: string): string {
  return s
    .replace(/[\\&%$#_{}~^]/g, (c) => SPECIALS[c]!)
    .replace(/[±≥×–—]/g, (c) => UNICODE[c]!)
    .replace(/"([^"]*)"/g, "``$1''");
}

export function formatLatex(table: ResultTable, rowsBy: RowDimension = 'method'): string {
  const layout = layoutTable(table, rowsBy);
  const nm = layout.metrics.length;
  const ncols = layout.groups.length * nm;
  const out: string[] = [`\\begin{tabular}{l${'r'.repeat(ncols)}}`, '\\toprule'];
  if (nm === 1) {
    out.push(`${[layout.corner, ...layout.groups.map((g) => g.label)].map(latexText).join(' & ')} \\\\`);
  } else {
    const spans = layout.groups.map((g) => `\\multicolumn{${nm}}{c}{${latexText(g.label)}}`);
    out.push(` & ${spans.join(' & ')} \\\\`);
    out.push(layout.groups.map((_g, i) => `\\cmidrule(lr){${2 + i * nm}-${1 + (i + 1) * nm}}`).join(' '));
    const sub = layout.groups.flatMap(() => layout.metrics.map((m) => latexText(m.label)));
    out.push(`${[latexText(layout.corner), ...sub].join(' & ')} \\\\`);
  }
  out.push('\\midrule');
  layout.rows.forEach((row, r) => {
    // Paper rows are set apart from measured ones.
    if (row.reference && (r === 0 || !layout.rows[r - 1]!.reference)) out.push('\\midrule');
    const cells = rowCells(
      layout,
      r,
      (cell, t) => {
        const value = t === null ? '--' : t.halfWidth === null ? t.mean : `${t.mean} $\\pm$ ${t.halfWidth} ($n$=${t.n})`;
        const marks = cell.marks.length ? `$^{${cell.marks.map((k) => MARK_SYMBOLS[k].latex).join('')}}$` : '';
        return `${cell.best ? `\\textbf{${value}}` : value}${marks}`;
      },
      '--',
    );
    out.push(`${[latexText(row.label), ...cells].join(' & ')} \\\\`);
  });
  out.push('\\bottomrule', '\\end{tabular}');
  const notes = tableNotes(table, (k) => `$^{${MARK_SYMBOLS[k].latex}}$`);
  out.push('\\par\\smallskip', '{\\footnotesize');
  // Mark symbols are already LaTeX; escape only the prose after them.
  for (const n of notes) out.push(`${n.mark ? n.text.replace(/^(\S+) (.*)$/, (_a, sym: string, rest: string) => `${sym} ${latexText(rest)}`) : latexText(n.text)}\\par`);
  out.push('}');
  return out.join('\n') + '\n';
}
