import { EngineError } from '../../../engine/errors.ts';
import type { SolPrice } from '../../../engine/query/index.ts';
import type { RouteContext } from '../route.ts';

/**
 * GET /v1/market/sol-price. Before the first quote_price event there is no price to
 * give: 404 / 4040 `no SOL price yet` (the resource does not exist yet) rather than a
 * made-up value or a null `data`, which SERVICE.md 2.1 reserves for failures.
 */
export function solPrice({ deps }: RouteContext<unknown, unknown>): SolPrice {
  const price = deps.query.solPrice();
  if (price === null) throw new EngineError(4040, 'no SOL price yet');
  return { price_usd: price.price_usd, updated_at: price.updated_at };
}
