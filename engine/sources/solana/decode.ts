import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import { isOffCurveAddress, type Address } from '@solana/addresses';
import { WSOL } from '../../model/index.ts';
import { EVENT_IX_TAG_KEY, decodeEvent, type ProgramKind, type RawEvent } from './layouts.ts';
import { dataOf, transactionsOf, type Format, type Instruction, type SolTx, type TxContext } from './transaction.ts';

/**
 * pump.fun and PumpSwap transactions → INGEST.md events (SOLANA.md "Semantics").
 *
 * Events are read from the self-CPI inner instructions first; only a transaction with
 * none (older program versions, or a record without inner instructions) is read from
 * its `Program data:` log lines, so no event is counted twice. Failed transactions are
 * skipped. What cannot become a valid event is a reject with its reason, never a throw.
 */

export const PUMP_PROGRAM = '6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P';
export const PUMP_AMM_PROGRAM = 'pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA';
export const PROGRAMS = [PUMP_PROGRAM, PUMP_AMM_PROGRAM] as const;
/** The account each program's self-CPI event instruction names (SOLANA.md "Programs"). */
const EVENT_AUTHORITY: Record<string, string> = {
  [PUMP_PROGRAM]: 'Ce6TQqeHC9p8KetsN6JsjHK7UTZk7nasjjnr7XxXp9F1',
  [PUMP_AMM_PROGRAM]: 'GS4CU59F31iL7aR2Q8zVS8DRrcRnXX1yjQ66TqNVQnaR',
};
const KIND: Record<string, ProgramKind> = { [PUMP_PROGRAM]: 'pump', [PUMP_AMM_PROGRAM]: 'amm' };
/** The default pubkey: a curve quoted in SOL has it as quote_mint. */
const DEFAULT_KEY = '11111111111111111111111111111111';
/** Pump mints: 6 decimals, 1e15 raw supply, 793.1e12 raw real tokens on a fresh curve (SOLANA.md "Programs"). */
const PUMP_DECIMALS = 6;
const PUMP_SUPPLY = '1000000000000000';
const PUMP_INITIAL_REAL_TOKENS = '793100000000000';
/** INGEST.md's text limits of a token's symbol and name. */
const MAX_SYMBOL = 64;
const MAX_NAME = 256;
/** Caches are cleared whole past this many entries (a bound, not an LRU: entries are cheap to rebuild). */
const CACHE_LIMIT = 200_000;

export type DecodePath = 'self-cpi' | 'logs';

/** One program event found in a transaction, where it was found. */
export interface FoundEvent {
  program: ProgramKind;
  raw: RawEvent;
  /** The instruction that emitted it (pump's buy, PumpSwap's sell...), when the record has instructions. */
  parent: Instruction | null;
}

export type Ingest = Record<string, unknown> & { type: string };

export interface DecodedTx {
  signature: string;
  /** Where the events were read; null when the transaction was skipped. */
  path: DecodePath | null;
  found: FoundEvent[];
  events: Ingest[];
  /** Events (or the whole transaction) that could not be made INGEST events, with why. */
  rejects: Array<{ reason: string; event?: string }>;
  /** Set when the whole transaction was skipped (failed, no slot...). */
  skipped?: string;
}

export interface DecodeOptions {
  /** Force one path (tests compare them); default: self-CPI, else logs. */
  path?: DecodePath;
  /** Emit `balance` events from the post token balances (default true). */
  balances?: boolean;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const INVOKE = /^Program ([1-9A-HJ-NP-Za-km-z]{32,44}) invoke \[(\d+)\]$/;
const RETURN = /^Program ([1-9A-HJ-NP-Za-km-z]{32,44}) (?:success|failed)/;

const str = (v: unknown): string | undefined => (v === undefined ? undefined : String(v));

export class SolanaDecoder {
  private readonly curves = new Map<string, string>();
  /** PumpSwap pool → its mints, from CreatePoolEvents and trades seen: a logs-only record names neither. */
  private readonly pools = new Map<string, { base: string; quote: string }>();

