/**
 * The one code table of the service (SERVICE.md 7.1). An envelope code is the HTTP
 * status times ten plus a digit, so the status is `Math.floor(code / 10)`.
 */
export const ERROR_CODES = {
  4000: { error: 'BAD_REQUEST', retryable: false },
  4010: { error: 'UNAUTHENTICATED', retryable: false },
  4013: { error: 'INVALID_API_KEY', retryable: false },
  4033: { error: 'PLAN_REQUIRED', retryable: false },
  4040: { error: 'NOT_FOUND', retryable: false },
  4290: { error: 'RATE_LIMITED', retryable: true },
  4291: { error: 'QUOTA_EXCEEDED', retryable: true },
  4292: { error: 'TOO_MANY_IN_FLIGHT', retryable: true },
  5000: { error: 'INTERNAL', retryable: true },
  // A route or stream of SERVICE.md that this version of mds does not build (not in SERVICE.md 7.1, which is only added to).
  5010: { error: 'NOT_IMPLEMENTED', retryable: false },
  5020: { error: 'UPSTREAM_FAILED', retryable: true },
  5030: { error: 'UNAVAILABLE', retryable: true },
  5040: { error: 'TIMEOUT', retryable: true },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The only error type that crosses module boundaries. */
export class EngineError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, { cause: options.cause });
    this.name = 'EngineError';
    this.code = code;
    this.details = options.details;
  }

  get status(): number {
    return Math.floor(this.code / 10);
  }

  get error(): string {
    return ERROR_CODES[this.code].error;
  }

  get retryable(): boolean {
    return ERROR_CODES[this.code].retryable;
  }
}

export const badRequest = (param: string, why: string) =>
  new EngineError(4000, `${param}: ${why}`, { details: { param } });
export const notFound = (what: string, id: string) => new EngineError(4040, `${what} not found: ${id}`);
export const unauthenticated = () =>
  new EngineError(4010, 'no API key: send Authorization: Bearer <API_KEY>');
export const invalidApiKey = () => new EngineError(4013, 'API key is invalid or revoked');
export const unavailable = (why: string) => new EngineError(5030, why);
