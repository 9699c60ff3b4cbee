import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fmt } from './harness.ts';

/**
 * What grew between two V8 heap snapshots (`node --heapsnapshot-signal=SIGUSR2`, as
 * bench/serve-memory.ts --heap-snapshots takes at the end of warm-up and at the end):
 * the snapshots' nodes grouped by type and name (an object's constructor, a closure's
 * function, "(string)", "(array)"...), self size and count in each, the groups that
 * grew most by bytes first.
 *
 *   node --import tsx bench/heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [--top 25]
 */

interface Group {
  bytes: number;
  count: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Self bytes and count by `type:name` (strings, code and arrays by type alone: their names are their contents). */
export function groups(file: string): Map<string, Group> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const out = new Map<string, Group>();
  const { nodes, strings } = snap;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt]!]!;
    const byType = type === 'string' || type === 'concatenated string' || type === 'sliced string' || type === 'code' || type === 'array' || type === 'number' || type === 'hidden';
    const key = byType ? `(${type})` : `${type}:${strings[nodes[i + nameAt]!]!.slice(0, 80)}`;
    const g = out.get(key);
    if (g) {
      g.bytes += nodes[i + sizeAt]!;
      g.count++;
    } else out.set(key, { bytes: nodes[i + sizeAt]!, count: 1 });
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '25' } }, allowPositionals: true });
  if (positionals.length !== 2) throw new Error('usage: heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [--top 25]');
  const before = groups(positionals[0]!);
  const after = groups(positionals[1]!);
  const total = (m: Map<string, Group>) => [...m.values()].reduce((a, g) => a + g.bytes, 0);
  console.log(`self bytes in all: ${fmt(total(before))} -> ${fmt(total(after))} (${fmt(total(after) - total(before))})`);
  const keys = new Set([...before.keys(), ...after.keys()]);
  const rows = [...keys].map((key) => {
    const b = before.get(key) ?? { bytes: 0, count: 0 };
    const a = after.get(key) ?? { bytes: 0, count: 0 };
    return { key, dBytes: a.bytes - b.bytes, dCount: a.count - b.count, a, b };
  });
  rows.sort((x, y) => y.dBytes - x.dBytes);
  console.log('grew most (self bytes): group, bytes before -> after (+delta), count before -> after');
  for (const r of rows.slice(0, Number(values.top))) console.log(`  ${r.key}: ${fmt(r.b.bytes)} -> ${fmt(r.a.bytes)} (${r.dBytes >= 0 ? '+' : ''}${fmt(r.dBytes)}), ${fmt(r.b.count)} -> ${fmt(r.a.count)}`);
  console.log('shrank most:');
  for (const r of rows.slice(-5).reverse()) console.log(`  ${r.key}: ${fmt(r.b.bytes)} -> ${fmt(r.a.bytes)} (${fmt(r.dBytes)}), ${fmt(r.b.count)} -> ${fmt(r.a.count)}`);
}
