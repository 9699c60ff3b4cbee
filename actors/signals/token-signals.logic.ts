import {
  Cooldowns,
  cooldownKey,
  linearRamp,
  logRamp,
  SIGNAL_DEFAULTS,
  type Signal,
  type SignalThresholds,
  type SignalTrade,
  type TokenSignalKind,
} from './signals.rules.ts';

/**
 * The token signals of one token (DECISIONS.md: volume_spike, price_breakout,
 * smart_money_buy, kol_buy, dev_sell, whale_buy, migration, almost_bonded) and the
 * token's cluster_buy (a wallet signal whose state is the token's: its recent labeled
 * buys). Plain mutable state, no I/O, no clock: times are the events' `at`, so a replay
 * under `--clock event` gives the same signals. Formulas: SIGNALS.md.
 */

/** What the signals read besides the trade (the wiring fills it from the labels, token and pool actors). */
export interface TradeContext {
  /** Labels in force on the trader when the trade applies. */
  labels: readonly string[];
  /** The token's creator (the dev), null when unknown. */
  creator_address: string | null;
  /** Whole tokens; null before the token's supply is known. */
  total_supply: number | null;
  /** The traded pool's curve after the trade; null for a pool without a curve. */
  curve: { progress_pct: number; complete: boolean; gain_5m_pct: number | null } | null;
}

/** A curve's graduation (router: `pool.graduated`), with when the token launched (its first trade, or `launched_at`). */
export interface GraduationInput {
  pool_address: string;
  token_address: string;
  migrated_to_pool_address: string | null;
  at: number;
  launched_at: number | null;
}

/** A TokenSignals as plain data (the token-signals actor's snapshot). */
export interface TokenSignalsData {
  cooldowns: Array<[string, number]>;
  /**
   * The ring's Float64Array as bytes (msgpack writes them as one binary: a copy, not 130
   * numbers). Written before the sparse form; read still.
   */
  volume?: Uint8Array;
  /**
   * The ring's non-zero buckets, [slot, usd] pairs flat, and its length: most tokens
   * trade in a few of its 130 buckets, and a ring of 1 KB of zeros made the token-signals
   * snapshot ~1.3 KB where it is ~0.2 KB so (written and LZ4-compressed at every checkpoint).
   */
  volumeSparse?: number[];
  volumeLength?: number;
  newest: number | null;
  /** The running sums as they were (a sum computed again could differ in its last bits: the same events must give the same numbers). */
  recentUsd?: number;
  totalUsd?: number;
  firstTradeAt: number | null;
  athUsd: number;
  athAt: number;
  progress: Array<[string, number]>;
  cluster: { wallet: string; at: number; usd: number }[];
}

export class TokenSignals {
  readonly token: string;
  private readonly t: Readonly<SignalThresholds>;
  private cooldowns = new Cooldowns();
  /** Rolling USD volume: a ring of buckets of `bucketMs`, `newest` the absolute number of the newest bucket. */
  private readonly volume: Float64Array;
  private newest = -Infinity;
  /** The ring slot of `newest` (ringSlot(newest)), kept as bucket numbers move on: the hot path does integer steps, not a floating-point modulo per bucket. */
  private newestSlot = 0;
  /** Running sums of the ring (totalUsd) and of its last windowBuckets buckets up to `newest` (recentUsd): no pass over the ring per trade. */
  private recentUsd = 0;
  private totalUsd = 0;
  private readonly windowBuckets: number;
  private firstTradeAt = Infinity;
  private athUsd = 0;
  private athAt = 0;
  /** Last curve progress seen per curve pool (crossings). */
  private readonly progress = new Map<string, number>();
  /** Labeled buys of the last cluster window, oldest first. */
  private cluster: { wallet: string; at: number; usd: number }[] = [];

  constructor(token: string, thresholds: Readonly<SignalThresholds> = SIGNAL_DEFAULTS) {
    this.token = token;
    this.t = thresholds;
    const v = thresholds.volume_spike;
    this.volume = new Float64Array(Math.ceil((v.windowMs + v.baselineMs) / v.bucketMs));
    this.windowBuckets = Math.round(v.windowMs / v.bucketMs);
  }

