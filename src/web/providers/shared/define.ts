/**
 * An HTTP vendor adapter as a description: its base URL, how its key is sent, which statuses it
 * reads its own way, and for each operation a request mapping and a response mapping. This
 * module owns everything the adapters share: the id, the key (trimmed, required or optional),
 * the capabilities, the deadline override, headers, transport and status failures, JSON decoding.
 */
import { MAX_RESPONSE_BODY_BYTES } from "../../../core/limits.js";
import { traceHeaders } from "../../../core/trace.js";
import type { HttpResponse } from "../../../net/http-client.js";
import type {
  Provider,
  ProviderContext,
  ProviderError,
  ProviderReadOutcome,
  ProviderReadRequest,
  ProviderSearchOutcome,
  ProviderSearchRequest,
} from "../../provider.js";
import { httpStatusError, joinUrl, parseJson, transportError, withQuery } from "./http.js";
import { text } from "./values.js";

/** Options every vendor factory accepts; the config layer maps settings onto them. */
export interface VendorProviderOptions {
  /** Provider id as routes and fan-out name it; defaults to the adapter name (`tavily`, ...). */
  readonly id?: string;
  /** Overrides the vendor's documented base URL (proxies, self-hosting, tests). */
  readonly baseUrl?: string;
  /** Per-attempt deadline override, connection included; the router applies it. */
  readonly attemptDeadlineMs?: number;
}

/** What a mapping knows about the provider it serves. */
export interface Vendor<O> {
  readonly id: string;
  readonly options: O;
  /** The trimmed key, or undefined when none was configured. */
  readonly key: string | undefined;
  /** The configured base URL, else the vendor's documented one. */
  readonly baseUrl: string;
}

/** One request as the vendor documents it; the helper adds auth and sends it. */
export interface WireRequest {
  readonly method: "GET" | "POST";
  readonly path: string;
  /** A base other than the provider's (Jina's reader, search and question hosts). */
  readonly base?: string;
  /** Query parameters; undefined values are left out. */
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON. */
  readonly body?: Readonly<Record<string, unknown>>;
}

/** Sending described requests for an operation that needs more than one round trip. */
export interface VendorCall {
  /** A 2xx answer parsed as JSON (`Accept: application/json`); HTML or broken JSON is `malformed`. */
  json(wire: WireRequest): Promise<unknown>;
  /** A 2xx answer as it came (a scraped page). */
  response(wire: WireRequest): Promise<HttpResponse>;
}

/** An operation that is one JSON request and its answer. */
export interface JsonOperation<R, Out, O> {
  request(request: R, vendor: Vendor<O>): WireRequest;
  response(body: unknown, request: R, vendor: Vendor<O>): Out;
}

/** An operation that needs its own sequence of requests (a fallback, a scraped page). */
export interface RunOperation<R, Out, O> {
  run(request: R, vendor: Vendor<O>, call: VendorCall): Promise<Out>;
}

export type Operation<R, Out, O> = (JsonOperation<R, Out, O> | RunOperation<R, Out, O>) & {
  /** Offered only when a key is configured (Jina's search). */
  readonly requiresKey?: boolean;
};

export interface HttpProviderDescription<O> {
  /** The adapter name, also the default provider id. */
  readonly adapter: string;
  /** The vendor's documented base URL; without one the operator must configure it. */
  readonly baseUrl?: string;
  /** How the key is sent (`header: prefix + key`); required keys are checked at creation. */
  readonly auth?: { readonly header: string; readonly prefix?: string; readonly required: boolean };
  /** Called without the operator's credential: always, never (default), or when no key is set. */
  readonly anonymous?: boolean | "without-key";
  /** Other required options: returns what is missing ("a model is required"), else undefined. */
  readonly check?: (options: O) => string | undefined;
  /** Statuses the vendor gives a meaning of its own, read before the 2xx check. */
  readonly statuses?: Readonly<Record<number, (id: string) => ProviderError>>;
  readonly search?: Operation<ProviderSearchRequest, ProviderSearchOutcome, O>;
  /** `focus`: the read maps a focus to something the vendor really does with it. */
  readonly read?: Operation<ProviderReadRequest, ProviderReadOutcome, O> & { readonly focus?: boolean };
  /** The cheapest documented request proving the key and the connection. */
  readonly probe?: Operation<undefined, void, O>;
}

type Options = VendorProviderOptions & { readonly apiKey?: string };
/** Factories whose options are all optional may be called without any. */
type FactoryArgs<O> = object extends O ? [options?: O] : [options: O];

