// JSON over HTTP to an upstream (Blockbook, a price source): a deadline per attempt, retries with
// exponential backoff for reads, and failures as UpstreamFailure (502, or 504 on timeout) whose
// message names the upstream, so a client never hangs and never sees a stack trace.
import { UpstreamFailure } from '../errors.ts';

export interface HttpJsonOptions {
  /** Names the upstream in messages, e.g. "blockbook litecoin". */
  name: string;
  timeoutMs: number;
  /** Extra attempts after the first; only for requests that are safe to repeat. */
  retries: number;
  /** Wait before the first retry; doubled for each further one. */
  backoffMs: number;
  headers?: Record<string, string>;
}

export interface HttpJsonRequest {
  method?: 'GET' | 'POST';
  /** Sent as is (Blockbook's sendtx takes the raw hex as the body). */
  body?: string;
  contentType?: string;
  /** Repeating a POST may act twice; say so explicitly. */
  idempotent?: boolean;
}

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An answer the upstream gave on purpose (4xx, or 5xx with a body): never retried. */
export class UpstreamAnswer extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    message: string,
  ) {
    super(message);
  }
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
}

/**
 * Fetches and parses JSON. Network errors, timeouts and 502/503/504 are retried (when the request
 * is idempotent); other non-2xx answers throw UpstreamAnswer with the body for the caller to read.
 */
export async function httpJson(url: string, request: HttpJsonRequest, options: HttpJsonOptions, fetchImpl: FetchLike = fetch): Promise<unknown> {
  const method = request.method ?? 'GET';
  const attempts = 1 + ((request.idempotent ?? method === 'GET') ? options.retries : 0);
  let lastError: UpstreamFailure | null = null;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await sleep(options.backoffMs * 2 ** (attempt - 1));
    let response: Response;
    try {
      response = await fetchImpl(url, {
        method,
        headers: { accept: 'application/json', ...(request.contentType ? { 'content-type': request.contentType } : {}), ...options.headers },
        ...(request.body !== undefined ? { body: request.body } : {}),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (err) {
      lastError = isTimeout(err)
        ? new UpstreamFailure(true, `${options.name} did not answer within ${options.timeoutMs} ms`)
        : new UpstreamFailure(false, `${options.name} is unreachable: ${describe(err)}`);
      continue;
    }
    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      lastError = isTimeout(err)
        ? new UpstreamFailure(true, `${options.name} did not finish its answer within ${options.timeoutMs} ms`)
        : new UpstreamFailure(false, `${options.name} broke off its answer: ${describe(err)}`);
      continue;
    }
    if (response.status === 502 || response.status === 503 || response.status === 504) {
      lastError = new UpstreamFailure(response.status === 504, `${options.name} answered HTTP ${response.status}`);
      continue;
    }
    if (!response.ok) throw new UpstreamAnswer(response.status, text, `${options.name} answered HTTP ${response.status}: ${text.slice(0, 300)}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new UpstreamFailure(false, `${options.name} answered with something that is not JSON: ${text.slice(0, 120)}`);
    }
  }
  throw lastError ?? new UpstreamFailure(false, `${options.name} failed`);
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}