  /** The bonding curve PDA of a pump mint: seeds ["bonding-curve", mint] (cached). */
  bondingCurve(mint: string): string {
    let curve = this.curves.get(mint);
    if (curve) return curve;
    const seed = Buffer.from('bonding-curve');
    const mintBytes = bs58.decode(mint);
    const program = bs58.decode(PUMP_PROGRAM);
    const suffix = Buffer.from('ProgramDerivedAddress');
    for (let bump = 255; bump >= 0; bump--) {
      const hash = createHash('sha256').update(seed).update(mintBytes).update(Uint8Array.of(bump)).update(program).update(suffix).digest();
      const candidate = bs58.encode(hash);
      if (isOffCurveAddress(candidate as Address)) {
        curve = candidate;
        break;
      }
    }
    if (this.curves.size >= CACHE_LIMIT) this.curves.clear();
    this.curves.set(mint, curve!);
    return curve!;
  }

  /**
   * A trade's bonding curve: account #3 of the pump instruction that emitted it (global,
   * fee_recipient, mint, bonding_curve, ...) when that instruction names the mint as #2,
   * else the PDA (~0.5 ms uncached: an ed25519 on-curve check per bump tried).
   */
  private curveOf(mint: string, parent: Instruction | null): string {
    if (parent && parent.program === PUMP_PROGRAM && parent.accountCount > 3 && parent.accounts[2] === mint) return parent.accounts[3]!;
    return this.bondingCurve(mint);
  }

  /** Every transaction in a JSON value, decoded; a value that is no transaction is one skipped entry. */
  *decodeValue(value: unknown, format: Format = 'auto', ctx: TxContext = {}, options: DecodeOptions = {}): Generator<DecodedTx> {
    for (const tx of transactionsOf(value, format, ctx)) {
      if ('error' in tx) yield { signature: tx.signature ?? '', path: null, found: [], events: [], rejects: [{ reason: tx.error }], skipped: tx.error };
      else {
        try {
          yield this.decode(tx, options);
        } catch (err) {
          // A record shaped in a way no test foresaw: skipped with the reason, never a crash.
          const reason = `decoder error: ${(err as Error).message}`;
          yield { signature: tx.signature, path: null, found: [], events: [], rejects: [{ reason }], skipped: reason };
        }
      }
    }
  }

  decode(tx: SolTx, options: DecodeOptions = {}): DecodedTx {
    const out: DecodedTx = { signature: tx.signature, path: null, found: [], events: [], rejects: [] };
    if (tx.failed) return skip(out, 'failed transaction (meta.err set)');
    let found: FoundEvent[] = [];
    let path: DecodePath | null = null;
    if (options.path !== 'logs' && tx.inner) {
      found = this.selfCpiEvents(tx, out);
      if (found.length || options.path === 'self-cpi') path = 'self-cpi';
    }
    if (path === null && options.path !== 'self-cpi') {
      if (tx.logs) {
        found = this.logEvents(tx, out);
        path = 'logs';
      } else if (!tx.inner) {
        return skip(out, 'neither inner instructions nor logs in the record');
      }
    }
    out.path = path ?? 'self-cpi';
    out.found = found;
    const touchesPrograms = found.length > 0 || tx.outer.some((ix) => KIND[ix.program]) || tx.inner?.some((g) => g?.some((ix) => KIND[ix.program]));
    if (!touchesPrograms) return skip(out, 'no pump.fun or PumpSwap instruction');
    if (tx.slot === null) return skip(out, 'no slot (a block item outside its block?)');
    const seconds = tx.blockTime ?? eventTime(found) ?? tx.seenAt;
    if (seconds === null) return skip(out, 'no block time');
    this.toIngest(tx, found, seconds * 1000, out);
    if (options.balances !== false) balances(tx, seconds * 1000, out.events);
    return out;
  }

  /** Path 1: inner instructions of pump or PumpSwap holding Anchor's event tag. */
  private selfCpiEvents(tx: SolTx, out: DecodedTx): FoundEvent[] {
    const found: FoundEvent[] = [];
    const inner = tx.inner!;
    for (let i = 0; i < inner.length; i++) {
      const list = inner[i];
      if (!list) continue;
      for (let j = 0; j < list.length; j++) {
        const ix = list[j]!;
        const kind = KIND[ix.program];
        if (!kind || ix.accountCount !== 1) continue;
        let data: Uint8Array;
        try {
          data = dataOf(ix);
        } catch {
          out.rejects.push({ reason: `inner instruction ${i}.${j} of ${ix.program}: data is not base58` });
          continue;
        }
        const authority = ix.accounts[0] === EVENT_AUTHORITY[ix.program];
        if (data.length < 16) {
          if (authority) out.rejects.push({ reason: `event instruction ${i}.${j} of ${ix.program} has ${data.length} bytes, too few for its tag and discriminator` });
          continue;
        }
        if (tag(data) !== EVENT_IX_TAG_KEY) continue;
        const raw = decodeEvent(kind, data, 8);
        if (!raw) {
          out.rejects.push({ reason: `unknown ${kind} event discriminator ${Buffer.from(data.subarray(8, 16)).toString('hex')}` });
          continue;
        }
        found.push({ program: kind, raw, parent: parentOf(tx, i, j) });
      }
    }
    return found;
  }

