import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { SolanaDecoder, type DecodePath } from '../engine/sources/solana/decode.ts';
import { compare, fmt, summarize, type Benchmark } from './harness.ts';

/**
 * Question: how many recorded transactions per second does the Solana decoder turn into
 * INGEST events, so that decoding never limits ingest (the engine applies ~28k swaps/s,
 * bench/README)? The 13 recorded transactions of ../shared/fixtures/solana, in turn,
 * to 100,000 decodes a run (smoke: 2,000), three runs. Baseline, in the same process: JSON.parse of the
 * same texts, which any JSON source pays before decoding. Estimate: a transaction
 * carries 2-16 instructions and 1-4 events; resolving account indices, base58 of the
 * pump instructions' data (~1 µs per 100 bytes), ~10 pubkeys to base58 per event
 * (~1 µs each) and a few BigInts: ~20-40 µs, so 25-50k transactions/s, near
 * JSON.parse of the ~15 KB texts (~50 µs at ~300 MB/s).
 */

const FIXTURES = new URL('../../shared/fixtures/solana/', import.meta.url);

function fixtureTexts(): string[] {
  const lines = readFileSync(new URL('reference-events.ndjson', FIXTURES), 'utf8').trim().split('\n');
  const manifest = readFileSync(new URL('MANIFEST.tsv', FIXTURES), 'utf8').split('\n').map((l) => l.split('\t')[0]!);
  return lines.map((line) => {
    const file = (JSON.parse(line) as { file: string }).file;
    return readFileSync(new URL(manifest.find((p) => p.endsWith(`/${file}`))!, FIXTURES), 'utf8');
  });
}

const CTX = { slot: 1 }; // the blockSubscribe item has no slot of its own

/** Decodes per wall second, and per CPU second of this process (the figure a loaded machine distorts less). */
function decodeRun(values: unknown[], count: number, path?: DecodePath): { txPerS: number; txPerCpuS: number; events: number } {
  const decoder = new SolanaDecoder();
  let events = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    for (const tx of decoder.decodeValue(values[i % values.length], 'auto', CTX, { path })) events += tx.events.length;
  }
  const used = process.cpuUsage(cpu);
  return { txPerS: count / ((performance.now() - started) / 1000), txPerCpuS: count / ((used.user + used.system) / 1e6), events };
}

function parseRun(texts: string[], count: number, decode: boolean): number {
  const decoder = new SolanaDecoder();
  let sink = 0;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const value = JSON.parse(texts[i % texts.length]!);
    if (decode) for (const tx of decoder.decodeValue(value, 'auto', CTX)) sink += tx.events.length;
    else sink += value ? 1 : 0;
  }
  if (sink < 0) throw new Error('unreachable');
  return count / ((performance.now() - started) / 1000);
}

const benchmark: Benchmark = {
  name: 'solana-decode',
  question: 'How many recorded pump.fun/PumpSwap transactions per second does the decoder turn into INGEST events?',
  async run({ smoke, log }) {
    const count = smoke ? 2_000 : 100_000;
    // The logs path and the JSON text runs answer side questions: a third of the decodes.
    const side = Math.round(count / 3);
    const repeats = smoke ? 1 : 3;
    const texts = fixtureTexts();
    const values = texts.map((t) => JSON.parse(t));
    const objects: number[] = [];
    const objectsCpu: number[] = [];
    const logs: number[] = [];
    const parsed: number[] = [];
    const parseOnly: number[] = [];
    let events = 0;
    // Warm-up, unmeasured: the JIT compiles the decoder's paths before any run counts.
    decodeRun(values, 2_000);
    decodeRun(values, 2_000, 'logs');
    parseRun(texts, 2_000, true);
    for (let r = 0; r < repeats; r++) {
      const run = decodeRun(values, count);
      events = run.events;
      objects.push(run.txPerS);
      objectsCpu.push(run.txPerCpuS);
      logs.push(decodeRun(values, side, 'logs').txPerS);
      parseOnly.push(parseRun(texts, side, false));
      parsed.push(parseRun(texts, side, true));
    }
    // A new mint's bonding curve PDA (sha256 and an on-curve check per bump tried), paid once per mint.
    const mints = Array.from({ length: smoke ? 200 : 5_000 }, () => bs58.encode(randomBytes(32)));
    const pdaDecoder = new SolanaDecoder();
    const pdaStarted = performance.now();
    for (const mint of mints) pdaDecoder.bondingCurve(mint);
    const pdaPerS = mints.length / ((performance.now() - pdaStarted) / 1000);

    const fromObjects = summarize(objects, 'tx/s', 0, 'higher');
    const perCpu = summarize(objectsCpu, 'tx/CPU s', 0, 'higher');
    const fromLogs = summarize(logs, 'tx/s', 0, 'higher');
    const baseline = summarize(parseOnly, 'tx/s', 0, 'higher');
    const fromText = compare(summarize(parsed, 'tx/s', 0, 'higher'), 'JSON.parse alone', baseline);
    log(`${texts.length} recorded transactions in turn, ${fmt(count)} decodes a run, ${repeats} run(s); ${fmt(events)} INGEST events a run (${(events / count).toFixed(2)} a transaction)`);
    log(`parsed objects, self-CPI path: ${fmt(fromObjects.value)} tx/s (${fmt((fromObjects.value * events) / count)} events/s), ${fmt(perCpu.value)} tx per CPU second; logs path forced: ${fmt(fromLogs.value)} tx/s`);
    log(`JSON text (JSON.parse + decode): ${fmt(fromText.value)} tx/s; JSON.parse alone: ${fmt(baseline.value)} tx/s (ratio ${fromText.ratio})`);
    log(`bonding curve PDA of a new mint: ${fmt(pdaPerS)}/s (once per mint, then cached)`);
    return {
      decode_tx_per_s: fromObjects,
      decode_tx_per_cpu_s: perCpu,
      decode_logs_path_tx_per_s: fromLogs,
      decode_from_json_tx_per_s: fromText,
      events_per_tx: { value: Number((events / count).toFixed(2)), unit: 'events' },
      new_mint_pda_per_s: { value: Math.round(pdaPerS), unit: 'PDA/s', better: 'higher' },
    };
  },
};

export default benchmark;
