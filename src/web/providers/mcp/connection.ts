/**
 * One upstream MCP server, reached through the official SDK client over a stdio child or
 * Streamable HTTP, and the lifecycle around it:
 *
 * - Lazy: nothing starts until the first call.
 * - Shared initialization: concurrent first calls wait on one connect. The connect counts its
 *   waiters; when the last one gives up (cancelled, deadline) the connect itself is aborted and its
 *   child reaped, while a connect that still has waiters keeps going for them.
 * - Reuse: later calls use the same session.
 * - Loss: a disconnection (child exit, transport close, network failure) or an HTTP 404 for a lost
 *   session drops the cached session so the next call reconnects. The failed call is never replayed:
 *   it may have had effects upstream, and the router owns fallback.
 * - Cancellation: our signal goes to the SDK request, which cancels the upstream request.
 * - HTTP: requests go through the provider context's HttpClient (net/), as every provider's
 *   do: the configured origin is trusted, a redirect elsewhere is guarded like an agent URL,
 *   bodies are capped while they stream, and cancellation reaches the socket.
 * - Shutdown: `close()` aborts pending connects and in-flight calls, sends a best-effort session
 *   DELETE bounded by UPSTREAM_SESSION_DELETE_MS, closes the transport (reaping a child) and is
 *   idempotent: concurrent calls share one teardown.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  Client,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { credentialVariableProblem } from "../../../config/placeholder.js";
import { abortReason } from "../../../core/abort.js";
import { isEvidentError } from "../../../core/errors.js";
import { absolutePath, findOnPath } from "../../../core/executables.js";
import { MAX_RESPONSE_BODY_BYTES, UPSTREAM_SESSION_DELETE_MS } from "../../../core/limits.js";
import type { Logger } from "../../../core/logger.js";
import { classifyNetworkError } from "../../../net/failure.js";
import { type FetchLike, fetchVia } from "../../../net/fetch.js";
import { type HttpClient, HttpClientError } from "../../../net/http-client.js";
import { ProviderError } from "../../provider.js";
import { clientFailure } from "../shared/http.js";
import { isStdioConnection, type McpConnection, type SecretValue } from "./binding.js";
import type { ToolResultLike } from "./output.js";

/** Proxy variables a stdio upstream inherits (the SDK's default environment leaves them out). */
const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"];

export interface UpstreamOptions {
  readonly providerId: string;
  readonly connection: McpConnection;
  /** Where credential references are resolved, at connect time (never stored). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  /** Upper bound the SDK applies to one request; our own signals normally stop it first. */
  readonly requestTimeoutMs: number;
  readonly clientInfo: { readonly name: string; readonly version: string };
}

interface Session {
  readonly client: Client;
  readonly transport: StdioClientTransport | StreamableHTTPClientTransport;
  lost: boolean;
  /** Set when the stdio reader gave up on a message over the response cap. */
  overflowed?: boolean;
}

interface PendingConnect {
  readonly controller: AbortController;
  readonly promise: Promise<Session>;
  waiters: number;
  settled: boolean;
}

export class UpstreamConnection {
  readonly #options: UpstreamOptions;
  #session: Session | undefined;
  #pending: PendingConnect | undefined;
  readonly #inFlight = new Set<AbortController>();
  /** Connects and dropped sessions still winding down (children being reaped); close() awaits them. */
  readonly #retiring = new Set<Promise<unknown>>();
  #closing: Promise<void> | undefined;
  #connects = 0;

  constructor(options: UpstreamOptions) {
    this.#options = options;
  }

  /** The stdio child's pid while a session is open (for diagnostics and tests), else null. */
  get pid(): number | null {
    const transport = this.#session?.transport;
    return transport instanceof StdioClientTransport ? transport.pid : null;
  }

  /** How many connects have been started over this connection's life. */
  get connectCount(): number {
    return this.#connects;
  }

  get connected(): boolean {
    return this.#session !== undefined && !this.#session.lost;
  }