  /** Path 2: `Program data:` lines, attributed with the invoke stack. */
  private logEvents(tx: SolTx, out: DecodedTx): FoundEvent[] {
    const found: FoundEvent[] = [];
    const stack: Array<{ program: string; ix: Instruction | null }> = [];
    let outer = -1;
    let innerPos = -1;
    for (const line of tx.logs!) {
      if (line.startsWith('Program data: ')) {
        const top = stack[stack.length - 1];
        const kind = top && KIND[top.program];
        if (!kind) continue;
        const text = line.slice(14);
        if (!BASE64.test(text)) {
          out.rejects.push({ reason: `a Program data line of ${top.program} is not base64` });
          continue;
        }
        const data = Buffer.from(text, 'base64');
        const raw = decodeEvent(kind, data, 0);
        if (!raw) {
          if (data.length >= 8) out.rejects.push({ reason: `unknown ${kind} event discriminator ${data.subarray(0, 8).toString('hex')}` });
          continue;
        }
        found.push({ program: kind, raw, parent: top.ix });
        continue;
      }
      if (line === 'Log truncated') {
        out.rejects.push({ reason: 'logs truncated: later events of the transaction are missing' });
        break;
      }
      const invoke = INVOKE.exec(line);
      if (invoke) {
        const program = invoke[1]!;
        let ix: Instruction | null;
        if (invoke[2] === '1') {
          outer++;
          innerPos = -1;
          ix = tx.outer[outer] ?? null;
        } else {
          innerPos++;
          ix = tx.inner?.[outer]?.[innerPos] ?? null;
        }
        stack.push({ program, ix: ix && ix.program === program ? ix : null });
        continue;
      }
      if (RETURN.test(line)) stack.pop();
    }
    return found;
  }

