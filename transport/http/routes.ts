import { solPrice } from './handlers/market.ts';
import { health, metrics } from './handlers/system.ts';
import { defineRoute, type Route } from './route.ts';

/**
 * The one HTTP route table (DECISIONS.md, "HTTP routes"). Every route is a GET; a
 * route is one entry: pattern (uWS syntax, `/v1/pools/:pool_address`), `auth` (true
 * for every /v1 route), zod schemas for path and query parameters (made strict by
 * defineRoute: unknown parameters are a 400 naming them) and a handler in handlers/.
 */
export const ROUTES: readonly Route[] = [
  defineRoute({ pattern: '/health', auth: false, handler: health }),
  defineRoute({ pattern: '/metrics', auth: false, handler: metrics }),
  defineRoute({ pattern: '/v1/market/sol-price', auth: true, handler: solPrice }),
];