  /**
   * Calls one upstream tool. `http` is the provider context's client: an HTTP upstream connects
   * through it (see `#transport`), so it gets the same redirect guard, limits and cancellation as
   * every provider. `meta`: the request's `_meta` (the caller's trace context).
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    http: HttpClient,
    meta?: Readonly<Record<string, string>>,
  ): Promise<ToolResultLike> {
    const id = this.#options.providerId;
    const session = await this.#acquire(signal, http);
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    this.#inFlight.add(controller);
    try {
      const result = await callScope.run(controller.signal, () =>
        session.client.callTool(
          { name, arguments: args, ...(meta === undefined ? {} : { _meta: { ...meta } }) },
          { signal: controller.signal, timeout: this.#options.requestTimeoutMs },
        ),
      );
      return result as ToolResultLike;
    } catch (thrown) {
      if (signal.aborted) throw abortReason(signal);
      if (this.#closing !== undefined) throw closedError(id, thrown);
      if (session.lost || isLostConnection(thrown, session)) {
        this.#drop(session, "the upstream connection was lost");
      }
      throw callError(id, session.overflowed === true ? new BodyTooLargeError() : thrown);
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.#inFlight.delete(controller);
    }
  }

  /** Idempotent teardown; concurrent calls await the same one. */
  close(): Promise<void> {
    this.#closing ??= this.#teardown();
    return this.#closing;
  }

