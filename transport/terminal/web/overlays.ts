import { createSeriesMarkers, LineStyle, type IPriceLine, type ISeriesApi, type SeriesMarker, type UTCTimestamp } from 'lightweight-charts';
import { MdsError } from '../../client/index.ts';
import type { Terminal } from './app.ts';

/**
 * Markers and chart lines on the token chart (SERVICE.md 4.4, 6, 6.1, 2.10): the
 * `markers` and `chart_lines` streams, subscribed when the chart opens and drawn as soon
 * as they answer. On a plan below Pro the server answers with an error frame (4033
 * PLAN_REQUIRED), which ends the subscription: the overlay stays off and the rest of the
 * page is untouched (`state()` says why). Nothing else on the page depends on this file.
 */

/** What the overlays are doing: waiting for a first event, on, or off with the error code. */
export type OverlayState = 'waiting' | 'on' | `off ${number}`;

export interface Overlays {
  /** Draws again for the chart's interval and mode (markers snap to bars; lines follow price or market cap). */
  redraw(interval: string, mode: 'price' | 'market_cap'): void;
  state(): { markers: OverlayState; chart_lines: OverlayState };
}

interface Mark {
  id: string;
  at: number;
  text: string;
  kind: 'mark' | 'buy' | 'sell';
}

interface Line {
  id: string;
  kind: string;
  label?: string | null;
  price_usd?: number | null;
  market_cap_usd?: number | null;
}

const SECONDS: Record<string, number> = { '1s': 1, '15s': 15, '1m': 60, '15m': 900, '1h': 3600, '6h': 21_600, '24h': 86_400 };
const LINE_COLORS: Record<string, string> = { ath: '#f0b429', migration: '#9f7aea', dev_buy: '#26a69a', dev_sell: '#ef5350', top_buy: '#4fd1c5', top_sell: '#fc8181', kol_buy: '#63b3ed', watchlist_buy: '#b794f4', self_buy: '#68d391', self_sell: '#f687b3' };

export function mountOverlays(t: Terminal, series: ISeriesApi<'Candlestick'>, where: { pool: string; token: string }): Overlays {
  const state = { markers: 'waiting' as OverlayState, chart_lines: 'waiting' as OverlayState };
  const marks = new Map<string, Mark>();
  let lines: Line[] = [];
  let drawnLines: IPriceLine[] = [];
  const plugin = createSeriesMarkers(series, []);
  let interval = '1m';
  let mode: 'price' | 'market_cap' = 'price';

  const off = (stream: 'markers' | 'chart_lines') => (error: unknown) => {
    state[stream] = `off ${error instanceof MdsError ? error.code : 0}`;
  };

  const drawMarks = () => {
    const step = SECONDS[interval] ?? 60;
    const list: SeriesMarker<UTCTimestamp>[] = [...marks.values()]
      .sort((a, b) => a.at - b.at)
      .map((m) => ({
        time: (Math.floor(m.at / 1000 / step) * step) as UTCTimestamp,
        position: m.kind === 'sell' ? 'aboveBar' : 'belowBar',
        shape: m.kind === 'buy' ? 'arrowUp' : m.kind === 'sell' ? 'arrowDown' : 'circle',
        color: m.kind === 'buy' ? '#26a69a' : m.kind === 'sell' ? '#ef5350' : '#f0b429',
        text: m.text,
      }));
    plugin.setMarkers(list);
  };

  const drawLines = () => {
    for (const l of drawnLines) series.removePriceLine(l);
    drawnLines = [];
    for (const line of lines) {
      const price = mode === 'price' ? line.price_usd : line.market_cap_usd;
      if (price === null || price === undefined) continue;
      drawnLines.push(series.createPriceLine({ price, color: LINE_COLORS[line.kind] ?? '#8b949e', lineWidth: 1, lineStyle: LineStyle.Dashed, axisLabelVisible: true, title: line.label ?? line.kind }));
    }
  };

  t.socket.stream('markers', { token_address: where.token }).observable().subscribe({
    next: (data) => {
      state.markers = 'on';
      const e = data as Record<string, any>;
      if (e.event === 'mark') marks.set(e.marker_id, { id: e.marker_id, at: e.at, text: String(e.type ?? ''), kind: 'mark' });
      else if (e.event === 'remove') marks.delete(e.marker_id);
      else if (e.event === 'labeled_trade' && e.pool_address === where.pool) {
        const labels = Array.isArray(e.labels) ? e.labels.map((l: { label?: string }) => l.label).filter(Boolean).join(',') : '';
        marks.set(e.marker_id, { id: e.marker_id, at: e.at, text: labels, kind: e.type === 'sell' ? 'sell' : 'buy' });
      } else return;
      drawMarks();
    },
    error: off('markers'),
  });

  t.socket.stream('chart_lines', { pool_address: where.pool, token_address: where.token, top_holder_count: 5 }).observable().subscribe({
    next: (data) => {
      state.chart_lines = 'on';
      const e = data as { pool_address?: string; lines?: Line[] };
      if (e.pool_address !== where.pool || !Array.isArray(e.lines)) return;
      lines = e.lines;
      drawLines();
    },
    error: off('chart_lines'),
  });

  return {
    redraw(nextInterval, nextMode) {
      interval = nextInterval;
      mode = nextMode;
      drawMarks();
      drawLines();
    },
    state: () => ({ ...state }),
  };
}
