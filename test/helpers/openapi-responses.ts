import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, expect } from 'vitest';
import { openApiDocument, openApiPath } from '../../transport/http/openapi.ts';
import { ROUTES } from '../../transport/index.ts';

/**
 * A vitest setup file (vitest.config.ts): every HTTP response a test receives through
 * fetch from a server on 127.0.0.1 is checked against the OpenAPI response schema of
 * its route and status, from the document /openapi.json serves (built from the route
 * table, so a new route is covered with no new code). A response that does not match
 * fails the test it came in, naming the route, the status and what differs. Responses
 * of other servers (no uWebSockets header), of paths no route of the table matches (a test's own extra routes, 404s) and bodies
 * that are not JSON are left alone.
 */

const doc = openApiDocument(ROUTES) as { paths: Record<string, { get: { responses: Record<string, any> } }> };
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(doc, 'openapi.json');

/** Each route's pattern as a regex over a path, static routes first (as uWS matches them). */
const matchers = [...ROUTES]
  .sort((a, b) => (a.paramNames.length === 0 ? 0 : 1) - (b.paramNames.length === 0 ? 0 : 1))
  .map((route) => ({
    path: openApiPath(route.pattern),
    regex: new RegExp(`^${route.pattern.replace(/:[A-Za-z_][A-Za-z0-9_]*/g, '[^/]+')}$`),
  }));

const validators = new Map<string, ReturnType<typeof ajv.compile> | null>();
const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function validatorFor(path: string, status: number) {
  const responses = doc.paths[path]!.get.responses;
  const key = String(status) in responses ? String(status) : status >= 500 && '5XX' in responses ? '5XX' : null;
  const cacheKey = `${path} ${key}`;
  if (!validators.has(cacheKey)) {
    const schema = key === null ? undefined : responses[key]?.content?.['application/json']?.schema;
    validators.set(cacheKey, schema === undefined ? null : ajv.compile({ $ref: `openapi.json#/paths/${pointer(path)}/get/responses/${key}/content/application~1json/schema` }));
  }
  return { key, validate: validators.get(cacheKey)! };
}

const problems: string[] = [];

/** What is wrong with a GET response of `url` against its route's OpenAPI description (null: nothing, or not a route's JSON). */
export function responseProblem(url: string, status: number, contentType: string, text: string): string | null {
  const { hostname, pathname } = new URL(url);
  if (hostname !== '127.0.0.1') return null;
  const route = matchers.find((m) => m.regex.test(pathname));
  if (!route || !contentType.startsWith('application/json')) return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const { key, validate } = validatorFor(route.path, status);
  if (key === null) return `GET ${route.path}: status ${status} is not in its OpenAPI responses`;
  if (validate && !validate(body)) return `GET ${route.path} ${status}: ${ajv.errorsText(validate.errors, { separator: '; ' })}`;
  return null;
}

/** Checks one response; what does not match is kept for the test's afterEach. */
async function check(url: string, method: string, res: Response): Promise<void> {
  // Only mds's own server (uWS names itself in every response; the benchmarks' fastify
  // baseline and the tests' proxies answering on their own are not mds).
  if (method !== 'GET' || !res.headers.has('uwebsockets')) return;
  const contentType = res.headers.get('content-type') ?? '';
  if (!contentType.startsWith('application/json')) return;
  const problem = responseProblem(url, res.status, contentType, await res.clone().text());
  if (problem) problems.push(problem);
}

const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const res = await realFetch(input, init);
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  await check(url, method, res);
  return res;
};

afterEach(() => {
  const found = problems.splice(0);
  expect(found, 'responses that do not match their route\'s OpenAPI schema').toEqual([]);
});
