import { CandlestickSeries, ColorType, createChart, HistogramSeries, type IChartApi, type ISeriesApi, type UTCTimestamp } from 'lightweight-charts';
import type { Candle, CandlesEvent, CandlesSubscription } from '../../client/index.ts';
import type { Terminal } from './app.ts';
import { h, price } from './dom.ts';
import { mountOverlays, type Overlays } from './overlays.ts';

/**
 * The token page's candlestick chart (lightweight-charts, drawn on canvas, so an update
 * never reflows the page): one series of the main pool, interval and price or market
 * cap switchable, live over the `candles` stream. The SDK resumes it after a reconnect
 * (resume_after_seq under a new subscription_id: the candles changed meanwhile), so the
 * series has no gap. Candles are kept by start time; a frame whose candles are all at
 * or after the last drawn one updates the series in place, anything older redraws it.
 */

export const INTERVALS = ['1s', '15s', '1m', '15m', '1h', '6h', '24h'] as const;
type Interval = (typeof INTERVALS)[number];
type Mode = 'price' | 'market_cap';

const UP = '#26a69a';
const DOWN = '#ef5350';

export interface TokenChart {
  readonly element: HTMLElement;
  /** The bars drawn, oldest first, as `{ start_at, open, high, low, close }` (the tests compare them with the candles route). */
  bars(): Candle[];
}

export function mountChart(t: Terminal, pool: string, token: string): TokenChart {
  const canvas = h('div', { class: 'chart', id: 'chart' });
  const buttons = INTERVALS.map((i) => h('button', { type: 'button', 'data-interval': i }, i));
  const modes = (['price', 'market_cap'] as const).map((m) => h('button', { type: 'button', 'data-mode': m }, m === 'price' ? 'Price' : 'MCap'));
  const element = h('section', { class: 'panel chart-panel' }, h('div', { class: 'toolbar' }, ...buttons, h('span', { class: 'sep' }), ...modes), canvas);

  const chart: IChartApi = createChart(canvas, {
    autoSize: true,
    layout: { background: { type: ColorType.Solid, color: '#11161c' }, textColor: '#c9d1d9', attributionLogo: false },
    grid: { vertLines: { color: '#1c232b' }, horzLines: { color: '#1c232b' } },
    timeScale: { timeVisible: true, secondsVisible: true, borderColor: '#2a323c' },
    rightPriceScale: { borderColor: '#2a323c' },
    localization: { priceFormatter: price },
  });
  const candles: ISeriesApi<'Candlestick'> = chart.addSeries(CandlestickSeries, {
    upColor: UP, downColor: DOWN, wickUpColor: UP, wickDownColor: DOWN, borderVisible: false,
    priceFormat: { type: 'price', precision: 10, minMove: 1e-10 },
  });
  const volume: ISeriesApi<'Histogram'> = chart.addSeries(HistogramSeries, { priceScaleId: 'volume', priceFormat: { type: 'volume' } });
  chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });

  let interval: Interval = '1m';
  let mode: Mode = 'price';
  let series = new Map<number, Candle>();
  let lastDrawn = -Infinity;
  let sub: CandlesSubscription | null = null;
  let generation = 0;
  const overlays: Overlays = mountOverlays(t, candles, { pool, token });

  const bar = (c: Candle) => ({ time: (c.start_at / 1000) as UTCTimestamp, open: c.open ?? c.close ?? 0, high: c.high ?? c.close ?? 0, low: c.low ?? c.close ?? 0, close: c.close ?? 0 });
  const volumeBar = (c: Candle) => ({ time: (c.start_at / 1000) as UTCTimestamp, value: c.volume ?? 0, color: (c.close ?? 0) >= (c.open ?? 0) ? '#26a69a55' : '#ef535055' });
  const sorted = () => [...series.values()].filter((c) => c.close !== null).sort((a, b) => a.start_at - b.start_at);

  const redraw = () => {
    const all = sorted();
    candles.setData(all.map(bar));
    volume.setData(all.map(volumeBar));
    lastDrawn = all.at(-1)?.start_at ?? -Infinity;
    canvas.setAttribute('data-bars', String(all.length));
    overlays.redraw(interval, mode);
  };

  const apply = (list: readonly Candle[]) => {
    let older = false;
    for (const c of list) {
      if (c.close === null) continue;
      series.set(c.start_at, c);
      if (c.start_at < lastDrawn) older = true;
    }
    if (older || lastDrawn === -Infinity) return redraw();
    for (const c of list) {
      if (c.close === null) continue;
      candles.update(bar(c));
      volume.update(volumeBar(c));
      lastDrawn = Math.max(lastDrawn, c.start_at);
    }
    canvas.setAttribute('data-bars', String(series.size));
  };

  const load = async () => {
    const mine = ++generation;
    sub?.unsubscribe();
    series = new Map();
    lastDrawn = -Infinity;
    for (const b of buttons) b.classList.toggle('on', b.dataset.interval === interval);
    for (const b of modes) b.classList.toggle('on', b.dataset.mode === mode);
    chart.applyOptions({ timeScale: { secondsVisible: interval === '1s' || interval === '15s' } });
    element.setAttribute('data-interval', interval);
    element.setAttribute('data-mode', mode);
    canvas.removeAttribute('data-loaded');
    // Live first, the HTTP read second: frames that arrive meanwhile are applied after
    // it (they are at least as new), so nothing between the two is lost.
    const live = t.socket.candles({ pool_address: pool, interval, mode, currency: 'usd' });
    sub = live;
    const early: CandlesEvent[] = [];
    let loaded = false;
    live.observable().subscribe({
      next: (event) => {
        if (mine !== generation) return;
        if (!loaded) early.push(event);
        else apply(event.candles);
      },
      error: () => {},
    });
    try {
      const first = await t.client.http.pools.candles(pool, { interval, mode, currency: 'usd', limit: 500 });
      if (mine !== generation) return;
      series = new Map(first.candles.map((c) => [c.start_at, c]));
      lastDrawn = -Infinity;
      redraw();
      loaded = true;
      for (const event of early.splice(0)) apply(event.candles);
      // A short series fills the width; a long one shows its newest bars.
      if (series.size < 150) chart.timeScale().fitContent();
      else chart.timeScale().scrollToRealTime();
      canvas.setAttribute('data-loaded', '');
      // Read by bench/terminal-paint.ts: when the first series was drawn.
      if (performance.getEntriesByName('mds-chart-drawn').length === 0) performance.mark('mds-chart-drawn');
    } catch (error) {
      t.fail(error);
    }
  };

  for (const b of buttons) b.addEventListener('click', () => {
    interval = b.dataset.interval as Interval;
    void load();
  });
  for (const b of modes) b.addEventListener('click', () => {
    mode = b.dataset.mode as Mode;
    void load();
  });
  void load();

  const result: TokenChart = { element, bars: () => sorted().map((c) => ({ ...c })) };
  t.debug.chart = { bars: result.bars, interval: () => interval, mode: () => mode, overlays: () => overlays.state() };
  return result;
}
