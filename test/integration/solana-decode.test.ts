import { describe, expect, it } from 'vitest';
import bs58 from 'bs58';
import type { Engine } from '../../engine/system.ts';
import { SolanaDecoder, type DecodePath, type DecodedTx } from '../../engine/sources/solana/decode.ts';
import { WSOL } from '../../engine/model/index.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { plain, readFixture, referenceTransactions, toYellowstone, type ReferenceEvent, type ReferenceTx } from '../helpers/solana.ts';

/**
 * Every recorded transaction of ../shared/fixtures/solana decoded: the raw fields
 * equal the reference decoder's, through each path; the INGEST events pass the gate;
 * and a create, a buy, a sell, a bundle, a routed trade and a PumpSwap trade checked by
 * hand against what the chain recorded (instruction accounts, vault balances).
 */

const REFERENCE = referenceTransactions();
/** The blockSubscribe item carries no slot (its block does): the test gives it one. */
const contextOf = (tx: ReferenceTx) => (tx.slot === null ? { slot: 1 } : {});

function decodeOne(local: string, path?: DecodePath, decoder = new SolanaDecoder(), ctx = {}): DecodedTx {
  const all = [...decoder.decodeValue(readFixture(local), 'auto', ctx, { path })];
  expect(all).toHaveLength(1);
  return all[0]!;
}

const byFile = (file: string) => REFERENCE.find((t) => t.file === file)!;

function expectRaw(decoded: DecodedTx, reference: ReferenceEvent[]) {
  expect(decoded.found.map((f) => f.raw.name)).toEqual(reference.map((r) => r.event));
  decoded.found.forEach(({ raw }, i) => {
    const ref = reference[i]!;
    expect({ len: raw.len, fields: raw.fields, trailing_bytes: raw.trailing_bytes, cut: raw.cut }).toEqual({
      len: ref.len,
      fields: ref.fields,
      trailing_bytes: ref.trailing_bytes,
      cut: false,
    });
    const ours = Object.fromEntries(Object.entries(raw.data).map(([k, v]) => [k, plain(v)]));
    const theirs = Object.fromEntries(Object.entries(ref.data).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v]));
    expect(ours).toEqual(theirs);
  });
}