  /** Plain data for a snapshot (fromData gives the same state back). */
  toData(): TokenSignalsData {
    return {
      cooldowns: this.cooldowns.toData(),
      volumeSparse: sparse(this.volume),
      volumeLength: this.volume.length,
      newest: Number.isFinite(this.newest) ? this.newest : null,
      recentUsd: this.recentUsd,
      totalUsd: this.totalUsd,
      firstTradeAt: Number.isFinite(this.firstTradeAt) ? this.firstTradeAt : null,
      athUsd: this.athUsd,
      athAt: this.athAt,
      progress: [...this.progress],
      cluster: this.cluster,
    };
  }

  static fromData(token: string, data: TokenSignalsData, thresholds: Readonly<SignalThresholds> = SIGNAL_DEFAULTS): TokenSignals {
    const s = new TokenSignals(token, thresholds);
    s.cooldowns = new Cooldowns(data.cooldowns);
    // A ring of another length (bucketMs or the windows changed in the config) starts empty.
    const same = data.volumeSparse !== undefined ? data.volumeLength === s.volume.length : data.volume?.byteLength === s.volume.byteLength;
    if (same && data.volumeSparse !== undefined) for (let i = 0; i < data.volumeSparse.length; i += 2) s.volume[data.volumeSparse[i]!] = data.volumeSparse[i + 1]!;
    else if (same) new Uint8Array(s.volume.buffer).set(data.volume!);
    s.newest = same && data.newest !== null ? data.newest : -Infinity;
    if (Number.isFinite(s.newest)) {
      s.newestSlot = ringSlot(s.newest, s.volume.length);
      let recent = 0;
      let total = 0;
      for (let i = 0; i < s.volume.length; i++) {
        const x = s.volume[(((s.newest - i) % s.volume.length) + s.volume.length) % s.volume.length]!;
        total += x;
        if (i < s.windowBuckets) recent += x;
      }
      s.recentUsd = data.recentUsd ?? recent;
      s.totalUsd = data.totalUsd ?? total;
    }
    s.firstTradeAt = data.firstTradeAt ?? Infinity;
    s.athUsd = data.athUsd;
    s.athAt = data.athAt;
    for (const [pool, progress] of data.progress) s.progress.set(pool, progress);
    s.cluster = data.cluster;
    return s;
  }

  /** How many cooldown keys it holds (the actor prunes past a few). */
  get cooldownCount(): number {
    return this.cooldowns.size;
  }

  /** The signals one trade of the token fires, in kind order, pushed to `out` (returned). */
  onTrade(trade: SignalTrade, ctx: TradeContext, out: Signal[] = []): Signal[] {
    if (trade.at < this.firstTradeAt) this.firstTradeAt = trade.at;
    this.volumeSpike(trade, out);
    this.priceBreakout(trade, out);
    if (trade.side === 'buy') {
      this.labeledBuy('smart_money_buy', trade, ctx, out);
      this.labeledBuy('kol_buy', trade, ctx, out);
    } else this.devSell(trade, ctx, out);
    if (trade.side === 'buy') this.whaleBuy(trade, ctx, out);
    if (ctx.curve !== null) this.almostBonded(trade, ctx.curve, out);
    if (trade.side === 'buy') this.clusterBuy(trade, ctx, out);
    return out;
  }

  /** migration: a curve of the token graduated. */
  onGraduated(g: GraduationInput): Signal[] {
    const m = this.t.migration;
    const pool = g.migrated_to_pool_address ?? g.pool_address;
    if (!this.cooldowns.admit(cooldownKey('migration', this.token, []), g.at, m.cooldownMs)) return [];
    const launched = g.launched_at ?? (Number.isFinite(this.firstTradeAt) ? this.firstTradeAt : null);
    const tookMs = launched === null ? null : Math.max(0, g.at - launched);
    const score = tookMs === null ? 0.5 : 1 - 0.5 * logRamp(Math.max(tookMs, m.fastMs), m.fastMs, m.slowMs);
    return [
      this.signal('migration', g.pool_address, pool, [], g.at, score, {
        from_pool_address: g.pool_address,
        to_pool_address: g.migrated_to_pool_address,
        time_to_graduate_ms: tookMs,
      }),
    ];
  }

