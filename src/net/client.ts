/**
 * The HTTP client every web provider uses (the `HttpClient` contract), on undici.
 *
 * It owns what adapters must not each reimplement: cancellation that reaches the socket, the
 * streamed body cap, redirect handling, and the public-URL guard. Two connection pools are kept:
 * one for operator-configured URLs (trusted, loopback allowed) and one for agent-supplied URLs,
 * whose connector refuses any non-public address at connect time, on the address DNS returned
 * for that very connection, for every hop. undici loads on the first request: it costs more than
 * a hundred milliseconds at startup, and MCP `tools/list` must not wait for it.
 */
import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { abortReason } from "../core/abort.js";
import { EvidentError } from "../core/errors.js";
import { MAX_REDIRECTS, MAX_RESPONSE_BODY_BYTES, MAX_RESPONSE_HEADER_BYTES } from "../core/limits.js";
import { type Logger, silentLogger } from "../core/logger.js";
import { contentCodings, decodeBody, isDecodeError } from "./encoding.js";
import { classifyNetworkError, classifyResponseError } from "./failure.js";
import {
  addressRefusal,
  canonicalAddress,
  checkAgentUrl,
  findGuardRefusal,
  GuardRefusal,
  guardedLookup,
  type LookupFunction,
  literalHost,
  urlNotAllowed,
} from "./guard.js";
import {
  bodyTooLarge,
  type HttpClient,
  HttpClientError,
  type HttpRequest,
  type HttpResponse,
} from "./http-client.js";
import { type ProxySettings, proxyFor } from "./proxy.js";
import { assertPublicUrl } from "./public-url.js";

export interface HttpClientOptions {
  /**
   * Lets agent-supplied URLs reach private, loopback and link-local addresses. Only an explicit
   * option turns the guard off; the client never reads the environment itself.
   */
  readonly allowPrivateNetwork?: boolean;
  /** DNS lookup used for connections (tests resolve names to loopback through it). */
  readonly lookup?: LookupFunction;
  readonly logger?: Logger;
  /** Sent unless a request sets its own `user-agent`. */
  readonly userAgent?: string;
  /**
   * Addresses the guard treats as public. Tests only: it lets a loopback server stand in for a
   * public site so that redirects and DNS rebinding are tested with the guard on.
   */
  readonly treatAsPublic?: readonly string[];
  /** HTTP proxies for outbound requests (resolved from HTTPS_PROXY etc. by the config layer). */
  readonly proxy?: ProxySettings;
  /**
   * Whether agent-supplied URLs may go through the proxy (default true: their host is resolved
   * and checked first). False refuses them with `url_not_allowed` wherever a proxy applies.
   */
  readonly agentUrlsViaProxy?: boolean;
}

const DEFAULT_USER_AGENT = "evident/0.1 (+https://github.com/evident)";
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Statuses whose response has no body (a web `Response` refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

type Undici = typeof import("undici");
let undiciModule: Promise<Undici> | undefined;
function loadUndici(): Promise<Undici> {
  undiciModule ??= import("undici");
  return undiciModule;
}

export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  return new UndiciHttpClient(options);
}

class UndiciHttpClient implements HttpClient {
  readonly #options: HttpClientOptions;
  readonly #allowPrivate: boolean;
  readonly #treatAsPublic: ReadonlySet<string>;
  #pools: Promise<{ operator: Dispatcher; agent: Dispatcher }> | undefined;
  /** Per proxy URL, created on first use: a CONNECT tunnel (https) and a forwarding pool (http). */
  readonly #proxies = new Map<string, Dispatcher>();
  #closed = false;

  constructor(options: HttpClientOptions) {
    this.#options = options;
    this.#allowPrivate = options.allowPrivateNetwork === true;
    this.#treatAsPublic = new Set((options.treatAsPublic ?? []).map(canonicalAddress));
  }

