import { CandleRows, type CandleRow } from '../../engine/model/index.ts';
import { asBinary } from 'lmdb';
import { Packr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { encodeSegment } from '../../storage/candles.repo.ts';
import { MsgpackWriter } from '../../storage/msgpack-writer.ts';
import { useTempStorage } from '../helpers/fixtures.ts';

/** Numbers at every boundary of msgpack's integer forms, and ones that are not integers. */
const EDGES = [
  0, 1, 0x1f, 0x20, 0x3f, 0x40, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0xffffffff, 0x100000000, 2 ** 53, 2 ** 53 + 2, -1, -0x20, -0x21, -0x80,
  -0x81, -0x8000, -0x8001, -(2 ** 31), -(2 ** 31) - 1, 0.5, -0.5, 1e-300, 1.7976931348623157e308, 1767225600000, 3.14159, Infinity, -Infinity,
];

describe('MsgpackWriter', () => {
  describe('through LMDB', () => {
    const temp = useTempStorage();

    it('writes numbers that the candles database reads back as the same numbers', async () => {
      const { storage } = temp;
      const w = new MsgpackWriter();
      w.arrayHeader(EDGES.length);
      w.ensure(9 * EDGES.length);
      for (const x of EDGES) w.number(x);
      await storage.candles.put(['edges'], asBinary(w.end()));
      expect(storage.candles.get(['edges'])).toEqual(EDGES);
      // NaN has no equal: read back on its own.
      w.arrayHeader(1);
      w.ensure(9);
      w.number(NaN);
      await storage.candles.put(['nan'], asBinary(w.end()));
      expect(Number.isNaN((storage.candles.get(['nan']) as number[])[0])).toBe(true);
    });
  });

  it('never writes a fixint from 0x40 up, which a record-aware reader takes for a record', () => {
    const w = new MsgpackWriter();
    w.ensure(9 * 0x40);
    for (let x = 0x40; x < 0x80; x++) w.number(x);
    const bytes = w.end();
    for (let k = 0; k < bytes.length; k += 2) expect(bytes[k]).toBe(0xcc);
  });

  it('hands out values that later writes never overwrite, across slabs', () => {
    const w = new MsgpackWriter();
    const values: Buffer[] = [];
    // 3 MiB of values: past the 1 MiB slab, twice.
    for (let v = 0; v < 3 * 1024; v++) {
      w.arrayHeader(113);
      w.ensure(9 * 113);
      for (let k = 0; k < 113; k++) w.number(v + k / 8);
      values.push(w.end());
    }
    const unpack = new Packr().unpack.bind(new Packr());
    values.forEach((bytes, v) => expect(unpack(bytes)).toEqual(Array.from({ length: 113 }, (_, k) => v + k / 8)));
  });
});

describe('encodeSegment', () => {
  it("writes a segment's CandleRows byte for byte as msgpackr packs them", () => {
    const rows: CandleRow[] = [
      [0, 1767225600000, 300000001, 1048577, 300000002, 3, 1.5e-8, 1.6e-8, 1.4e-8, 1.55e-8, 30.5, 32, 28, 31, 0.25, 1e-18],
      [0, 1767225601000, 300000004, 2, 300000004, 2, 2e-8, 2e-8, 2e-8, 2e-8, 40, 40, 40, 40, 17, 0, 3e-6, 3e-6, 3e-6, 3e-6, 6000.5, 6000.5, 6000.5, 6000.5, 2550, 0],
      [0, 1767225602000, 300000005, 0, 300000009, 7, 2e-8, 2e-8, 2e-8, 2e-8, 40, 40, 40, 40, 17, 0, 3e-6, 3e-6, 3e-6, 3e-6, 6000.5, 6000.5, 6000.5, 6000.5, 2550, 0, 300000006, 1, 300000008, 4],
    ];
    const bytes = encodeSegment(CandleRows.fromRows(rows), [0, 1, 2], 0);
    // The second is a candle of one trade: stored as [iv, start, slot, sub, price, market cap, volume, USD price, USD market cap, USD volume].
    const short = [0, 1767225601000, 300000004, 2, 2e-8, 40, 17, 3e-6, 6000.5, 2550];
    expect(Buffer.compare(bytes, new Packr().pack([rows[0], short, rows[2]]))).toBe(0);
    expect(encodeSegment(CandleRows.fromRows(rows), [2, 0], 1)).toEqual(new Packr().pack([rows[0]]));
  });
});