  async #teardown(): Promise<void> {
    const reason = closedError(this.#options.providerId);
    this.#pending?.controller.abort(reason);
    for (const controller of this.#inFlight) controller.abort(reason);
    const pending = this.#pending;
    // A connect in progress settles promptly once aborted, and only after its child is reaped;
    // dropped sessions likewise. Waiting for all of them means no child outlives close().
    if (pending !== undefined) await pending.promise.catch(() => undefined);
    await Promise.all([...this.#retiring]);
    const session = this.#session;
    this.#session = undefined;
    if (session !== undefined) await closeSession(session, true);
  }

  async #acquire(signal: AbortSignal, http: HttpClient): Promise<Session> {
    if (signal.aborted) throw abortReason(signal);
    if (this.#closing !== undefined) throw closedError(this.#options.providerId);
    const current = this.#session;
    if (current !== undefined && !current.lost) return current;
    // A connect whose waiters all left is being torn down; a new caller starts afresh.
    const joinable = this.#pending !== undefined && !this.#pending.controller.signal.aborted;
    const pending = joinable && this.#pending !== undefined ? this.#pending : this.#startConnect(http);
    pending.waiters += 1;
    let onAbort: (() => void) | undefined;
    try {
      return await new Promise<Session>((resolve, reject) => {
        onAbort = () => reject(abortReason(signal));
        signal.addEventListener("abort", onAbort, { once: true });
        pending.promise.then(resolve, reject);
      });
    } finally {
      if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
      pending.waiters -= 1;
      // The last waiter leaving an unfinished connect takes it down; others keep it alive.
      if (signal.aborted && pending.waiters === 0 && !pending.settled) {
        pending.controller.abort(abortReason(signal));
      }
    }
  }

  #startConnect(http: HttpClient): PendingConnect {
    const controller = new AbortController();
    this.#connects += 1;
    const pending: PendingConnect = {
      controller,
      waiters: 0,
      settled: false,
      promise: this.#open(controller.signal, http).then(
        (session) => {
          pending.settled = true;
          if (this.#pending === pending) this.#pending = undefined;
          this.#session = session;
          return session;
        },
        (error: unknown) => {
          pending.settled = true;
          if (this.#pending === pending) this.#pending = undefined;
          throw error;
        },
      ),
    };
    // Waiters that gave up no longer listen; the rejection is theirs to ignore, not unhandled.
    this.#track(pending.promise.catch(() => undefined));
    this.#pending = pending;
    return pending;
  }

  async #open(signal: AbortSignal, http: HttpClient): Promise<Session> {
    const { providerId, connection, logger } = this.#options;
    const transport = await this.#transport(connection, http);
    const client = new Client(
      { name: this.#options.clientInfo.name, version: this.#options.clientInfo.version },
      { capabilities: {} },
    );
    const session: Session = { client, transport, lost: false };
    // Aborting a connect must reap a child even if the handshake is stuck before any request.
    // The first close() is the one that waits for the child, so it is the one awaited below.
    let closing: Promise<void> | undefined;
    const closeTransport = (): Promise<void> => {
      closing ??= transport.close().catch(() => undefined);
      return closing;
    };
    const onAbort = () => {
      void closeTransport();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      await client.connect(transport, { signal, timeout: this.#options.requestTimeoutMs });
    } catch (thrown) {
      await closeTransport();
      await client.close().catch(() => undefined);
      if (signal.aborted) throw stopReason(signal);
      throw connectError(providerId, thrown);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    if (signal.aborted) {
      await closeSession(session, false);
      throw stopReason(signal);
    }
    client.onclose = () => this.#drop(session, "the upstream closed the connection");
    client.onerror = (error) => {
      // The stdio reader reports a message over `maxBufferSize` this way, then closes.
      if (/ReadBuffer exceeded maximum size/.test(error.message)) session.overflowed = true;
      logger.debug("upstream MCP transport error", { provider: providerId, error });
    };
    logger.debug("upstream MCP connected", { provider: providerId });
    return session;
  }

  async #transport(
    connection: McpConnection,
    http: HttpClient,
  ): Promise<StdioClientTransport | StreamableHTTPClientTransport> {
    const id = this.#options.providerId;
    if (isStdioConnection(connection)) {
      const env: Record<string, string> = { ...getDefaultEnvironment() };
      // The operator's proxy applies to the child's outbound requests too, as to ours.
      for (const name of PROXY_VARIABLES) {
        const value = this.#options.env[name];
        if (value !== undefined && value !== "") env[name] = value;
      }
      for (const [key, value] of Object.entries(connection.env ?? {})) env[key] = this.#secret(value);
      // A relative PATH entry (`./node_modules/.bin`) is resolved in the working directory, often
      // a repository: neither the command nor what it runs by name (npx's `node`) may come from it.
      if (env.PATH !== undefined) env.PATH = absolutePath(env.PATH);
      return new StdioClientTransport({
        command: await this.#command(connection.command, env),
        args: connection.args ?? [],
        env,
        // The child's stderr is its log, not ours to forward: stdout may be our MCP protocol.
        stderr: "ignore",
        maxBufferSize: MAX_RESPONSE_BODY_BYTES,
        ...(connection.cwd === undefined ? {} : { cwd: connection.cwd }),
      });
    }
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(connection.headers ?? {})) headers[key] = this.#secret(value);
    let url: URL;
    try {
      url = new URL(connection.url);
    } catch (cause) {
      throw new ProviderError(id, "configuration", `${id} upstream URL is not valid`, { cause });
    }
    return new StreamableHTTPClientTransport(url, {
      requestInit: { headers },
      fetch: followingCall(fetchVia(http, "operator")),
      // A lost stream is a lost call; we never reconnect behind the router's back.
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 1_000,
        maxReconnectionDelay: 1_000,
        reconnectionDelayGrowFactor: 1,
      },
    });
  }

  /** A bare command name as its absolute path, found in PATH's absolute entries only. */
  async #command(command: string, env: Readonly<Record<string, string>>): Promise<string> {
    // A path is the operator's own choice; Windows looks commands up its own way (PATHEXT).
    if (command.includes("/") || process.platform === "win32") return command;
    const found = await findOnPath(env, command);
    if (found !== undefined) return found;
    const id = this.#options.providerId;
    throw new ProviderError(
      id,
      "configuration",
      `${id} upstream command ${JSON.stringify(command)} is not on PATH (its absolute entries); give its absolute path in connection.command`,
    );
  }

  #secret(value: SecretValue): string {
    if (typeof value === "string") return value;
    const found = this.#options.env[value.env];
    const id = this.#options.providerId;
    if (found === undefined || found.trim().length === 0) {
      const state =
        found === undefined ? "is not set" : found === "" ? "is set but empty" : "holds only whitespace";
      throw new ProviderError(
        id,
        "configuration",
        `${id} needs the environment variable ${value.env}, which ${state}`,
      );
    }
    const problem = credentialVariableProblem(value.env, found);
    if (problem !== undefined) throw new ProviderError(id, "configuration", `${id} cannot use ${problem}`);
    return `${value.prefix ?? ""}${found.trim()}`;
  }

  #track(work: Promise<unknown>): void {
    this.#retiring.add(work);
    void work.finally(() => this.#retiring.delete(work));
  }

  #drop(session: Session, why: string): void {
    if (session.lost) return;
    session.lost = true;
    if (this.#session === session) this.#session = undefined;
    this.#options.logger.debug("upstream MCP session dropped; the next call reconnects", {
      provider: this.#options.providerId,
      why,
    });
    if (this.#closing === undefined) this.#track(closeSession(session, false));
  }
}

