import { asyncapiDocument } from '../ws/index.ts';
import { z } from 'zod';
import { rawBody, type RawBody } from '../envelope.ts';
import { API_DESCRIPTION, PARAM_DOCS, ROUTE_DOCS, SCHEMAS, ref, type RouteDoc, type Schema } from './openapi-docs.ts';
import type { Route } from './route.ts';

/**
 * GET /openapi.json: an OpenAPI 3.1 description built from the route table itself, so
 * that every route is in it, routes added later included, and its parameters are
 * exactly what the route's zod schemas accept. Per parameter: the JSON Schema zod 4
 * gives for its input (`z.toJSONSchema`, io input: enums, patterns, lengths), its
 * default from the output schema, and for numbers written as text (our integer
 * parameters are string → number transforms, which JSON Schema cannot see into) the
 * range found by asking the schema itself: the smallest and largest integers it
 * accepts (a binary search over safeParse), the same for the length of address
 * lists. Prose and response shapes (SERVICE.md 2.x) are in openapi-docs.ts; a route
 * it does not know gets a generic entry.
 *
 * Built once per route table, on first request, and served as the same bytes after.
 */

const OPENAPI_VERSION = '3.1.0';
/** SERVICE.md 9: description version 1.0.0. */
const DESCRIPTION_VERSION = '1.0.0';
const ADDRESS_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Longest list probed for a comma-list parameter. */
const LIST_PROBE_MAX = 1_000;

const built = new WeakMap<readonly Route[], RawBody>();

/** The handler of GET /openapi.json for `routes` (the table it is part of). */
export function openApiRoute(routes: readonly Route[]): RawBody {
  let body = built.get(routes);
  if (!body) {
    body = rawBody('application/json', JSON.stringify(openApiDocument(routes)));
    built.set(routes, body);
  }
  return body;
}

/** `/v1/pools/:pool_address` → `/v1/pools/{pool_address}`. */
export const openApiPath = (pattern: string): string => pattern.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

export function openApiDocument(routes: readonly Route[]): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const tags: string[] = [];
  for (const route of routes) {
    const doc = ROUTE_DOCS[route.pattern] ?? { tag: route.pattern.split('/')[2] ?? 'system', summary: `GET ${route.pattern}` };
    if (!tags.includes(doc.tag)) tags.push(doc.tag);
    paths[openApiPath(route.pattern)] = { get: operation(route, doc) };
  }
  return {
    openapi: OPENAPI_VERSION,
    info: { title: 'mds market data API', version: DESCRIPTION_VERSION, description: API_DESCRIPTION },
    servers: [{ url: '/' }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      schemas: SCHEMAS,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY> (mds keys create --plan ...).' } },
      headers: HEADERS,
    },
  };
}

const header = (description: string, schema: Schema = { type: 'integer' }) => ({ description, schema });
const HEADERS: Record<string, unknown> = {
  'RateLimit-Limit': header('Requests allowed per 1-second window for this key.'),
  'RateLimit-Remaining': header('Requests left in the current window.'),
  'RateLimit-Reset': header('Seconds until the window restarts.'),
  'X-Quota-Limit': header('Requests allowed this calendar month (UTC).'),
  'X-Quota-Remaining': header('Requests left this month.'),
  'X-Quota-Reset': header('Seconds until the quota resets (00:00 UTC on the 1st).'),
  'Retry-After': header('On 429: seconds to wait.'),
  'X-Subscription-Grace': header('true during the 2 hours after a paid plan expires.', { type: 'string', enum: ['true'] }),
};
const RATE_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Quota-Limit', 'X-Quota-Remaining', 'X-Quota-Reset', 'X-Subscription-Grace'];
const headerRefs = (names: string[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));

function envelope(data: Schema, paged: boolean): Schema {
  const properties: Record<string, Schema> = { code: { const: 0 }, error: { type: 'null' }, message: { const: 'OK' }, data };
  if (paged) properties.pagination = ref('Pagination');
  return { type: 'object', properties, required: Object.keys(properties) };
}