  #getPools(): Promise<{ operator: Dispatcher; agent: Dispatcher }> {
    this.#pools ??= loadUndici().then((undici) => {
      const lookup = this.#options.lookup;
      const head = { maxHeaderSize: MAX_RESPONSE_HEADER_BYTES };
      const operator = new undici.Agent(lookup === undefined ? head : { ...head, connect: { lookup } });
      if (this.#allowPrivate)
        return {
          operator,
          agent: new undici.Agent(lookup === undefined ? head : { ...head, connect: { lookup } }),
        };
      const base = undici.buildConnector({ lookup: guardedLookup(lookup, this.#treatAsPublic) });
      // IP literals never reach DNS, so the lookup hook cannot see them: check them here, on
      // the exact host undici is about to connect to.
      const connect: typeof base = (connectOptions, callback) => {
        const literal = literalHost(connectOptions.hostname);
        const why = literal === undefined ? undefined : addressRefusal(literal, this.#treatAsPublic);
        if (why !== undefined) {
          callback(new GuardRefusal(connectOptions.hostname, `its host is a ${why}`), null);
          return;
        }
        base(connectOptions, callback);
      };
      return { operator, agent: new undici.Agent({ ...head, connect }) };
    });
    return this.#pools;
  }

  async request(request: HttpRequest): Promise<HttpResponse> {
    const cap = request.maxBodyBytes ?? MAX_RESPONSE_BODY_BYTES;
    const { response, url } = await this.#exchange(request, cap);
    const codings = contentCodings(response.headers["content-encoding"]);
    let bytes: Uint8Array;
    try {
      bytes = await readCapped(decoded(response.body, codings), cap, request.signal);
    } catch (thrown) {
      throw thrown instanceof HttpClientError && thrown.kind === "network"
        ? this.#networkError(thrown.cause, url, false)
        : thrown;
    }
    return makeResponse(
      response.statusCode,
      decodedHeaders(flattenHeaders(response.headers), codings),
      url,
      bytes,
    );
  }

  async stream(request: HttpRequest): Promise<Response> {
    const cap = request.maxBodyBytes ?? MAX_RESPONSE_BODY_BYTES;
    const { response, url } = await this.#exchange(request, cap);
    const codings = contentCodings(response.headers["content-encoding"]);
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value === undefined) continue;
      if (codings.length > 0 && DECODED_AWAY.has(name.toLowerCase())) continue;
      for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
    }
    if (NULL_BODY_STATUSES.has(response.statusCode)) {
      await discard(response.body);
      return answeredAt(new Response(null, { status: response.statusCode, headers }), url);
    }
    // Read on demand (no Readable.toWeb: on Node 20 it writes to a cancelled stream and throws).
    const source = decoded(response.body, codings);
    const chunks = source[Symbol.asyncIterator]();
    let seen = 0;
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const next = await chunks.next();
          if (next.done) {
            controller.close();
            return;
          }
          const chunk = next.value as Buffer;
          seen += chunk.length;
          if (seen > cap) {
            source.destroy();
            controller.error(bodyTooLarge(cap));
            return;
          }
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        } catch (thrown) {
          controller.error(
            request.signal.aborted
              ? abortReason(request.signal)
              : (decodeFailure(thrown) ?? this.#networkError(thrown, url, false)),
          );
        }
      },
      cancel: () => {
        source.destroy();
      },
    });
    return answeredAt(new Response(body, { status: response.statusCode, headers }), url);
  }

  /**
   * Sends the request and follows redirects as it asks; resolves with the final response, its
   * body unread, once its declared length is known to fit `cap`.
   */
  async #exchange(
    request: HttpRequest,
    cap: number,
  ): Promise<{ response: Dispatcher.ResponseData; url: string }> {
    if (this.#closed) throw new HttpClientError("network", "the HTTP client is closed");
    if (request.signal.aborted) throw abortReason(request.signal);
    const follow = request.followRedirects ?? request.trust === "agent";
    const url = request.trust === "agent" ? checkAgentUrl(request.url, this.#policy()).href : request.url;
    const originalOrigin = new URL(url).origin;
    const headers = this.#headers(request);
    let hop: Hop = { url, method: request.method, headers, body: encodeBody(request.body, headers) };
    const sent = new Set([`${hop.method} ${withoutFragment(new URL(url))}`]);
    for (let count = 0; ; count++) {
      // Operator trust covers the configured origin only; a redirect elsewhere is guarded.
      const guarded = request.trust === "agent" || new URL(hop.url).origin !== originalOrigin;
      if (guarded && count > 0) checkAgentUrl(hop.url, this.#policy());
      const response = await this.#send(hop, request, guarded);
      if (follow && REDIRECT_STATUSES.has(response.statusCode)) {
        await discard(response.body);
        hop = redirected(hop, response.statusCode, response.headers.location, sent, count);
        continue;
      }
      const lengthHeader = response.headers["content-length"];
      const declared = typeof lengthHeader === "string" ? Number(lengthHeader) : Number.NaN;
      if (Number.isFinite(declared) && declared > cap) {
        response.body.destroy();
        throw bodyTooLarge(cap);
      }
      return { response, url: hop.url };
    }
  }

  /** One request on the wire: through the proxy that applies, else the pool of its trust. */
  async #send(hop: Hop, request: HttpRequest, guarded: boolean): Promise<Dispatcher.ResponseData> {
    const undici = await loadUndici();
    const pools = await this.#getPools();
    const proxy = proxyFor(new URL(hop.url), this.#options.proxy);
    if (guarded && proxy !== undefined) await this.#checkBeforeProxy(hop.url, request.signal);
    try {
      const options = { method: hop.method, headers: hop.headers, body: hop.body, signal: request.signal };
      if (proxy !== undefined && new URL(hop.url).protocol === "http:") {
        return await this.#forward(undici, proxy, hop.url, options);
      }
      return await undici.request(hop.url, {
        dispatcher:
          proxy !== undefined ? this.#tunnel(undici, proxy) : guarded ? pools.agent : pools.operator,
        ...options,
      });
    } catch (thrown) {
      throw this.#failure(thrown, request, hop.url, proxy !== undefined);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#pools === undefined) return;
    const pools = await this.#pools;
    // Destroy rather than close: a request still running at shutdown is aborted (its caller gets
    // a network error) instead of holding the shutdown until its deadline.
    await Promise.allSettled(
      [pools.operator, pools.agent, ...this.#proxies.values()].map((dispatcher) => dispatcher.destroy()),
    );
  }

  /**
   * The proxy connects to an agent URL's host, not us, so the connector's check cannot run on
   * the address used. The host is resolved and checked here first (the proxy resolves it again:
   * see docs/CONFIG.md), or refused outright when the operator keeps agent URLs off the proxy.
   */
  async #checkBeforeProxy(url: string, signal: AbortSignal): Promise<void> {
    if (this.#options.agentUrlsViaProxy === false) {
      throw urlNotAllowed(
        url,
        "the operator does not send agent-supplied URLs through the proxy (EVIDENT_AGENT_URLS_VIA_PROXY=false)",
      );
    }
    if (this.#allowPrivate) return;
    const check = assertPublicUrl(url, this.#policy(), this.#options.lookup);
    check.catch(() => {});
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(abortReason(signal));
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      check.then(() => resolve(), reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  /** https targets: a CONNECT tunnel through the proxy, TLS end to end with the target. */
  #tunnel(undici: Undici, proxy: string): Dispatcher {
    let dispatcher = this.#proxies.get(`tunnel ${proxy}`);
    if (dispatcher === undefined) {
      // The proxy is the operator's: trusted, reached without the guard.
      dispatcher = new undici.ProxyAgent({ uri: proxy, maxHeaderSize: MAX_RESPONSE_HEADER_BYTES });
      this.#proxies.set(`tunnel ${proxy}`, dispatcher);
    }
    return dispatcher;
  }

  /**
   * http targets: the request itself goes to the proxy in absolute form (`GET http://host/path`),
   * as curl and npm send it; common proxies refuse CONNECT to port 80. A 407 is the proxy's own
   * refusal, not the target's answer.
   */
  async #forward(
    undici: Undici,
    proxy: string,
    url: string,
    options: {
      method: HttpRequest["method"];
      headers: Record<string, string>;
      body: string | undefined;
      signal: AbortSignal;
    },
  ): Promise<Dispatcher.ResponseData> {
    const proxyUrl = new URL(proxy);
    let pool = this.#proxies.get(`forward ${proxy}`);
    if (pool === undefined) {
      pool = new undici.Pool(proxyUrl.origin, { maxHeaderSize: MAX_RESPONSE_HEADER_BYTES });
      this.#proxies.set(`forward ${proxy}`, pool);
    }
    const target = new URL(url);
    const response = await pool.request({
      ...options,
      // No fragment and no user information: what the target itself would be sent.
      path: `${target.origin}${target.pathname}${target.search}`,
      headers: { ...options.headers, host: target.host, ...proxyAuthorization(proxyUrl) },
    });
    if (response.statusCode === 407) {
      await discard(response.body);
      throw new HttpClientError("proxy", "proxy refused the request (HTTP 407)");
    }
    return response;
  }

  #policy() {
    return { allowPrivateNetwork: this.#allowPrivate, treatAsPublic: this.#treatAsPublic };
  }

  #headers(request: HttpRequest): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
    headers["user-agent"] ??= this.#options.userAgent ?? DEFAULT_USER_AGENT;
    return headers;
  }

  #failure(thrown: unknown, request: HttpRequest, url: string, proxied: boolean): Error {
    const refusal = findGuardRefusal(thrown);
    if (refusal !== undefined) {
      (this.#options.logger ?? silentLogger).debug("guard refused a connection", { host: refusal.host });
      return urlNotAllowed(url, refusal.why);
    }
    if (request.signal.aborted) return abortReason(request.signal);
    if (thrown instanceof EvidentError || thrown instanceof HttpClientError) return thrown;
    return this.#networkError(thrown, url, proxied);
  }

  /**
   * A transport failure as its class (an answer HTTP cannot carry before any network class),
   * logged at debug with the underlying code (never the URL).
   */
  #networkError(thrown: unknown, url: string, proxied: boolean): HttpClientError {
    const failure =
      classifyResponseError(thrown, MAX_RESPONSE_HEADER_BYTES) ?? classifyNetworkError(thrown, proxied);
    (this.#options.logger ?? silentLogger).debug(
      `request to ${new URL(url).host} failed: ${failure.detail}`,
      {
        class: failure.kind,
        ...(failure.code === undefined ? {} : { code: failure.code }),
      },
    );
    return new HttpClientError(failure.kind, failure.detail, {
      cause: thrown,
      ...(failure.code === undefined ? {} : { code: failure.code }),
    });
  }
}

/** What one hop of an exchange sends; a redirect gives the next. */
interface Hop {
  readonly url: string;
  readonly method: HttpRequest["method"];
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

/**
 * The hop a redirect asks for, or why it is not followed. `sent` holds every method and URL
 * already requested (the next is added); `count` is the redirects followed so far.
 */
function redirected(
  hop: Hop,
  status: number,
  location: string | string[] | undefined,
  sent: Set<string>,
  count: number,
): Hop {
  // A redirect that names no one place to go is told as such (an empty Location would
  // resolve to the URL itself and be followed into a loop).
  if (typeof location !== "string" || location.trim() === "") {
    const what = location === undefined ? "no" : Array.isArray(location) ? "more than one" : "an empty";
    throw new HttpClientError("redirect", `a redirect (HTTP ${status}) has ${what} Location header`);
  }
  let next: URL;
  try {
    next = new URL(location, hop.url);
  } catch {
    throw new HttpClientError("redirect", "a redirect pointed to an invalid URL");
  }
  if (next.protocol !== "http:" && next.protocol !== "https:") {
    throw urlNotAllowed(next.href, `a redirect pointed to the scheme ${next.protocol.replace(/:$/, "")}`);
  }
  let { method, headers, body } = hop;
  if (next.origin !== new URL(hop.url).origin) headers = stripCredentials(headers);
  // 303, and 301/302 after a POST, turn into a GET without a body (as browsers do).
  if (status === 303 || (method === "POST" && status <= 302)) {
    method = "GET";
    body = undefined;
    const { "content-type": _dropped, ...rest } = headers;
    headers = rest;
  }
  // Without cookies, a request sent again is answered again the same way: a loop.
  const again = `${method} ${withoutFragment(next)}`;
  if (sent.has(again)) {
    throw new HttpClientError(
      "redirect",
      `a redirect (HTTP ${status}) loops back to a URL already requested`,
    );
  }
  if (count + 1 > MAX_REDIRECTS)
    throw new HttpClientError("redirect", `more than ${MAX_REDIRECTS} redirects`);
  sent.add(again);
  return { url: next.href, method, headers, body };
}

/** The URL as a request sends it: a fragment never leaves the client. */
function withoutFragment(url: URL): string {
  const copy = new URL(url);
  copy.hash = "";
  return copy.href;
}

function encodeBody(body: HttpRequest["body"], headers: Record<string, string>): string | undefined {
  if (body === undefined) return undefined;
  if (typeof body === "string") return body;
  headers["content-type"] ??= "application/json";
  return JSON.stringify(body);
}

/** Credentials in the proxy URL (`http://user:pass@proxy:3128`), as ProxyAgent sends them. */
function proxyAuthorization(proxy: URL): { "proxy-authorization"?: string } {
  if (proxy.username === "" && proxy.password === "") return {};
  const pair = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { "proxy-authorization": `Basic ${Buffer.from(pair).toString("base64")}` };
}

/** Headers that may carry a credential are not sent to another origin after a redirect. */
function stripCredentials(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name === "accept" || name === "user-agent" || name === "accept-language") kept[name] = value;
  }
  return kept;
}

async function discard(body: Dispatcher.ResponseData["body"]): Promise<void> {
  try {
    await body.dump({ limit: 64 * 1024 });
  } catch {
    // A redirect body we do not read is worth nothing; its failure changes nothing.
  }
}

/** Headers that describe the encoded body, dropped once it is decoded. */
const DECODED_AWAY = new Set(["content-encoding", "content-length"]);

/** The body decoded; a decoder's own failure surfaces as an `encoding` error when read. */
function decoded(body: Dispatcher.ResponseData["body"], codings: readonly string[]): Readable {
  if (codings.length === 0) return body;
  try {
    return decodeBody(body, codings);
  } catch (thrown) {
    body.on("error", () => {}).destroy();
    throw thrown;
  }
}

function decodeFailure(thrown: unknown): HttpClientError | undefined {
  if (!isDecodeError(thrown)) return undefined;
  return new HttpClientError(
    "encoding",
    "the response body could not be decoded: it is damaged or cut short",
    {
      cause: thrown,
    },
  );
}

function decodedHeaders(headers: Record<string, string>, codings: readonly string[]): Record<string, string> {
  if (codings.length === 0) return headers;
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!DECODED_AWAY.has(name)) kept[name] = value;
  return kept;
}

/**
 * The Response with the URL finally answered, as `fetch` gives it: a constructed Response has
 * none, and a reader resolves the page's links against it.
 */
function answeredAt(response: Response, url: string): Response {
  Object.defineProperty(response, "url", { value: url });
  return response;
}

async function readCapped(body: Readable, cap: number, signal: AbortSignal): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      const buffer = chunk as Buffer;
      total += buffer.length;
      if (total > cap) {
        body.destroy();
        throw bodyTooLarge(cap);
      }
      chunks.push(buffer);
    }
  } catch (thrown) {
    if (thrown instanceof HttpClientError) throw thrown;
    if (signal.aborted) throw abortReason(signal);
    const failure = decodeFailure(thrown);
    if (failure !== undefined) throw failure;
    throw new HttpClientError("network", "the connection failed while reading the body", { cause: thrown });
  }
  return Buffer.concat(chunks, total);
}

function flattenHeaders(headers: Dispatcher.ResponseData["headers"]): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

function makeResponse(
  status: number,
  headers: Record<string, string>,
  url: string,
  body: Uint8Array,
): HttpResponse {
  let text: string | undefined;
  return {
    status,
    headers,
    url,
    body,
    text() {
      text ??= new TextDecoder("utf-8").decode(body);
      return text;
    },
    json() {
      return JSON.parse(this.text()) as unknown;
    },
  };
}
