import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fmt } from './harness.ts';

/**
 * What grew between two V8 heap snapshots (`node --heapsnapshot-signal=SIGUSR2`, as
 * bench/serve-memory.ts --heap-snapshots takes at the end of warm-up and at the end):
 * the snapshots' nodes grouped by type and name (an object's constructor, a closure's
 * function, "(string)", "(array)"...), self size and count in each, the groups that
 * grew most by bytes first; given one snapshot, its largest groups. Snapshots past 512 MB
 * read too (readSnapshot).
 *
 *   node --import tsx bench/heap-diff.ts [BEFORE.heapsnapshot] AFTER.heapsnapshot [--top 25]
 */

interface Group {
  bytes: number;
  count: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: ArrayLike<number>;
  strings: string[];
}

/**
 * A snapshot's meta, nodes and strings, read from its bytes rather than as one JSON
 * string: a snapshot past 512 MB (a 300,000-swap replay's heap) is longer than V8's
 * longest string. The nodes are parsed by hand into a typed array (unsigned integers);
 * the edges and the rest are skipped; the strings (the last field) are parsed as JSON.
 */
export function readSnapshot(file: string): Snapshot {
  const bytes = readFileSync(file);
  const nodesAt = bytes.indexOf('"nodes":[');
  if (nodesAt < 0) throw new Error(`${file}: no "nodes" in it: not a V8 heap snapshot`);
  const head = JSON.parse(`${bytes.toString('utf8', 0, nodesAt).replace(/,\s*$/, '')}}`) as Pick<Snapshot, 'snapshot'>;
  let nodes = new Uint32Array(1 << 20);
  let n = 0;
  let i = nodesAt + '"nodes":['.length;
  for (let value = -1; ; i++) {
    const c = bytes[i]!;
    if (c >= 48 && c <= 57) value = (value < 0 ? 0 : value * 10) + (c - 48);
    else {
      if (value >= 0) {
        if (n === nodes.length) {
          const grown = new Uint32Array(nodes.length * 2);
          grown.set(nodes);
          nodes = grown;
        }
        nodes[n++] = value;
        value = -1;
      }
      if (c === 93) break; // ]
    }
  }
  const stringsAt = bytes.indexOf('"strings":[', i);
  if (stringsAt < 0) throw new Error(`${file}: no "strings" in it`);
  const strings = JSON.parse(bytes.toString('utf8', stringsAt + '"strings":'.length, bytes.lastIndexOf(']') + 1)) as string[];
  return { snapshot: head.snapshot, nodes: nodes.subarray(0, n), strings };
}

/** Self bytes and count by `type:name` (strings, code and arrays by type alone: their names are their contents). */
export function groups(file: string): Map<string, Group> {
  const snap = readSnapshot(file);
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
  if (positionals.length === 1) {
    // One snapshot: its largest groups by self bytes.
    const only = [...groups(positionals[0]!)].sort((x, y) => y[1].bytes - x[1].bytes);
    console.log(`self bytes in all: ${fmt(only.reduce((a, [, g]) => a + g.bytes, 0))}; largest groups: group, bytes, count`);
    for (const [key, g] of only.slice(0, Number(values.top))) console.log(`  ${key}: ${fmt(g.bytes)}, ${fmt(g.count)}`);
  } else {
    if (positionals.length !== 2) throw new Error('usage: heap-diff.ts [BEFORE.heapsnapshot] AFTER.heapsnapshot [--top 25]');
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
}