function operation(route: Route, doc: RouteDoc): Record<string, unknown> {
  const headers = route.auth ? headerRefs(RATE_HEADERS) : undefined;
  const failure = (description: string, extra: string[] = []) => ({
    description,
    ...(route.auth ? { headers: headerRefs([...RATE_HEADERS, ...extra]) } : {}),
    content: { 'application/json': { schema: ref('Failure') } },
  });
  const ok = doc.raw
    ? { description: 'The document itself, outside the envelope.', content: { [doc.raw.contentType]: { schema: doc.raw.schema ?? { type: 'string' } } } }
    : { description: 'Success envelope.', ...(headers ? { headers } : {}), content: { 'application/json': { schema: envelope(doc.data ?? {}, doc.paged === true) } } };
  const responses: Record<string, unknown> = { '200': ok, '400': failure('4000 BAD_REQUEST: a parameter failed validation or is unknown; message names it.') };
  if (route.auth) responses['401'] = { description: '4010 UNAUTHENTICATED (no key) or 4013 INVALID_API_KEY.', content: { 'application/json': { schema: ref('Failure') } } };
  if (route.minPlan) responses['403'] = failure(`4033 PLAN_REQUIRED: needs the ${route.minPlan} plan or above.`);
  else if (doc.planParams) responses['403'] = failure(`4033 PLAN_REQUIRED: ${Object.entries(doc.planParams).map(([param, plan]) => `${param} needs the ${plan} plan or above`).join('; ')}.`);
  if (route.paramNames.length > 0 || doc.notFound) responses['404'] = failure(doc.notFound ?? '4040 NOT_FOUND: the resource does not exist.');
  if (route.auth) responses['429'] = failure('4290 RATE_LIMITED, 4291 QUOTA_EXCEEDED or 4292 TOO_MANY_IN_FLIGHT.', ['Retry-After']);
  responses['5XX'] = failure('5000 INTERNAL, 5030 UNAVAILABLE (starting, draining) or 5040 TIMEOUT: retry with backoff and jitter.');
  const plan = route.minPlan ? `\n\nPlan: ${route.minPlan} or above.` : '';
  return {
    operationId: operationId(route.pattern),
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.description || plan ? { description: `${doc.description ?? ''}${plan}`.trim() } : {}),
    security: route.auth ? [{ bearer: [] }] : [],
    parameters: [
      ...Object.entries(route.params.shape).map(([name, field]) => parameter(route.pattern, name, 'path', field as z.ZodType)),
      ...Object.entries(route.query.shape).map(([name, field]) => parameter(route.pattern, name, 'query', field as z.ZodType)),
    ],
    responses,
  };
}

/** `/v1/tokens/:token_address/trades` → `get_v1_tokens_by_token_address_trades`. */
const operationId = (pattern: string) =>
  `get${pattern.replace(/\/:([A-Za-z0-9_]+)/g, '_by_$1').replace(/[^A-Za-z0-9_]+/g, '_')}`.replace(/_+$/, '');

function parameter(pattern: string, name: string, where: 'path' | 'query', field: z.ZodType): Record<string, unknown> {
  const description = PARAM_DOCS[`${pattern} ${name}`] ?? PARAM_DOCS[name];
  return {
    name,
    in: where,
    required: where === 'path' || !field.safeParse(undefined).success,
    ...(description ? { description } : {}),
    schema: valueSchema(field),
  };
}

/** JSON Schema of one parameter's text, without the `$schema` line; `{type: string}` if zod cannot say. */
function toJson(field: z.ZodType, io: 'input' | 'output'): Schema {
  try {
    const { $schema: _, ...schema } = z.toJSONSchema(field, { io, unrepresentable: 'any' }) as Schema;
    return schema;
  } catch (err) {
    // A schema zod cannot express (a custom type added later): described as text, with why.
    return { type: 'string', description: `(no JSON Schema: ${(err as Error).message})` };
  }
}

/** What a parameter accepts: zod's JSON Schema, refined by probing text → number transforms. */
function valueSchema(field: z.ZodType): Schema {
  const accepts = (text: string) => field.safeParse(text).success;
  const input = toJson(field, 'input');
  const fallback = toJson(field, 'output').default;
  let schema: Schema = input;
  if (input.enum === undefined && !accepts('x') && (accepts('0') || accepts('1'))) {
    if (accepts('0.5') || accepts('1.5')) schema = { type: 'number' };
    else {
      const minimum = accepts('0') ? 0 : 1;
      schema = { type: 'integer', minimum, maximum: largest(minimum, (n) => accepts(String(n))) };
    }
  } else if (!accepts('x') && accepts(address(0)) && accepts(`${address(0)},${address(1)}`)) {
    const maxItems = largest(1, (n) => accepts(Array.from({ length: n }, (_, i) => address(i)).join(',')), LIST_PROBE_MAX);
    schema = { type: 'string', pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}(,[1-9A-HJ-NP-Za-km-z]{32,44})*$', description: `Comma-separated list of 1 to ${maxItems} distinct addresses.` };
  }
  if (fallback !== undefined) schema = { ...schema, default: schema.type === 'string' && typeof fallback !== 'string' ? String(fallback) : fallback };
  return schema;
}

/** The largest n in [from, limit] with ok(n), given ok(from) and ok monotone (true up to some bound). */
function largest(from: number, ok: (n: number) => boolean, limit = Number.MAX_SAFE_INTEGER): number {
  if (ok(limit)) return limit;
  let lo = from;
  let hi = limit;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (ok(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** A distinct 44-character base58 address per i, for probing list parameters. */
function address(i: number): string {
  const a = ADDRESS_ALPHABET;
  return '1'.repeat(40) + a[i % 58]! + a[Math.floor(i / 58) % 58]! + a[Math.floor(i / 3_364) % 58]! + 'z';
}

let asyncApiBody: RawBody | null = null;

/** GET /asyncapi.json: the AsyncAPI 3.1 description of /ws (transport/ws/asyncapi.ts). */
export function asyncApiRoute(): RawBody {
  asyncApiBody ??= rawBody('application/json', JSON.stringify(asyncapiDocument));
  return asyncApiBody;
}
