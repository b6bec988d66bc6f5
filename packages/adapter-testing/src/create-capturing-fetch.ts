/** One request a provider SDK sent through the capturing `fetch`. */
export interface CapturedRequest {
  url: string;
  method: string;
  /** The request body as text (`''` when there was none). */
  body: string;
}

/** A `fetch` for a provider SDK client that answers from a script and records every request. */
export interface CapturingFetch {
  /** Pass this as the SDK client's `fetch`. */
  readonly fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** Every request, in order. */
  readonly captured: readonly CapturedRequest[];
}

async function bodyText(input: string | URL | Request, init: RequestInit | undefined): Promise<string> {
  if (init?.body !== undefined && init.body !== null) return new Response(init.body).text();
  return input instanceof Request ? input.text() : '';
}

/**
 * A capturing `fetch` (no network): the n-th request is answered with `replies[n]` as a JSON body
 * with status 200, and recorded as `{ url, method, body }`. Accepts the two call shapes SDKs use,
 * `fetch(url, init)` and `fetch(request)`. A request beyond the script is answered with status 500,
 * so a test fails instead of hanging on a retry.
 */
export function createCapturingFetch(replies: readonly unknown[]): CapturingFetch {
  const captured: CapturedRequest[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : undefined;
    captured.push({
      url: request?.url ?? String(input),
      method: init?.method ?? request?.method ?? 'GET',
      body: await bodyText(input, init),
    });
    const index = captured.length - 1;
    if (index >= replies.length) {
      return new Response(JSON.stringify({ error: 'no scripted reply' }), { status: 500 });
    }
    return new Response(JSON.stringify(replies[index]), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  };
  return { fetch, captured };
}
