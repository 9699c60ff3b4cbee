import type { Figure } from './harness.ts';

/**
 * bench/results/latest.json rendered for people: a Markdown table (latest.md, linked
 * from bench/README.md) and a self-contained SVG chart (latest.svg: hand-written SVG
 * text, no fonts or scripts to fetch). The chart has two panels: every figure that has
 * a baseline as a ratio bar on a log scale (right of 1× = mds ahead, whichever way is
 * better), and the same figures as absolute pairs, mds beside its baseline.
 */

export interface BenchEntry {
  question: string;
  figures: Record<string, Figure>;
  at: string;
  commit: string;
  node: string;
  /** 1-minute load average of the machine when the benchmark started (others' work shows here). */
  load_1m_before?: number;
}

export interface Report {
  at: string;
  commit: string;
  node: string;
  machine: { cpus: number; cpu?: string; memory_gib: number; taskset?: boolean };
  command?: string;
  benchmarks: Record<string, BenchEntry>;
}

const num = (v: number): string => {
  const abs = Math.abs(v);
  if (abs >= 1000) return Math.round(v).toLocaleString('en-US');
  if (abs >= 100) return v.toFixed(0);
  if (abs >= 10) return v.toFixed(1);
  if (abs >= 1) return v.toFixed(2);
  return String(Number(v.toPrecision(3)));
};

const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeMd = (s: string): string => s.replace(/\|/g, '\\|');

function machineLine(report: Report): string {
  const m = report.machine;
  return `${m.cpu ?? 'unknown CPU'}, ${m.cpus} cores, ${m.memory_gib} GiB; Node ${report.node}; commit ${report.commit}; ${report.at}`;
}

export function renderMarkdown(report: Report): string {
  const lines: string[] = [];
  lines.push('# Benchmark results (latest)', '');
  lines.push(`Machine: ${machineLine(report)}.`, '');
  if (report.command) lines.push(`Command: \`${report.command}\``, '');
  lines.push('Values are medians over repeats (min–max beside them). Ratio: mds against its baseline in the same run, above 1 when mds is ahead (for "lower is better" figures the ratio is baseline / mds).', '');
  for (const [name, entry] of Object.entries(report.benchmarks)) {
    lines.push(`## ${name}`, '', `${entry.question}`, '');
    lines.push(`Run ${entry.at}, commit ${entry.commit}, Node ${entry.node}${entry.load_1m_before !== undefined ? `, machine load (1 min) ${entry.load_1m_before.toFixed(2)} at start` : ''}.`, '');
    lines.push('| figure | value | min–max | baseline | ratio |', '|---|---:|---:|---:|---:|');
    for (const [key, f] of Object.entries(entry.figures)) {
      const range = f.min !== undefined && f.max !== undefined && f.repeats && f.repeats.length > 1 ? `${num(f.min)}–${num(f.max)}` : '';
      const baseline = f.baseline ? `${escapeMd(f.baseline.name)}: ${num(f.baseline.value)} ${f.unit}` : '';
      const ratio = f.ratio !== undefined ? `${f.ratio.toFixed(2)}×` : '';
      lines.push(`| ${key} | ${num(f.value)} ${f.unit} | ${range} | ${baseline} | ${ratio} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

interface Row {
  label: string;
  figure: Figure;
}

/** The chart: ratio bars (log scale) and absolute pairs for every figure with a baseline. */
export function renderSvg(report: Report): string {
  const rows: Row[] = [];
  for (const [name, entry] of Object.entries(report.benchmarks)) {
    for (const [key, figure] of Object.entries(entry.figures)) if (figure.baseline && figure.ratio) rows.push({ label: `${name}: ${key}`, figure });
  }
  const width = 1000;
  const rowH = 26;
  const labelW = 330;
  const top = 70;
  const panelA = top + 30;
  const heightA = rows.length * rowH;
  const panelB = panelA + heightA + 60;
  const heightB = rows.length * (rowH + 8);
  const height = panelB + heightB + 40;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`);
  out.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="20" y="28" font-size="18" font-weight="bold">mds benchmarks: mds against its baselines, same machine, same run</text>`);
  out.push(`<text x="20" y="50" fill="#555">${escapeXml(machineLine(report))}</text>`);

  // Panel A: ratios on a log scale from 1/16 to 64, 1× marked.
  const x0 = labelW + 20;
  const plotW = width - x0 - 140;
  const lo = Math.log2(1 / 16);
  const hi = Math.log2(64);
  const xOf = (ratio: number) => x0 + ((Math.min(hi, Math.max(lo, Math.log2(ratio))) - lo) / (hi - lo)) * plotW;
  out.push(`<text x="20" y="${panelA - 10}" font-size="14" font-weight="bold">Ratio mds / baseline (log scale; right of 1× = mds ahead)</text>`);
  for (const tick of [1 / 16, 1 / 4, 1, 2, 4, 16, 64]) {
    const x = xOf(tick);
    out.push(`<line x1="${x}" y1="${panelA}" x2="${x}" y2="${panelA + heightA}" stroke="${tick === 1 ? '#333' : '#ddd'}" stroke-width="${tick === 1 ? 1.5 : 1}"/>`);
    out.push(`<text x="${x}" y="${panelA + heightA + 14}" text-anchor="middle" fill="#555">${tick < 1 ? `1/${1 / tick}` : tick}×</text>`);
  }
  rows.forEach((row, i) => {
    const y = panelA + i * rowH;
    const ratio = row.figure.ratio!;
    const x1 = xOf(1);
    const x2 = xOf(ratio);
    const color = ratio >= 1 ? '#2a7ab9' : '#d9534f';
    out.push(`<text x="${labelW}" y="${y + rowH / 2 + 4}" text-anchor="end">${escapeXml(row.label)}</text>`);
    out.push(`<rect x="${Math.min(x1, x2)}" y="${y + 5}" width="${Math.max(1, Math.abs(x2 - x1))}" height="${rowH - 10}" fill="${color}"/>`);
    out.push(`<text x="${width - 130}" y="${y + rowH / 2 + 4}">${ratio.toFixed(2)}× vs ${escapeXml(row.figure.baseline!.name)}</text>`);
  });

  // Panel B: absolute figures, mds and baseline on one scale per row.
  out.push(`<text x="20" y="${panelB - 10}" font-size="14" font-weight="bold">Absolute figures (median): mds (blue) and baseline (grey), each row on its own scale</text>`);
  rows.forEach((row, i) => {
    const y = panelB + i * (rowH + 8);
    const f = row.figure;
    const max = Math.max(f.value, f.baseline!.value) || 1;
    const barW = plotW;
    const h = (rowH - 4) / 2;
    out.push(`<text x="${labelW}" y="${y + rowH / 2 + 4}" text-anchor="end">${escapeXml(row.label)}</text>`);
    out.push(`<rect x="${x0}" y="${y}" width="${Math.max(1, (f.value / max) * barW)}" height="${h}" fill="#2a7ab9"/>`);
    out.push(`<rect x="${x0}" y="${y + h + 2}" width="${Math.max(1, (f.baseline!.value / max) * barW)}" height="${h}" fill="#aaaaaa"/>`);
    out.push(`<text x="${width - 130}" y="${y + h - 1}" fill="#2a7ab9">${num(f.value)} ${escapeXml(f.unit)}</text>`);
    out.push(`<text x="${width - 130}" y="${y + 2 * h + 1}" fill="#777">${num(f.baseline!.value)} ${escapeXml(f.unit)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