export function defineHttpProvider<O extends Options>(
  description: HttpProviderDescription<O>,
): (...args: FactoryArgs<O>) => Provider {
  return (...args) => {
    const options = (args[0] ?? {}) as O;
    const vendor = resolveVendor(description, options);
    const offered = <T extends { readonly requiresKey?: boolean }>(operation: T | undefined) =>
      operation !== undefined && (operation.requiresKey !== true || vendor.key !== undefined)
        ? operation
        : undefined;
    const search = offered(description.search);
    const read = offered(description.read);
    const probe = offered(description.probe);
    const run = <R, Out>(operation: Operation<R, Out, O>) => bindOperation(description, vendor, operation);
    return {
      id: vendor.id,
      adapter: description.adapter,
      anonymous:
        description.anonymous === "without-key" ? vendor.key === undefined : description.anonymous === true,
      capabilities: { search: search !== undefined, read: read !== undefined, focus: read?.focus === true },
      ...(options.attemptDeadlineMs === undefined ? {} : { attemptDeadlineMs: options.attemptDeadlineMs }),
      ...(search === undefined ? {} : { search: run(search) }),
      ...(read === undefined ? {} : { read: run(read) }),
      ...(probe === undefined ? {} : { probe: (context: ProviderContext) => run(probe)(undefined, context) }),
    };
  };
}

/** The id, key and base URL, or a TypeError naming what the operator must still configure. */
function resolveVendor<O extends Options>(description: HttpProviderDescription<O>, options: O): Vendor<O> {
  const id = options.id ?? description.adapter;
  const missing = description.check?.(options);
  if (missing !== undefined) throw new TypeError(`${id}: ${missing}`);
  // A blank key is no key.
  const key = text(options.apiKey);
  if (description.auth?.required === true && key === undefined) {
    throw new TypeError(`${id}: an API key is required`);
  }
  const baseUrl = options.baseUrl ?? description.baseUrl;
  // A vendor without a documented default (SearXNG) needs a configured one.
  if (baseUrl === undefined || (description.baseUrl === undefined && text(baseUrl) === undefined)) {
    throw new TypeError(`${id}: a base URL is required`);
  }
  return { id, options, key, baseUrl };
}

function bindOperation<R, Out, O extends Options>(
  description: HttpProviderDescription<O>,
  vendor: Vendor<O>,
  operation: Operation<R, Out, O>,
): (request: R, context: ProviderContext) => Promise<Out> {
  return async (request, context) => {
    const call = vendorCall(description, vendor, context);
    if ("run" in operation) return operation.run(request, vendor, call);
    const body = await call.json(operation.request(request, vendor));
    return operation.response(body, request, vendor);
  };
}

function vendorCall<O extends Options>(
  description: HttpProviderDescription<O>,
  vendor: Vendor<O>,
  context: ProviderContext,
): VendorCall {
  const auth = description.auth;
  const credential: Record<string, string> =
    auth === undefined || vendor.key === undefined
      ? {}
      : { [auth.header]: `${auth.prefix ?? ""}${vendor.key}` };
  const response = async (wire: WireRequest, accept: Record<string, string>) => {
    const url = joinUrl(wire.base ?? vendor.baseUrl, wire.path);
    let answer: HttpResponse;
    try {
      answer = await context.http.request({
        method: wire.method,
        url: wire.query === undefined ? url : withQuery(url, wire.query),
        // The caller's trace context rides along to the vendor (operator-configured, not an agent's URL).
        headers: { ...accept, ...traceHeaders(context.trace), ...credential, ...wire.headers },
        body: wire.body,
        // Base URLs come from the operator's configuration, so loopback or intranet is fine here;
        // the public-URL guard is for URLs an agent supplies.
        trust: "operator",
        followRedirects: false,
        signal: context.signal,
        maxBodyBytes: MAX_RESPONSE_BODY_BYTES,
      });
    } catch (thrown) {
      throw transportError(vendor.id, context.signal, thrown);
    }
    const own = description.statuses?.[answer.status];
    if (own !== undefined) throw own(vendor.id);
    if (answer.status < 200 || answer.status > 299) throw httpStatusError(vendor.id, answer);
    return answer;
  };
  return {
    json: async (wire) => parseJson(vendor.id, await response(wire, { accept: "application/json" })),
    response: (wire) => response(wire, {}),
  };
}
