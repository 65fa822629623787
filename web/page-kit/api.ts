// The pages call our API through the client generated from its OpenAPI document (openapi-fetch over
// web/openapi/ours.d.ts): paths, parameters, bodies and answers are checked by the compiler. A refusal becomes an
// ApiError the page words in its own language.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from '../openapi/ours';

export type ApiClient = Client<paths>;

/** A refusal: the HTTP status (0: no answer), and the problem document's `code` and `detail` when it had them. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code?: string,
    readonly detail?: string,
  ) {
    super(detail ?? code ?? `HTTP ${status}`);
  }
}

/**
 * A client for the API at the root the page is served under: `pagePath` is the page's own path, matched at the
 * end of location.pathname (a proxy may put the service under a prefix).
 */
export function apiClient(pagePath: RegExp, options: ClientOptions = {}): ApiClient {
  const root = location.pathname.replace(pagePath, '');
  return createClient<paths>({ baseUrl: `${location.origin}${root}`, ...options });
}

/** The answer's body, or an ApiError: openapi-fetch resolves refusals as `error`, and throws when nothing answered. */
export async function answer<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: Awaited<typeof call>;
  try {
    result = await call;
  } catch {
    throw new ApiError(0, 'network');
  }
  if (result.response.ok) return result.data as T;
  const problem = (result.error && typeof result.error === 'object' ? result.error : {}) as {
    code?: unknown;
    detail?: unknown;
  };
  throw new ApiError(
    result.response.status,
    typeof problem.code === 'string' ? problem.code : undefined,
    typeof problem.detail === 'string' ? problem.detail : undefined,
  );
}
