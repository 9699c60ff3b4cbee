import { Observable } from 'rxjs';
import { timeOf, type IngestEvent } from '../../ingest/index.ts';
import { Market } from './market.ts';
import type { SimOptions } from './options.ts';

/**
 * The simulated market as an endless, synchronous stream of INGEST events in
 * non-decreasing time order, as fast as it can. Deterministic: the same options give
 * the same events.
 */
export function* simulate(options: SimOptions): Generator<IngestEvent, never, undefined> {
  const market = new Market(options);
  for (;;) {
    const events = market.nextSlot();
    for (let i = 0; i < events.length; i++) yield events[i]!;
  }
}

/**
 * The first `durationMs` of simulated time (events with time < startAt + durationMs)
 * as an Observable that emits synchronously on subscribe and completes; unsubscribing
 * stops the generation.
 */
export function simulate$(options: SimOptions, durationMs: number): Observable<IngestEvent> {
  return new Observable<IngestEvent>((subscriber) => {
    const market = new Market(options);
    const end = options.startAt + durationMs;
    while (!subscriber.closed && market.nextAt < end) {
      const events = market.nextSlot();
      for (let i = 0; i < events.length && !subscriber.closed; i++) {
        const event = events[i]!;
        if (timeOf(event) >= end) break;
        subscriber.next(event);
      }
    }
    subscriber.complete();
  });
}