  private toIngest(tx: SolTx, found: FoundEvent[], at: number, out: DecodedTx): void {
    const base = { slot: tx.slot!, at };
    const migrations = new Map<string, RawEvent>();
    for (const f of found) if (f.raw.name === 'pump.CompletePumpAmmMigrationEvent' && f.raw.data.pool) migrations.set(String(f.raw.data.pool), f.raw);
    const emittedPools = new Set<string>();
    for (let index = 0; index < found.length; index++) {
      const { raw, parent } = found[index]!;
      const d = raw.data;
      const lacks = (field: string) => out.rejects.push({ reason: `${raw.name} of ${raw.len} bytes lacks ${field}`, event: raw.name });
      switch (raw.name) {
        case 'pump.CreateEvent': {
          if (raw.fields < 6) {
            lacks('mint, bonding_curve or user');
            break;
          }
          const mint = String(d.mint);
          const quote = d.quote_mint && d.quote_mint !== DEFAULT_KEY ? String(d.quote_mint) : WSOL;
          out.events.push({
            type: 'token',
            token_address: mint,
            decimals: PUMP_DECIMALS,
            supply_raw: str(d.token_total_supply) ?? PUMP_SUPPLY,
            symbol: String(d.symbol).slice(0, MAX_SYMBOL),
            name: String(d.name).slice(0, MAX_NAME),
            creator_address: String(d.creator ?? d.user),
            launched_at: at,
            ...(d.is_mayhem_mode !== undefined ? { mayhem_mode: d.is_mayhem_mode } : {}),
            ...base,
          });
          out.events.push({
            ...poolOf(String(d.bonding_curve), mint, quote, 'pumpfun', tx.slot!, at),
            pool_type: 'bonding_curve',
            curve_initial_real_base_raw: str(d.real_token_reserves) ?? PUMP_INITIAL_REAL_TOKENS,
          });
          break;
        }
        case 'pump.TradeEvent': {
          if (raw.fields < 8) {
            lacks('virtual reserves');
            break;
          }
          // Curves quoted in another mint than SOL (2026) carry their amounts in the quote_* fields.
          const quoted = d.quote_mint !== undefined && d.quote_mint !== DEFAULT_KEY && d.real_quote_reserves !== undefined;
          const swap = swapOf(
            tx, index, at, this.curveOf(String(d.mint), parent), String(d.user), d.is_buy ? 'buy' : 'sell', String(d.token_amount),
            String(quoted ? d.quote_amount : d.sol_amount), String(d.virtual_token_reserves), String(quoted ? d.virtual_quote_reserves : d.virtual_sol_reserves),
          );
          if (d.real_token_reserves !== undefined) {
            swap.real_base_reserve_raw = String(d.real_token_reserves);
            swap.real_quote_reserve_raw = String(quoted ? d.real_quote_reserves : d.real_sol_reserves);
          }
          out.events.push(swap);
          break;
        }
        case 'pump_amm.BuyEvent':
        case 'pump_amm.SellEvent': {
          if (raw.fields < 16) {
            lacks('pool or user');
            break;
          }
          const buy = raw.name === 'pump_amm.BuyEvent';
          const pool = String(d.pool);
          const mints = this.poolMints(pool, parent);
          if (!mints) {
            out.rejects.push({ reason: `${raw.name}: mints of pool ${pool} unknown (no parent instruction accounts, no CreatePoolEvent seen)`, event: raw.name });
            break;
          }
          const poolBase = d.pool_base_token_reserves as bigint;
          const poolQuote = d.pool_quote_token_reserves as bigint;
          const baseAmount = (buy ? d.base_amount_out : d.base_amount_in) as bigint;
          const quoteAmount = (buy ? d.quote_amount_in : d.quote_amount_out) as bigint;
          const lpFee = d.lp_fee as bigint;
          // Reserves in the event are before the trade: the LP fee stays in the pool, the
          // protocol and coin-creator fees leave it (SOLANA.md "Semantics").
          const baseAfter = buy ? poolBase - baseAmount : poolBase + baseAmount;
          const quoteAfter = buy ? poolQuote + quoteAmount + lpFee : poolQuote - quoteAmount + lpFee;
          if (baseAfter < 0n || quoteAfter < 0n) {
            out.rejects.push({ reason: `${raw.name}: reserves after the trade are negative`, event: raw.name });
            break;
          }
          out.events.push(
            swapOf(tx, index, at, pool, String(d.user), buy ? 'buy' : 'sell', baseAmount.toString(), quoteAmount.toString(), baseAfter.toString(), quoteAfter.toString()),
          );
          break;
        }
        case 'pump_amm.CreatePoolEvent': {
          if (raw.fields < 16) {
            lacks('pool');
            break;
          }
          const pool = String(d.pool);
          this.remember(pool, String(d.base_mint), String(d.quote_mint));
          const migration = migrations.get(pool);
          emittedPools.add(pool);
          out.events.push({
            ...poolOf(pool, String(d.base_mint), String(d.quote_mint), 'pumpswap', tx.slot!, at),
            ...(migration?.data.bonding_curve ? { migrated_from_pool_address: String(migration.data.bonding_curve) } : {}),
          });
          break;
        }
        case 'pump.CompletePumpAmmMigrationEvent': {
          if (raw.fields < 8) {
            lacks('pool');
            break;
          }
          const pool = String(d.pool);
          const mint = String(d.mint);
          const quote = d.quote_mint && d.quote_mint !== DEFAULT_KEY ? String(d.quote_mint) : WSOL;
          // The pool event comes first (INGEST.md `migration`); once per pool, with its origin.
          if (!emittedPools.has(pool)) {
            emittedPools.add(pool);
            this.remember(pool, mint, quote);
            out.events.push({ ...poolOf(pool, mint, quote, 'pumpswap', tx.slot!, at), migrated_from_pool_address: String(d.bonding_curve) });
          }
          out.events.push({ type: 'migration', token_address: mint, from_pool_address: String(d.bonding_curve), to_pool_address: pool, ...base });
          break;
        }
        // CompleteEvent: the engine sees completion in the trade's real reserves reaching 0.
      }
    }
  }