/** Why a connect stopped: shutdown keeps its ProviderError, a caller's abort its EvidentError. */
function stopReason(signal: AbortSignal): unknown {
  return signal.reason instanceof ProviderError ? signal.reason : abortReason(signal);
}

/** Closes a session; with `terminate`, first a best-effort, bounded HTTP session DELETE. */
async function closeSession(session: Session, terminate: boolean): Promise<void> {
  session.lost = true;
  const { client, transport } = session;
  if (terminate && transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, UPSTREAM_SESSION_DELETE_MS);
      timer.unref?.();
    });
    // Closing the transport below aborts a DELETE still waiting when the bound expires.
    await Promise.race([transport.terminateSession().catch(() => undefined), bound]);
    clearTimeout(timer);
  }
  await client.close().catch(() => undefined);
  await transport.close().catch(() => undefined);
}

/** A stdio upstream's message over the cap (an HTTP upstream's is the client's `body_too_large`). */
class BodyTooLargeError extends Error {
  constructor() {
    super(`upstream response exceeded ${MAX_RESPONSE_BODY_BYTES} bytes`);
    this.name = "BodyTooLargeError";
  }
}

/**
 * The signal of the tool call whose code is running. On a 2025-era HTTP session the SDK cancels a
 * request only by posting `notifications/cancelled`, leaving the request's own POST (and its
 * socket) open; fetches issued for a call therefore also follow that call's signal, so that
 * cancellation reaches the socket. The cancellation notice itself is sent from the aborting
 * code's context, outside the call, and still goes out.
 */
const callScope = new AsyncLocalStorage<AbortSignal>();

/** A fetch whose requests also follow the signal of the call they are made for (see callScope). */
function followingCall(fetch: FetchLike): FetchLike {
  return (url, init) => {
    const call = callScope.getStore();
    if (call === undefined) return fetch(url, init);
    const signal = init?.signal ? AbortSignal.any([init.signal, call]) : call;
    return fetch(url, { ...init, signal });
  };
}

function isLostConnection(thrown: unknown, session: Session): boolean {
  if (thrown instanceof SdkHttpError) return thrown.status === 404;
  if (thrown instanceof SdkError) {
    return (
      thrown.code === SdkErrorCode.ConnectionClosed ||
      thrown.code === SdkErrorCode.NotConnected ||
      thrown.code === SdkErrorCode.SendFailed
    );
  }
  // Over HTTP, a request that failed outright (reset, refused) means the server went away.
  return (
    session.transport instanceof StreamableHTTPClientTransport &&
    causeChain(thrown).some((error) => error instanceof HttpClientError && error.kind !== "body_too_large")
  );
}

function closedError(providerId: string, cause?: unknown): ProviderError {
  return new ProviderError(providerId, "cancelled", `${providerId} was shut down`, { cause });
}

