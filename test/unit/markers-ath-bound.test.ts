import { describe, expect, it } from 'vitest';
import { MARKERS_ATH_CACHED_MAX } from '../../engine/bounds.ts';
import { WSOL, type PoolTradeEvent, type StoredTrade } from '../../engine/model/index.ts';
import { topics } from '../../engine/topics/names.ts';
import { MarkerStreams } from '../../engine/topics/markers.ts';
import { RecordingSink } from '../helpers/recording-sink.ts';
import { useTempStorage } from '../helpers/fixtures.ts';

/**
 * The markers stream's ATH cache (engine/topics/markers.ts) is bounded by
 * MARKERS_ATH_CACHED_MAX tokens, not by every token ever traded (issue 25: a launchpad's
 * tokens die within minutes, a replay goes through hundreds of thousands), and a token
 * dropped from it is judged against its stored ATH mark as before: a lower trade marks
 * nothing, a trade past the step marks a new ATH and withdraws the previous one.
 */
const temp = useTempStorage('mds-markers-ath-');

/** A trade at market cap `mcapUsd` (quote in USD at 1), base token `token`. */
function trade(token: string, mcapUsd: number, at: number, n: number): PoolTradeEvent {
  const t: StoredTrade = [at, n, 0, 0, 1, `wallet${n % 97}`, 1_000, 1, 0.001, 1, mcapUsd, `tx${n}`];
  return { type: 'pool.trade', pool_address: `pool-${token}`, base_address: token, quote_address: WSOL, trade: t } as PoolTradeEvent;
}

describe('markers: the ATH cache', () => {
  it('holds at most MARKERS_ATH_CACHED_MAX tokens after more have traded, and a token dropped from it is judged by its stored ATH', async () => {
    const sink = new RecordingSink();
    const markers = new MarkerStreams({ storage: temp.storage, sink: () => sink });
    const first = 'token-0';
    sink.listen(topics.markers(first));
    let n = 0;
    markers.onTrade(trade(first, 20_000, 1_000, n++), null);
    const tokens = MARKERS_ATH_CACHED_MAX + 500;
    for (let i = 1; i < tokens; i++) markers.onTrade(trade(`token-${i}`, 20_000, 1_000 + i, n++), null);
    expect(markers.athCached).toBeLessThanOrEqual(MARKERS_ATH_CACHED_MAX);
    await temp.storage.marks.committed;
    // token-0 was cached first: dropped. Below its ATH plus the step: no mark.
    const sent = sink.framesOf(topics.markers(first)).length;
    expect(sent).toBe(1);
    markers.onTrade(trade(first, 24_000, 90_000, n++), null);
    expect(sink.framesOf(topics.markers(first)).length).toBe(sent);
    // Past the step: a new ATH mark, and the previous one withdrawn.
    markers.onTrade(trade(first, 30_000, 91_000, n++), null);
    const frames = sink.framesOf(topics.markers(first)).slice(sent).map((f) => JSON.parse(f) as { data: { event: string; type?: string; marker_id: string } });
    expect(frames.map((f) => f.data.event).sort()).toEqual(['mark', 'remove']);
    expect(frames.find((f) => f.data.event === 'remove')!.data.marker_id).toBe(`ath:tx0:0`);
    expect(markers.athCached).toBeLessThanOrEqual(MARKERS_ATH_CACHED_MAX);
  });
});