  /** Forgets cooldowns past the longest one (call from the engine-clock ticker). */
  prune(now: number, keepMs: number): void {
    this.cooldowns.prune(now, keepMs);
  }

  private signal(kind: TokenSignalKind | 'cluster_buy', trigger: string, pool: string | null, wallets: string[], at: number, score: number, detail: Signal['detail']): Signal {
    return { signal_id: `${kind}:${this.token}:${trigger}`, kind, token_address: this.token, pool_address: pool, wallet_addresses: wallets, at, score, detail };
  }

  /**
   * volume_spike: recent = USD volume of the last `windowMs` (up to the newest bucket);
   * baseline = USD volume of the `baselineMs` before it, scaled to one window over the
   * part of it the token has existed, at least `baselineFloorUsd`; fires when recent ≥
   * minVolumeUsd, recent / baseline ≥ minRatio and the token is minAgeMs old.
   */
  private volumeSpike(trade: SignalTrade, out: Signal[]): void {
    const v = this.t.volume_spike;
    if (trade.amount_usd === null) return;
    const n = this.volume.length;
    const windowBuckets = this.windowBuckets;
    const b = Math.floor(trade.at / v.bucketMs);
    const volume = this.volume;
    let slot: number;
    if (b > this.newest) {
      const k = b - this.newest;
      if (!Number.isFinite(this.newest) || k >= n) {
        volume.fill(0);
        this.recentUsd = 0;
        this.totalUsd = 0;
        slot = ringSlot(b, n);
      } else {
        // Buckets leaving the recent window join the baseline; those leaving the ring are
        // cleared. Slots step from newest's (bucket newest − windowBuckets + i, newest + i).
        const head = this.newestSlot;
        const leaving = k < windowBuckets ? k : windowBuckets;
        for (let i = 1, x = head - windowBuckets + 1; i <= leaving; i++, x++) this.recentUsd -= volume[x < 0 ? x + n : x >= n ? x - n : x]!;
        for (let i = 1, x = head + 1; i <= k; i++, x++) {
          const at = x >= n ? x - n : x;
          this.totalUsd -= volume[at]!;
          volume[at] = 0;
        }
        slot = head + k >= n ? head + k - n : head + k;
      }
      this.newest = b;
      this.newestSlot = slot;
    } else if (b <= this.newest - n) return; // older than the ring
    else {
      const x = this.newestSlot - (this.newest - b);
      slot = x < 0 ? x + n : x;
    }
    volume[slot]! += trade.amount_usd;
    this.totalUsd += trade.amount_usd;
    if (b > this.newest - windowBuckets) this.recentUsd += trade.amount_usd;
    const recent = this.recentUsd;
    // Rounding of the running sums never makes a part negative.
    const base = Math.max(0, this.totalUsd - recent);
    const age = trade.at - this.firstTradeAt;
    if (recent < v.minVolumeUsd || age < v.minAgeMs) return;
    const windowStart = (this.newest - windowBuckets + 1) * v.bucketMs;
    const baselineSpanMs = Math.min(v.baselineMs, Math.max(v.bucketMs, windowStart - this.firstTradeAt));
    const baseline = Math.max((base * v.windowMs) / baselineSpanMs, v.baselineFloorUsd);
    const ratio = recent / baseline;
    if (ratio < v.minRatio) return;
    if (!this.cooldowns.admit(cooldownKey('volume_spike', this.token, []), trade.at, v.cooldownMs)) return;
    out.push(
      this.signal('volume_spike', trade.trade_id, trade.pool_address, [], trade.at, logRamp(ratio, v.minRatio, v.fullRatio), {
        volume_usd: recent,
        baseline_volume_usd: baseline,
        ratio,
        window_ms: v.windowMs,
      }),
    );
  }