describe('Solana decoder on the recorded transactions', () => {
  it('finds 13 transactions in the reference, each in a fixture', () => {
    expect(REFERENCE).toHaveLength(13);
  });

  for (const tx of REFERENCE) {
    it(`${tx.local}: raw events equal the reference through self-CPI and through logs`, () => {
      const auto = decodeOne(tx.local, undefined, undefined, contextOf(tx));
      expect(auto.skipped).toBeUndefined();
      expect(auto.signature).toBe(tx.signature);
      expect(auto.path).toBe('self-cpi'); // every fixture has self-CPI events: the logs are not read
      expect(auto.rejects).toEqual([]);
      expectRaw(decodeOne(tx.local, 'self-cpi', undefined, contextOf(tx)), tx.events_selfcpi);
      const logs = decodeOne(tx.local, 'logs', undefined, contextOf(tx));
      expect(logs.path).toBe('logs');
      expectRaw(logs, tx.events_logs);
      // Both paths make the same INGEST events.
      expect(logs.events).toEqual(auto.events);
      if (tx.slot !== null) expect(auto.events.every((e) => e.slot === tx.slot)).toBe(true);
      if (tx.blockTime !== null) expect(auto.events.every((e) => (e.at ?? e.created_at) === tx.blockTime! * 1000)).toBe(true);
    });
  }

  describe('into the gate', () => {
    const temp = useTempEngine();
    const deadLetters = (engine: Engine) => [...engine.storage.deadLetters.getRange()].map((e) => e.value);

    it('every event of every fixture is applied, none dead-lettered; a second pass is all duplicates', async () => {
      const engine = await temp.open();
      const decoder = new SolanaDecoder();
      const events = REFERENCE.flatMap((tx) => decodeOne(tx.local, undefined, decoder, contextOf(tx)).events);
      const types = new Set(events.map((e) => e.type));
      expect([...types].sort()).toEqual(['balance', 'pool', 'swap', 'token']);
      for (const event of events) {
        const result = await engine.ingest(event);
        expect(result.status, JSON.stringify(event)).toBe('applied');
      }
      expect(deadLetters(engine)).toEqual([]);
      for (const event of events) expect((await engine.ingest(event)).status).toBe('duplicate');
      expect(engine.query.status()).toMatchObject({ ingested: events.length, deadLetters: 0 });
    });
  });

  describe('checked by hand', () => {
    it('a create: token and bonding-curve pool from CreateEvent, then the creator buy (jeffro/pumpfun_create_0)', () => {
      const d = decodeOne('jeffro/pumpfun_create_0.json');
      const mint = '5dNYcCZXEGfGgbdUdq7MMR7KLsNJLLLgL83wLH8Fpump';
      const curve = 'CQrqvWERJtEjw2rCCQV6EqfM6V6jzTuKjhJjKNFmGB7r';
      const at = 1727637145000;
      expect(d.events.filter((e) => e.type !== 'balance')).toEqual([
        {
          type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol: 'MOODOG', name: 'MOO DOG',
          creator_address: '6xo262KbDXepWbF3vPTrFXysr5vJwk3mozBXmXk3hmMx', launched_at: at, slot: 292743221, at,
        },
        {
          type: 'pool', pool_address: curve, base_address: mint, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve',
          created_at: at, curve_initial_real_base_raw: '793100000000000', slot: 292743221,
        },
        {
          type: 'swap', tx_hash: '2s393PSYYxJJJfGiwHf18HZeC68nZs44ssbeB4aAkeYMyd1dyiiu3yVmGyRWZuArk5HzYDgVxYfhKLYd2CJ8kCBj',
          slot: 292743221, tx_index: 0, event_index: 1, at, pool_address: curve, wallet_address: '6xo262KbDXepWbF3vPTrFXysr5vJwk3mozBXmXk3hmMx',
          side: 'buy', base_amount_raw: '34612903225806', quote_amount_raw: '1000000000',
          // 1 SOL on a fresh curve: 30 + 1 SOL virtual, 1.073e15 - 34.6e12 tokens.
          base_reserve_raw: '1038387096774194', quote_reserve_raw: '31000000000',
          real_base_reserve_raw: '758487096774194', real_quote_reserve_raw: '1000000000',
        },
      ]);
      // The creator holds what they bought; the curve holds the rest of the real tokens... and the 206.9e12 not on sale.
      const balances = d.events.filter((e) => e.type === 'balance');
      expect(balances).toContainEqual(expect.objectContaining({ wallet_address: '6xo262KbDXepWbF3vPTrFXysr5vJwk3mozBXmXk3hmMx', token_address: mint, balance_raw: '34612903225806' }));
      expect(balances).toContainEqual(expect.objectContaining({ wallet_address: curve, token_address: mint, balance_raw: String(1e15 - 34612903225806) }));
    });

    it('a buy: the pool is the bonding curve PDA, the same account #3 of the pump buy instruction (jeffro/pumpfun_buy_0)', () => {
      const d = decodeOne('jeffro/pumpfun_buy_0.json');
      const swap = d.events.find((e) => e.type === 'swap')!;
      expect(swap).toMatchObject({
        pool_address: 'DizioTk7HKkYcVjiKuB6wdFXtGSisGX57mwG9PFwxXxm', wallet_address: 'EfbbhahGNuhqEraRZXrwETfsaKxScngEttdQixWAW4WE',
        side: 'buy', base_amount_raw: '56716561396327', quote_amount_raw: '3000000000',
        base_reserve_raw: '752265121589393', quote_reserve_raw: '42790764976', real_base_reserve_raw: '472365121589393', real_quote_reserve_raw: '12790764976',
        slot: 290506981, at: 1726647738000, event_index: 0, tx_index: 0,
      });
      expect(d.found[0]!.parent!.accounts[3]).toBe(swap.pool_address);
      expect(d.found[0]!.parent!.accounts[2]).toBe('D66sbPtYqLnwPYcUqjDktrQtb52CnfF77C3sdpNpR8Si');
    });

    it("without instructions (logs only), a trade's pool is the PDA of its mint, which equals the curve the instruction names, for every fixture", () => {
      const decoder = new SolanaDecoder();
      for (const tx of REFERENCE) {
        const full = decodeOne(tx.local, undefined, decoder, contextOf(tx));
        for (const f of full.found.filter((e) => e.raw.name === 'pump.TradeEvent')) expect(decoder.bondingCurve(String(f.raw.data.mint))).toBe(f.parent!.accounts[3]);
      }
      // A logsSubscribe-like record: logs, no instructions; the same swaps.
      const record = structuredClone((readFixture('jeffro/pumpfun_buy_bundle.json') as any[])[0]);
      const expected = decodeOne('jeffro/pumpfun_buy_bundle.json').events.filter((e) => e.type === 'swap');
      record.transaction.message.instructions = [];
      delete record.meta.innerInstructions;
      const logsOnly = [...new SolanaDecoder().decodeValue(record)][0]!;
      expect(logsOnly.path).toBe('logs');
      expect(logsOnly.found.every((f) => f.parent === null)).toBe(true);
      expect(logsOnly.events.filter((e) => e.type === 'swap')).toEqual(expected);
    });

    it('a sell: side sell, SOL out of the curve (jeffro/pumpfun_sell_0)', () => {
      const d = decodeOne('jeffro/pumpfun_sell_0.json');
      expect(d.events.find((e) => e.type === 'swap')).toMatchObject({
        pool_address: '6cSXbsWdUE86Nvwq8UZSQS8X8v4Rz3TP39V6gSb9Rg6f', wallet_address: '4DdrfiDHpmx55i4SPssxVzS9ZaKLb8qr45NKY9Er9nNh',
        side: 'sell', base_amount_raw: '592443959000000', quote_amount_raw: '37437283903',
        base_reserve_raw: '1068978927601996', quote_reserve_raw: '30112848041', real_quote_reserve_raw: '112848041',
      });
    });

    it('a bundle of 4 buys in one transaction: event_index 0..3, each buy moving the curve on from the last', () => {
      const d = decodeOne('jeffro/pumpfun_buy_bundle.json');
      const swaps = d.events.filter((e) => e.type === 'swap');
      expect(swaps.map((s) => [s.event_index, s.wallet_address, s.base_amount_raw, s.quote_reserve_raw])).toEqual([
        [0, 'Gh6D6DZcASQLc2XoLpctT74KbRr4nrHF8wNptweckHoA', '12373970345963', '31886100226'],
        [1, '7SPkzf8DSxdemSKMEEKquRKEYrdDjcuHaQwac5nvnB4b', '12100159018198', '32272920994'],
        [2, 'GdCFP1doq784rQTHJDuvpLchVWoMtJwdAM8MQTCHWTuz', '12023935360031', '32666715270'],
        [3, '8rL9duqqeBRzZZyiz77xgfzDUdbR99TPjmVk5D1LNHuL', '12044860698416', '33070949359'],
      ]);
      expect(new Set(swaps.map((s) => s.pool_address))).toEqual(new Set(['Ak4Cu8ZTTbaLvAubaCSpzdrEKbpwMpkF4RArSoRLRvMF']));
      // Each buy's SOL is the step of the virtual SOL reserve: 31,886,100,226 + 386,820,768 = 32,272,920,994.
      for (let i = 1; i < 4; i++) {
        expect(BigInt(swaps[i]!.quote_reserve_raw as string) - BigInt(swaps[i - 1]!.quote_reserve_raw as string)).toBe(BigInt(swaps[i]!.quote_amount_raw as string));
      }
    });

    it('a routed (CPI) trade: Photon calls pump at stack height 2, its event at 3; the wallet is the trader, not the router', () => {
      const d = decodeOne('jeffro/photon_pumpfun_buy_0.json');
      expect(d.found[0]!.parent!.stackHeight).toBe(2);
      expect(d.events.find((e) => e.type === 'swap')).toMatchObject({
        pool_address: 'GPgXsGCFjzNNAZtUvxmNo3G3yEouoao1XdkK1SukitdS', wallet_address: 'DfMxre4cKmvogbLrPigxmibVTTQDuzjdXojWzjCXXhzj',
        side: 'buy', base_amount_raw: '5609742876530', quote_amount_raw: '392079207', quote_reserve_raw: '47628933894',
      });
    });

    it('a PumpSwap trade through an aggregator (v0, lookup tables): mints from the parent buy, reserves after = the vaults after', () => {
      const d = decodeOne('solana-streamer/pumpswap_cpi_tx.json');
      const pool = '4w2cysotX6czaUGmmWg13hDpY4QEMG2CzeKYEQyK9Ama';
      const base = '5UUH9RTDiSpq6HKS6bp4NdU9PNJpXRXuiw6ShBTBhgH2';
      // The parent PumpSwap buy (stack height 3): pool, user, global_config, base_mint, quote_mint, ...,
      // its accounts resolved through meta.loadedAddresses.
      expect(d.found[0]!.parent!.accounts.slice(0, 5)).toEqual([pool, '6TYDxGmVxkBPBmEfnmLXx6jVff9LknsjRHqdTjVyZmG8', 'ADyA8hdefvWN2dbGGWFotbzWxrAvLW83WG6QCVXvJKqw', base, WSOL]);
      const swap = d.events.find((e) => e.type === 'swap')!;
      // Before: 30,819,310,537,017 base and 5,338,304,399,191 quote; 5,544,465,819 base out, 960,546,212 + 1,921,093 LP fee in.
      expect(swap).toMatchObject({
        pool_address: pool, side: 'buy', base_amount_raw: '5544465819', quote_amount_raw: '960546212',
        base_reserve_raw: '30813766071198', quote_reserve_raw: '5339266866496', slot: 356503799, at: 1753789195000,
      });
      expect(swap.real_base_reserve_raw).toBeUndefined();
      // The pool's vaults after the transaction hold exactly those reserves.
      const vaults = d.events.filter((e) => e.type === 'balance' && e.wallet_address === pool);
      expect(vaults.map((v) => [v.token_address, v.balance_raw]).sort()).toEqual([[base, '30813766071198'], [WSOL, '5339266866496']].sort());
    });
  });

  it('a failed transaction is skipped, a record with no meta or unresolvable accounts is skipped with its reason', () => {
    const decoder = new SolanaDecoder();
    const tx = readFixture('jeffro/pumpfun_buy_0.json') as any[];
    const failed = structuredClone(tx[0]);
    failed.meta.err = { InstructionError: [2, { Custom: 6002 }] };
    expect([...decoder.decodeValue(failed)][0]).toMatchObject({ skipped: 'failed transaction (meta.err set)', events: [] });
    const noMeta = structuredClone(tx[0]);
    delete noMeta.meta;
    expect([...decoder.decodeValue(noMeta)][0]!.skipped).toMatch(/no meta/);
    const badIndex = structuredClone(tx[0]);
    badIndex.meta.innerInstructions[0].instructions[0].programIdIndex = 99;
    expect([...decoder.decodeValue(badIndex)][0]!.skipped).toMatch(/account index 99 does not resolve/);
    expect([...decoder.decodeValue('nonsense')][0]!.skipped).toMatch(/not a transaction/);
  });

  it('a log line that is not base64, an unknown discriminator and truncated logs are rejects with their reason', () => {
    const tx = structuredClone((readFixture('jeffro/pumpfun_buy_0.json') as any[])[0]);
    const logs: string[] = tx.meta.logMessages;
    const at = logs.findIndex((l) => l.startsWith('Program data: '));
    logs.splice(at, 0, 'Program data: not*base64!', `Program data: ${Buffer.from('0102030405060708aabb', 'hex').toString('base64')}`);
    const d = [...new SolanaDecoder().decodeValue(tx, 'auto', {}, { path: 'logs' })][0]!;
    expect(d.rejects.map((r) => r.reason)).toEqual([
      'a Program data line of 6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P is not base64',
      'unknown pump event discriminator 0102030405060708',
    ]);
    expect(d.events.filter((e) => e.type === 'swap')).toHaveLength(1);
    tx.meta.logMessages = [...logs.slice(0, at), 'Log truncated'];
    const truncated = [...new SolanaDecoder().decodeValue(tx, 'auto', {}, { path: 'logs' })][0]!;
    expect(truncated.rejects.map((r) => r.reason)).toContain('logs truncated: later events of the transaction are missing');
    expect(truncated.events.filter((e) => e.type === 'swap')).toHaveLength(0);
  });

  it('a signature decodes to 64 bytes (the base64 wire transactions included)', () => {
    for (const tx of REFERENCE) expect(bs58.decode(decodeOne(tx.local, undefined, undefined, contextOf(tx)).signature)).toHaveLength(64);
  });
});