  /** A PumpSwap trade's mints: accounts #3 and #4 of its buy/sell instruction, else the pool as seen before. */
  private poolMints(pool: string, parent: Instruction | null): { base: string; quote: string } | null {
    if (parent && parent.program === PUMP_AMM_PROGRAM && parent.accounts.length >= 5 && parent.accounts[0] === pool) {
      const mints = { base: parent.accounts[3]!, quote: parent.accounts[4]! };
      this.remember(pool, mints.base, mints.quote);
      return mints;
    }
    return this.pools.get(pool) ?? null;
  }

  private remember(pool: string, base: string, quote: string) {
    if (this.pools.has(pool)) return;
    if (this.pools.size >= CACHE_LIMIT) this.pools.clear();
    this.pools.set(pool, { base, quote });
  }
}

/**
 * A swap, as one object literal (no spreads: this runs per trade). tx_index is 0 where
 * the record does not give the block position (a lone getTransaction).
 */
function swapOf(
  tx: SolTx, index: number, at: number, pool: string, wallet: string, side: 'buy' | 'sell', base: string, quote: string, baseReserve: string, quoteReserve: string,
): Ingest {
  return {
    type: 'swap', tx_hash: tx.signature, slot: tx.slot!, tx_index: tx.txIndex ?? 0, event_index: index, at, pool_address: pool, wallet_address: wallet,
    side, base_amount_raw: base, quote_amount_raw: quote, base_reserve_raw: baseReserve, quote_reserve_raw: quoteReserve,
  };
}

function poolOf(pool: string, base: string, quote: string, dex: 'pumpfun' | 'pumpswap', slot: number, at: number) {
  return { type: 'pool', pool_address: pool, base_address: base, quote_address: quote, dex, pool_type: 'amm', created_at: at, slot } as const;
}

function skip(out: DecodedTx, reason: string): DecodedTx {
  out.skipped = reason;
  return out;
}

function tag(data: Uint8Array): bigint {
  return new DataView(data.buffer, data.byteOffset, 8).getBigUint64(0, true);
}

function eventTime(found: FoundEvent[]): number | null {
  for (const f of found) if (typeof f.raw.data.timestamp === 'bigint') return Number(f.raw.data.timestamp);
  return null;
}

/**
 * The instruction that invoked inner instruction `j` of outer `i`: the nearest earlier
 * one a stack level up (the outer instruction at level 1); in records without stack
 * heights, the nearest earlier instruction of the same program that is no event.
 */
function parentOf(tx: SolTx, i: number, j: number): Instruction | null {
  const list = tx.inner![i]!;
  const self = list[j]!;
  const h = self.stackHeight;
  if (h !== null) {
    if (h - 1 === 1) return tx.outer[i] ?? null;
    for (let k = j - 1; k >= 0; k--) if (list[k]!.stackHeight === h - 1) return list[k]!;
    return null;
  }
  for (let k = j - 1; k >= 0; k--) {
    const ix = list[k]!;
    if (ix.program === self.program && ix.accountCount !== 1) return ix;
  }
  const outer = tx.outer[i];
  return outer && outer.program === self.program ? outer : null;
}

/**
 * `balance` events from the post token balances: one per (owner, mint) the transaction
 * touched, summed over the owner's accounts of that mint in it; a pair only in the pre
 * balances (its account closed) is 0.
 */
function balances(tx: SolTx, at: number, events: Ingest[]): void {
  if (!tx.postTokenBalances.length && !tx.preTokenBalances.length) return;
  // The amount text as recorded; summed (BigInt) only for an owner with two accounts of a mint.
  const sums = new Map<string, { mint: string; owner: string; amount: string }>();
  for (const b of tx.postTokenBalances) {
    if (!b.owner) continue;
    const key = `${b.mint}|${b.owner}`;
    const entry = sums.get(key);
    if (entry) entry.amount = (BigInt(entry.amount) + BigInt(b.amount)).toString();
    else sums.set(key, { mint: b.mint, owner: b.owner, amount: b.amount });
  }
  for (const b of tx.preTokenBalances) {
    if (!b.owner) continue;
    const key = `${b.mint}|${b.owner}`;
    if (!sums.has(key)) sums.set(key, { mint: b.mint, owner: b.owner, amount: '0' });
  }
  for (const { mint, owner, amount } of sums.values()) {
    events.push({ type: 'balance', token_address: mint, wallet_address: owner, balance_raw: amount, slot: tx.slot!, at });
  }
}