/** Anything a connect threw, as a sanitized ProviderError. */
function connectError(providerId: string, thrown: unknown): ProviderError {
  const code = (thrown as { code?: unknown } | undefined)?.code;
  if (code === "ENOENT" || code === "EACCES") {
    return new ProviderError(
      providerId,
      "configuration",
      `${providerId} could not start its upstream command`,
      {
        cause: thrown,
      },
    );
  }
  return upstreamError(providerId, thrown, `${providerId} request failed`);
}

/** The SDK's own failures the router tells apart: their class and fixed words. */
const SDK_FAILURES: Partial<Record<SdkErrorCode, readonly [ProviderError["kind"], string]>> = {
  [SdkErrorCode.RequestTimeout]: ["timeout", "did not answer within the deadline"],
  [SdkErrorCode.ConnectionClosed]: ["network", "upstream connection was lost"],
  [SdkErrorCode.NotConnected]: ["network", "upstream connection was lost"],
  [SdkErrorCode.ClientHttpUnexpectedContent]: ["malformed", "returned an unexpected response"],
  [SdkErrorCode.InvalidResult]: ["malformed", "returned an unexpected response"],
};

/** Anything a tool call threw, as a sanitized ProviderError. */
function callError(providerId: string, thrown: unknown): ProviderError {
  return upstreamError(providerId, thrown, `${providerId} request failed`);
}

/**
 * Reasons are built from the provider id and fixed words only, like every adapter's: what the
 * upstream or the SDK said stays in `cause`, for logs.
 */
function upstreamError(providerId: string, thrown: unknown, otherwise: string): ProviderError {
  if (thrown instanceof ProviderError) return thrown;
  const options = { cause: thrown };
  const chain = causeChain(thrown);
  // What the HTTP client refused or failed with (an HTTP upstream): named as for every provider.
  const refused = chain.find((error) => isEvidentError(error) && error.code === "url_not_allowed");
  if (refused !== undefined) {
    return new ProviderError(
      providerId,
      "configuration",
      `${providerId} upstream redirected to a URL that is not allowed`,
      options,
    );
  }
  const client = chain.find((error) => error instanceof HttpClientError);
  if (client !== undefined) return clientFailure(providerId, client);
  if (chain.some((error) => error instanceof BodyTooLargeError)) {
    return new ProviderError(
      providerId,
      "too_large",
      `${providerId} response exceeded ${MAX_RESPONSE_BODY_BYTES / (1024 * 1024)} MiB`,
      options,
    );
  }
  if (thrown instanceof SdkHttpError) {
    return new ProviderError(providerId, "http", `${providerId} HTTP ${thrown.status}`, {
      ...options,
      status: thrown.status,
    });
  }
  if (thrown instanceof SdkError) {
    const [kind, words] = SDK_FAILURES[thrown.code] ?? ["upstream", undefined];
    return new ProviderError(
      providerId,
      kind,
      words === undefined ? otherwise : `${providerId} ${words}`,
      options,
    );
  }
  if (causeChain(thrown).some((error) => error instanceof SyntaxError)) {
    return new ProviderError(providerId, "malformed", `${providerId} returned malformed JSON`, options);
  }
  const rpcCode = (thrown as { code?: unknown } | undefined)?.code;
  if (typeof rpcCode === "number") {
    return new ProviderError(
      providerId,
      "upstream",
      `${providerId} upstream rejected the call (JSON-RPC ${rpcCode})`,
      options,
    );
  }
  // A fetch that failed below HTTP names its class when Node gave a code (ENOTFOUND, ECONNREFUSED...).
  const network = classifyNetworkError(thrown);
  if (network.code !== undefined) {
    return new ProviderError(providerId, network.kind, `${providerId}: ${network.detail}`, options);
  }
  return new ProviderError(providerId, "network", otherwise, options);
}

function causeChain(thrown: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = thrown;
  while (current !== undefined && current !== null && chain.length < 8 && !chain.includes(current)) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}