describe('Solana decoder on Yellowstone updates', () => {
  const JSON_ENCODED = REFERENCE.filter((t) => t.local.startsWith('jeffro/'));

  it.each(['buffer', 'base64'] as const)('each json-encoded fixture as a SubscribeUpdate (bytes as %s) decodes to the same events, with its block index', (bytes) => {
    expect(JSON_ENCODED).toHaveLength(8);
    for (const [n, tx] of JSON_ENCODED.entries()) {
      const rpc = (readFixture(tx.local) as any[])[0];
      const update = toYellowstone(rpc, 7 + n, bytes);
      const [decoded] = [...new SolanaDecoder().decodeValue(bytes === 'base64' ? JSON.parse(JSON.stringify(update)) : update, 'yellowstone')];
      const expected = decodeOne(tx.local).events.map((e) => (e.type === 'swap' ? { ...e, tx_index: 7 + n } : e));
      expect(decoded!.skipped, tx.local).toBeUndefined();
      expect(decoded!.events, tx.local).toEqual(expected);
      expectRaw(decoded!, tx.events_selfcpi);
    }
  });

  it('a failed update is skipped; --format rpc refuses an update and --format yellowstone an RPC record', () => {
    const rpc = (readFixture('jeffro/pumpfun_sell_0.json') as any[])[0];
    const failed = toYellowstone({ ...rpc, meta: { ...rpc.meta, err: { InstructionError: [0, 'Custom'] } } }, 0);
    expect([...new SolanaDecoder().decodeValue(failed)][0]!.skipped).toBe('failed transaction (meta.err set)');
    expect([...new SolanaDecoder().decodeValue(toYellowstone(rpc, 0), 'rpc')][0]!.skipped).toMatch(/no meta/);
    expect([...new SolanaDecoder().decodeValue(rpc, 'yellowstone')][0]!.skipped).toMatch(/not a Yellowstone update/);
  });
});
