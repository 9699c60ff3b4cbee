import { rawBody, type RawBody } from '../../envelope.ts';
import type { RouteContext } from '../route.ts';

/** `data` of GET /health: the engine status in the API's snake_case. */
export interface HealthData {
  status: 'starting' | 'ready' | 'stopping';
  ingested: number;
  durable: number;
  dead_letters: number;
  source: string;
  source_done: boolean | null;
  /** A live source's state: connected, reconnects, last_slot, last_event_at, pending... */
  source_state: object | null;
}

/**
 * GET /health is liveness and readiness in one: it answers 200 whenever the process
 * serves HTTP (liveness), and `data.status` says whether it is ready (`ready`) or
 * still replaying its log (`starting`) or shutting down (`stopping`). Always 200 so
 * that an orchestrator or a person can read the body in every state; a readiness
 * probe checks `data.status == "ready"` rather than the HTTP status.
 */
export function health({ deps }: RouteContext<unknown, unknown>): HealthData {
  const s = deps.query.status();
  return {
    status: s.status,
    ingested: s.ingested,
    durable: s.durable,
    dead_letters: s.deadLetters,
    source: s.source,
    source_done: s.sourceDone,
    source_state: s.sourceState ?? null,
  };
}

/** GET /metrics: Prometheus text format of the engine's registry, outside the envelope. */
export async function metrics({ deps }: RouteContext<unknown, unknown>): Promise<RawBody> {
  const { registry } = deps.metrics;
  return rawBody(registry.contentType, await registry.metrics());
}