  /**
   * price_breakout (new ATH): the trade's USD price beats the token's all-time high by
   * minBreakPct, that high having stood minAthAgeMs, the token minAgeMs old and its
   * market cap at least minMarketCapUsd. Every higher price is the new high, so a steady
   * climb (a new high each minute) is no breakout.
   */
  private priceBreakout(trade: SignalTrade, out: Signal[]): void {
    const p = this.t.price_breakout;
    const price = trade.price_usd;
    if (price === null || !(price > this.athUsd)) return;
    const prevAth = this.athUsd;
    const prevAt = this.athAt;
    this.athUsd = price;
    this.athAt = trade.at;
    if (prevAth <= 0) return;
    const multiple = price / prevAth;
    if (multiple < 1 + p.minBreakPct / 100 || trade.at - prevAt < p.minAthAgeMs || trade.at - this.firstTradeAt < p.minAgeMs) return;
    if (trade.market_cap_usd === null || trade.market_cap_usd < p.minMarketCapUsd) return;
    if (!this.cooldowns.admit(cooldownKey('price_breakout', this.token, []), trade.at, p.cooldownMs)) return;
    out.push(
      this.signal('price_breakout', trade.trade_id, trade.pool_address, [], trade.at, logRamp(multiple, 1 + p.minBreakPct / 100, p.fullMultiple), {
        price_usd: price,
        previous_ath_usd: prevAth,
        previous_ath_at: prevAt,
        market_cap_usd: trade.market_cap_usd,
      }),
    );
  }

  /** smart_money_buy / kol_buy: a buy of at least minUsd by a wallet with the kind's label. */
  private labeledBuy(kind: 'smart_money_buy' | 'kol_buy', trade: SignalTrade, ctx: TradeContext, out: Signal[]): void {
    const k = this.t[kind];
    if (trade.amount_usd === null || trade.amount_usd < k.minUsd || !ctx.labels.includes(k.label)) return;
    const wallets = [trade.wallet_address];
    if (!this.cooldowns.admit(cooldownKey(kind, this.token, wallets), trade.at, k.cooldownMs)) return;
    out.push(this.signal(kind, trade.trade_id, trade.pool_address, wallets, trade.at, logRamp(trade.amount_usd, k.minUsd, k.fullUsd), buyDetail(trade, ctx)));
  }

  /** dev_sell: the token's creator sells at least minSupplyPct of the total supply in one trade. */
  private devSell(trade: SignalTrade, ctx: TradeContext, out: Signal[]): void {
    const d = this.t.dev_sell;
    if (ctx.creator_address !== trade.wallet_address || ctx.total_supply === null || !(ctx.total_supply > 0)) return;
    const pct = (100 * trade.token_amount) / ctx.total_supply;
    if (pct < d.minSupplyPct) return;
    const wallets = [trade.wallet_address];
    if (!this.cooldowns.admit(cooldownKey('dev_sell', this.token, wallets), trade.at, d.cooldownMs)) return;
    out.push(
      this.signal('dev_sell', trade.trade_id, trade.pool_address, wallets, trade.at, logRamp(pct, d.minSupplyPct, d.fullSupplyPct), {
        supply_pct: pct,
        token_amount: trade.token_amount,
        amount_usd: trade.amount_usd,
      }),
    );
  }

  /** whale_buy: a buy of at least minUsd by anyone, or labeledMinUsd by a wallet labeled whale. */
  private whaleBuy(trade: SignalTrade, ctx: TradeContext, out: Signal[]): void {
    const w = this.t.whale_buy;
    const usd = trade.amount_usd;
    if (usd === null) return;
    const labeled = ctx.labels.includes(w.label);
    const min = labeled ? Math.min(w.labeledMinUsd, w.minUsd) : w.minUsd;
    if (usd < min) return;
    const wallets = [trade.wallet_address];
    if (!this.cooldowns.admit(cooldownKey('whale_buy', this.token, wallets), trade.at, w.cooldownMs)) return;
    out.push(this.signal('whale_buy', trade.trade_id, trade.pool_address, wallets, trade.at, logRamp(usd, min, w.fullUsd), buyDetail(trade, ctx)));
  }

