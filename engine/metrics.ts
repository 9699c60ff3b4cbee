import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics of one engine (prom-client: the standard client, text format
 * and registries done right). Each engine owns its registry so that several engines
 * embedded in one process, or in one test run, never share counters.
 */
export function createMetrics(sourceState: () => object | null = () => null) {
  const registry = new Registry();
  // A live source's numeric state (connected 0/1, reconnects, last_slot, fetched...), read at each scrape.
  new Gauge({
    name: 'mds_source_state',
    help: "A live source's state by field (connected 1/0, reconnects, last_slot, last_event_at, pending, fetched, failed, rate_limited, transactions, sol_price_updates)",
    labelNames: ['field'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [field, value] of Object.entries(sourceState() ?? {})) {
        if (typeof value === 'number' || typeof value === 'boolean') this.set({ field }, Number(value));
      }
    },
  });
  collectDefaultMetrics({ register: registry, prefix: 'mds_process_' });
  return {
    registry,
    ingested: new Counter({ name: 'mds_ingest_events_total', help: 'Events applied, by type', labelNames: ['type'], registers: [registry] }),
    duplicates: new Counter({ name: 'mds_ingest_duplicates_total', help: 'Events dropped as already applied', registers: [registry] }),
    unknownTypes: new Counter({ name: 'mds_ingest_unknown_type_total', help: 'Events of an unknown type, ignored', labelNames: ['type'], registers: [registry] }),
    unknownFields: new Counter({ name: 'mds_ingest_unknown_fields_total', help: 'Events carrying fields INGEST.md does not name, by type', labelNames: ['type'], registers: [registry] }),
    deadLetters: new Counter({ name: 'mds_dead_letters_total', help: 'Events written to dead letters, by stage', labelNames: ['stage'], registers: [registry] }),
    batches: new Counter({ name: 'mds_ingest_batches_total', help: 'Ingest-log transactions committed', registers: [registry] }),
    actorsAlive: new Gauge({ name: 'mds_actors_alive', help: 'Actors in memory, by kind', labelNames: ['kind'], registers: [registry] }),
    actorRestarts: new Counter({ name: 'mds_actor_restarts_total', help: 'Actor restarts after a throw, by kind', labelNames: ['kind'], registers: [registry] }),
    actorPassivations: new Counter({ name: 'mds_actor_passivations_total', help: 'Idle actors snapshotted and dropped, by kind', labelNames: ['kind'], registers: [registry] }),
    actorEvictions: new Counter({ name: 'mds_actor_evictions_total', help: 'Of those, actors passivated because their kind was past actors.residentMax (least recently used first), by kind', labelNames: ['kind'], registers: [registry] }),
    actorEarlySnapshots: new Counter({ name: 'mds_actor_early_snapshots_total', help: 'Snapshots taken between checkpoints of resident actors holding over 4 KiB unsaved (a pool\'s trades not stored yet) while actors.residentBytesMax filled; they stay resident. By kind', labelNames: ['kind'], registers: [registry] }),
    httpRequests: new Counter({ name: 'mds_http_requests_total', help: 'HTTP requests by route and envelope code', labelNames: ['route', 'code'], registers: [registry] }),
    wsConnections: new Gauge({ name: 'mds_ws_connections', help: 'Open WebSocket connections', registers: [registry] }),
    wsFramesPublished: new Counter({ name: 'mds_ws_frames_published_total', help: 'Event frames handed to uWS, once per topic channel (not per subscriber), by stream', labelNames: ['stream'], registers: [registry] }),
    wsMessagesDelivered: new Counter({ name: 'mds_ws_messages_delivered_total', help: 'Event frames delivered, counted per subscribed connection', registers: [registry] }),
    wsCloses: new Counter({ name: 'mds_ws_closes_total', help: 'WebSocket closes by close code (client: closed by the client; stalled: cut without a close frame)', labelNames: ['code'], registers: [registry] }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