  /**
   * almost_bonded: a curve's progress crosses minProgressPct upwards (from below it, or
   * first seen at or above it) and the curve is not complete. Score: the progress gained
   * over the last 5 minutes over fullGain5mPct (a curve racing to bond scores high).
   */
  private almostBonded(trade: SignalTrade, curve: NonNullable<TradeContext['curve']>, out: Signal[]): void {
    const a = this.t.almost_bonded;
    const before = this.progress.get(trade.pool_address);
    // Only which side of the threshold matters: a curve below it is recorded only as it
    // falls under it (one never seen counts as below), so most trades touch no map.
    if (curve.progress_pct < a.minProgressPct) {
      if (before !== undefined && before >= a.minProgressPct) this.progress.set(trade.pool_address, curve.progress_pct);
      return;
    }
    this.progress.set(trade.pool_address, curve.progress_pct);
    if (curve.complete || (before !== undefined && before >= a.minProgressPct)) return;
    if (!this.cooldowns.admit(cooldownKey('almost_bonded', this.token, []), trade.at, a.cooldownMs)) return;
    out.push(
      this.signal('almost_bonded', trade.trade_id, trade.pool_address, [], trade.at, linearRamp(curve.gain_5m_pct ?? 0, 0, a.fullGain5mPct), {
        bonding_curve_progress_pct: curve.progress_pct,
        bonding_curve_gain_5m_pct: curve.gain_5m_pct,
      }),
    );
  }

  /**
   * cluster_buy: buys of at least minBuyUsd by wallets with one of `labels`, within
   * windowMs of each other: minWallets distinct wallets fire it. The cluster is one
   * wallet set while it lasts (choice: a wallet joining a cluster in cooldown makes no
   * new signal), so the cooldown key is (kind, token).
   */
  private clusterBuy(trade: SignalTrade, ctx: TradeContext, out: Signal[]): void {
    const c = this.t.cluster_buy;
    if (trade.amount_usd === null || trade.amount_usd < c.minBuyUsd || !ctx.labels.some((l) => c.labels.includes(l))) return;
    this.cluster.push({ wallet: trade.wallet_address, at: trade.at, usd: trade.amount_usd });
    const from = trade.at - c.windowMs;
    if (this.cluster[0]!.at <= from) this.cluster = this.cluster.filter((b) => b.at > from);
    const wallets: string[] = [];
    let usd = 0;
    for (const b of this.cluster) {
      if (b.at > trade.at) continue;
      usd += b.usd;
      if (!wallets.includes(b.wallet)) wallets.push(b.wallet);
    }
    if (wallets.length < c.minWallets) return;
    if (!this.cooldowns.admit(cooldownKey('cluster_buy', this.token, []), trade.at, c.cooldownMs)) return;
    out.push(
      this.signal('cluster_buy', trade.trade_id, trade.pool_address, wallets, trade.at, linearRamp(wallets.length, 0, c.fullWallets), {
        wallet_count: wallets.length,
        buys_usd: usd,
        window_ms: c.windowMs,
        market_cap_usd: trade.market_cap_usd,
      }),
    );
  }
}

/** A ring's non-zero entries as flat [index, value] pairs. */
function sparse(ring: Float64Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < ring.length; i++) if (ring[i] !== 0) out.push(i, ring[i]!);
  return out;
}

/** A bucket number's place in a ring of n (bucket numbers may be negative before 1970). */
const ringSlot = (x: number, n: number): number => ((x % n) + n) % n;

function buyDetail(trade: SignalTrade, ctx: TradeContext): Signal['detail'] {
  return { amount_usd: trade.amount_usd, token_amount: trade.token_amount, market_cap_usd: trade.market_cap_usd, labels: ctx.labels };
}
