/**
 * The web router: which providers a call reaches, in what order, under which deadlines.
 *
 * Route mode (web_search without `providers`, web_read without `reader`) walks an ordered chain:
 * one attempt per provider, never two at once, never a retry; a failure moves to the next
 * provider, while cancellation or the overall deadline stops the chain. Fan-out mode
 * (`providers: [...]`) calls exactly the named providers in parallel and reports each outcome.
 * An explicit `reader` is tried alone, never with a fallback. The router decides; adapters only
 * translate, and the envelope only formats.
 */

import { abortReason, raceAbort, withDeadline } from "../core/abort.js";
import { EvidentError } from "../core/errors.js";
import { PROVIDER_ATTEMPT_DEADLINE_MS, WEB_MAX_RESULTS_DEFAULT } from "../core/limits.js";
import { type Logger, silentLogger } from "../core/logger.js";
import type { Metrics } from "../core/metrics.js";
import { type Phrasing, phrasingFor } from "../core/phrasing.js";
import type { ToolSuccess } from "../core/result.js";
import { success } from "../core/result.js";
import type { TraceContext } from "../core/trace.js";
import { networkNextStep, underlyingCode } from "../net/failure.js";
import { canonicalAddress, type LookupFunction } from "../net/guard.js";
import type { HttpClient } from "../net/http-client.js";
import { assertPublicUrl } from "../net/public-url.js";
import {
  buildReadEnvelope,
  buildSearchEnvelope,
  type Provenance,
  type ReadEnvelope,
  type ReadEnvelopeInput,
  type SearchEnvelope,
} from "./envelope.js";
import {
  type Provider,
  type ProviderContext,
  ProviderError,
  type ProviderFailure,
  type TimeRange,
} from "./provider.js";
import type { KeptPage, ReadPages } from "./read-pages.js";

export interface SearchInput {
  readonly query: string;
  readonly intent?: string;
  readonly maxResults?: number;
  readonly timeRange?: TimeRange;
  readonly providers?: readonly string[];
}

export interface ReadInput {
  readonly url: string;
  readonly reader?: string;
  readonly focus?: string;
}

/** Where the router finds providers by id (the ProviderSet, or a plain map in tests). */
export interface ProviderSource {
  has(id: string): boolean;
  /** Every id, or only those that can do `capability`. */
  ids(capability?: "search" | "read"): string[];
  get(id: string): Promise<Provider>;
}

export interface RouterOptions {
  readonly providers: ProviderSource;
  readonly http: HttpClient;
  readonly searchRoute: readonly string[];
  readonly intentRoutes?: Readonly<Record<string, readonly string[]>>;
  readonly readRoute: readonly string[];
  readonly callDeadlineMs: number;
  /** Default per-attempt deadline (a provider's own `attemptDeadlineMs` wins). */
  readonly attemptDeadlineMs?: number;
  readonly envelopeBudgetChars: number;
  readonly allowPrivateNetwork: boolean;
  /** Addresses treated as public by the URL check (tests only; see HttpClientOptions). */
  readonly treatAsPublic?: readonly string[];
  readonly logger?: Logger;
  /** DNS lookup for checking agent URLs before a provider is asked to fetch them. */
  readonly lookup?: LookupFunction;
  readonly now?: () => Date;
  /** Where long reads are kept for their cursors; without it a long read is only clipped. */
  readonly pages?: ReadPages;
  /** How advice in warnings and errors is written for the surface (default: MCP's). */
  readonly phrasing?: Phrasing;
  /** Where provider attempts and failures are counted (`/metrics`). */
  readonly metrics?: Metrics;
}

/** What a call passes down to its provider attempts besides its arguments. */
export interface CallScope {
  /** The caller's trace context: vendor requests carry it (ProviderContext.trace). */
  readonly trace?: TraceContext;
  /** The call's logger (its lines carry the request id); the router's own otherwise. */
  readonly logger?: Logger;
}

/** A call's attempts: its signal, its operation (a metrics label) and its scope. */
interface AttemptScope extends CallScope {
  readonly signal: AbortSignal;
  readonly operation: "search" | "read";
}

type Attempt<T> =
  | { readonly ok: true; readonly outcome: T; readonly anonymous: boolean }
  | {
      readonly ok: false;
      readonly reason: string;
      readonly failure: ProviderFailure;
      readonly error: unknown;
    };

/** What failed providers are reported with: a sanitized reason and its class, per provider id. */
export interface Failures {
  readonly reasons: Record<string, string>;
  readonly classes: Record<string, ProviderFailure>;
}

export class WebRouter {
  readonly #options: RouterOptions;
  readonly #logger: Logger;

  constructor(options: RouterOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  async search(
    input: SearchInput,
    signal: AbortSignal,
    scope: CallScope = {},
  ): Promise<ToolSuccess<SearchEnvelope>> {
    const named = input.providers === undefined ? undefined : this.#knownIds(input.providers, "providers");
    const request = {
      query: input.query,
      maxResults: input.maxResults ?? WEB_MAX_RESULTS_DEFAULT,
      ...(input.timeRange === undefined ? {} : { timeRange: input.timeRange }),
      ...(input.intent === undefined ? {} : { intent: input.intent }),
    };
    const call = withDeadline(signal, this.#options.callDeadlineMs, "web_search", { keepAlive: true });
    try {
      const base = {
        tool: "web_search" as const,
        query: input.query,
        ...(input.intent === undefined ? {} : { intent: input.intent }),
      };
      const run = (provider: Provider, context: ProviderContext) => {
        if (!provider.capabilities.search || provider.search === undefined) {
          throw new ProviderError(provider.id, "configuration", `${provider.id} cannot search`);
        }
        return provider.search(request, context);
      };
      if (named !== undefined) {
        const { answered, failures } = await this.#fanOut(
          named,
          { ...scope, signal: call.signal, operation: "search" },
          run,
        );
        const used = answered.map((answer) => answer.id);
        const anonymous = answered.filter((answer) => answer.anonymous).map((answer) => answer.id);
        const fitted = buildSearchEnvelope({
          provenance: this.#provenance(base, "fanout", named, used, anonymous),
          warnings: this.#warnings(answered),
          ...failureFields(failures),
          outcomes: answered,
          budgetChars: this.#options.envelopeBudgetChars,
        });
        return success(fitted.json, fitted.data);
      }
      const intents = this.#options.intentRoutes;
      // Own routes only: an intent such as "constructor" must not find Object's properties.
      const route =
        (input.intent !== undefined && intents !== undefined && Object.hasOwn(intents, input.intent)
          ? intents[input.intent]
          : undefined) ?? this.#options.searchRoute;
      const { id, outcome, anonymous, attempted, failures } = await this.#route(
        route,
        { ...scope, signal: call.signal, operation: "search" },
        run,
      );
      const fitted = buildSearchEnvelope({
        provenance: this.#provenance(base, "route", attempted, [id], anonymous ? [id] : []),
        warnings: this.#warnings([{ id, outcome }], failures),
        ...failureFields(failures),
        outcomes: [{ id, outcome }],
        budgetChars: this.#options.envelopeBudgetChars,
      });
      return success(fitted.json, fitted.data);
    } finally {
      call.dispose();
    }
  }

  async read(
    input: ReadInput,
    signal: AbortSignal,
    caller = "anonymous",
    scope: CallScope = {},
  ): Promise<ToolSuccess<ReadEnvelope>> {
    const reader = input.reader === undefined ? undefined : this.#knownIds([input.reader], "reader");
    const call = withDeadline(signal, this.#options.callDeadlineMs, "web_read", { keepAlive: true });
    try {
      const candidates = reader ?? this.#options.readRoute;
      const { route, warnings } =
        input.focus === undefined
          ? { route: candidates, warnings: [] }
          : await this.#focusRoute(candidates, reader !== undefined);
      // The URL is checked before any provider sees it, whichever provider fetches it (after the
      // focus check, which needs no network); the DNS lookup is bounded by the call's deadline.
      await this.#assertPublic(input.url, call.signal);
      const request = { url: input.url, ...(input.focus === undefined ? {} : { focus: input.focus }) };
      const run = (provider: Provider, context: ProviderContext) => {
        if (!provider.capabilities.read || provider.read === undefined) {
          throw new ProviderError(provider.id, "configuration", `${provider.id} cannot read`);
        }
        return provider.read(request, context);
      };
      const { id, outcome, anonymous, attempted, failures } = await this.#route(
        route,
        { ...scope, signal: call.signal, operation: "read" },
        run,
      );
      if (input.focus !== undefined) {
        warnings.push(`the focus was forwarded to ${id}, which may omit content that does not match it`);
      }
      const envelope = {
        provenance: {
          ...this.#provenance(
            {
              tool: "web_read",
              url: input.url,
              ...(input.focus === undefined ? {} : { focus: input.focus }),
            },
            reader === undefined ? "route" : "reader",
            attempted,
            [id],
            anonymous ? [id] : [],
          ),
          ...(outcome.pageType === undefined ? {} : { pageType: outcome.pageType }),
          ...(outcome.strategy === undefined ? {} : { strategy: outcome.strategy }),
        },
        warnings: [...warnings, ...this.#warnings([{ id, outcome }], failures)],
        ...failureFields(failures),
        outcome,
        budgetChars: this.#options.envelopeBudgetChars,
        ...(this.#options.phrasing === undefined ? {} : { phrasing: this.#options.phrasing }),
      };
      const fitted = await this.#keepIfLong(envelope, caller);
      return success(fitted.json, fitted.data);
    } finally {
      call.dispose();
    }
  }

  /**
   * With a focus, the route keeps only providers that take one (the others are named in a
   * warning); none at all is an error the agent can act on.
   */
  async #focusRoute(
    candidates: readonly string[],
    namedReader: boolean,
  ): Promise<{ route: readonly string[]; warnings: string[] }> {
    const capable: string[] = [];
    for (const id of candidates) {
      const provider = await this.#options.providers.get(id);
      if (provider.capabilities.focus) capable.push(id);
    }
    if (capable.length === 0) {
      const phrasing = this.#options.phrasing ?? phrasingFor("mcp");
      const without = `read it without ${phrasing.arg("web_read", "focus")}`;
      const reader = phrasing.arg("web_read", "reader");
      throw new EvidentError(
        "focus_unsupported",
        namedReader
          ? `The reader ${candidates[0]} cannot take a focus; ${without}, or name a ${reader} that supports it.`
          : `No provider on the read route (${candidates.join(", ")}) can take a focus; ${without}, or name a ${reader} that supports it.`,
        { details: { field: "focus", providers: [...candidates] } },
      );
    }
    const skipped = candidates.filter((id) => !capable.includes(id));
    const warnings =
      skipped.length > 0
        ? [`skipped on the read route because they take no focus: ${skipped.join(", ")}`]
        : [];
    return { route: capable, warnings };
  }

  /** The public-URL guard on an agent's URL, its DNS lookup bounded by the call's signal. */
  async #assertPublic(url: string, signal: AbortSignal): Promise<void> {
    await raceAbort(
      assertPublicUrl(
        url,
        {
          allowPrivateNetwork: this.#options.allowPrivateNetwork,
          treatAsPublic: new Set((this.#options.treatAsPublic ?? []).map(canonicalAddress)),
        },
        this.#options.lookup,
      ),
      signal,
    ).catch((thrown: unknown) => {
      if (thrown instanceof EvidentError && thrown.code === "host_unresolved") {
        this.#logger.debug("the host of a URL to read did not resolve", codeField(thrown));
      }
      throw thrown;
    });
  }

  /**
   * The read's envelope; one too long for one answer keeps its document (when pages are kept)
   * so that its next parts need no second fetch, and carries the cursor to them.
   */
  async #keepIfLong(
    envelope: ReadEnvelopeInput,
    caller: string,
  ): Promise<{ json: string; data: ReadEnvelope }> {
    const fitted = buildReadEnvelope(envelope);
    const pages = this.#options.pages;
    if (!fitted.data.truncated || pages === undefined) return fitted;
    const text = envelope.outcome.content
      .map((part) => (part.type === "text" ? part.text : JSON.stringify(part.value)))
      .join("");
    const kept: KeptPage = {
      provenance: envelope.provenance,
      ...(fitted.data.title === undefined ? {} : { title: fitted.data.title }),
      ...(fitted.data.metadata === undefined ? {} : { metadata: fitted.data.metadata }),
      warnings: envelope.warnings,
      text,
    };
    const keeping = await pages.keep(caller, kept);
    return buildReadEnvelope({
      ...envelope,
      ...(keeping.warning === undefined ? {} : { warnings: [...envelope.warnings, keeping.warning] }),
      cursor: keeping.cursor,
    });
  }

  /**
   * The next part of a document an earlier read kept: no provider is called. Its provenance is
   * the original read's (the same document, fetched then).
   */
  async readCursor(cursor: string, caller = "anonymous"): Promise<ToolSuccess<ReadEnvelope>> {
    const pages = this.#options.pages;
    if (pages === undefined) {
      throw new EvidentError(
        "cursor_not_found",
        "This server keeps no pages for cursors; read the URL again.",
        {
          details: { field: "cursor" },
        },
      );
    }
    const { page, offset, cursor: next } = await pages.resume(caller, cursor);
    const fitted = buildReadEnvelope({
      provenance: page.provenance,
      warnings: [
        ...page.warnings,
        `this part starts at character ${offset} of ${page.total ?? page.text.length} of the page read at ${page.provenance.retrievedAt}`,
      ],
      outcome: {
        ...(page.title === undefined ? {} : { title: page.title }),
        ...(page.metadata === undefined ? {} : { metadata: page.metadata }),
        content: [{ type: "text", text: page.text.slice(offset) }],
      },
      budgetChars: this.#options.envelopeBudgetChars,
      part: { from: offset, total: page.total ?? page.text.length },
      cursor: next,
      ...(this.#options.phrasing === undefined ? {} : { phrasing: this.#options.phrasing }),
    });
    return success(fitted.json, fitted.data);
  }

  /** Every id must name a configured provider; duplicates collapse (each provider at most once). */
  #knownIds(ids: readonly string[], field: string): string[] {
    const unique: string[] = [];
    ids.forEach((id, index) => {
      if (!this.#options.providers.has(id)) {
        const name = field === "reader" ? "reader" : `${field}[${index}]`;
        throw new EvidentError(
          "invalid_arguments",
          `Invalid arguments: ${name}: unknown provider "${id}". ${field === "reader" ? "Readers" : "Search providers"}: ${this.#options.providers.ids(field === "reader" ? "read" : "search").join(", ")}.`,
          { details: { field: name, issues: [{ field: name, message: `unknown provider "${id}"` }] } },
        );
      }
      if (!unique.includes(id)) unique.push(id);
    });
    return unique;
  }

  /**
   * One attempt at a time, in order, each provider at most once, no retry. Stops at the first
   * success, or as soon as the call's signal (cancellation, overall deadline) aborts.
   */
  async #route<T>(
    route: readonly string[],
    scope: AttemptScope,
    run: (provider: Provider, context: ProviderContext) => Promise<T>,
  ): Promise<{
    id: string;
    outcome: T;
    anonymous: boolean;
    attempted: string[];
    failures: Failures;
  }> {
    const { signal } = scope;
    const attempted: string[] = [];
    const failures: Failures = { reasons: {}, classes: {} };
    const errors: unknown[] = [];
    for (const id of route) {
      if (signal.aborted) throw stoppedEarly(abortReason(signal), attempted, failures);
      if (attempted.includes(id)) continue;
      attempted.push(id);
      const result = await this.#attempt(id, scope, run);
      if (result.ok) return { id, outcome: result.outcome, anonymous: result.anonymous, attempted, failures };
      failures.reasons[id] = result.reason;
      failures.classes[id] = result.failure;
      errors.push(result.error);
      if (signal.aborted) throw stoppedEarly(abortReason(signal), attempted, failures);
    }
    throw allFailed(attempted, failures, errors);
  }

  /** Every named provider at once; those that answered, in the order named, and why the others failed. */
  async #fanOut<T>(
    ids: readonly string[],
    scope: AttemptScope,
    run: (provider: Provider, context: ProviderContext) => Promise<T>,
  ): Promise<{ answered: Array<{ id: string; outcome: T; anonymous: boolean }>; failures: Failures }> {
    const { signal } = scope;
    const settled = await Promise.all(ids.map((id) => this.#attempt(id, scope, run)));
    // Cancellation ends the call. The overall deadline does not discard what already arrived:
    // providers that answered in time are returned, the others are reported as late.
    if (signal.aborted && abortReason(signal).code !== "deadline_exceeded") throw abortReason(signal);
    const answered: Array<{ id: string; outcome: T; anonymous: boolean }> = [];
    const failures: Failures = { reasons: {}, classes: {} };
    ids.forEach((id, index) => {
      const result = settled[index] as Attempt<T>;
      if (result.ok) answered.push({ id, outcome: result.outcome, anonymous: result.anonymous });
      else {
        failures.reasons[id] = result.reason;
        failures.classes[id] = result.failure;
      }
    });
    if (answered.length === 0) {
      throw allFailed(
        [...ids],
        failures,
        settled.map((result) => (result.ok ? undefined : result.error)),
        true,
      );
    }
    return { answered, failures };
  }

  /**
   * One provider call under its own deadline (connection included), inside the call's. The
   * provider's promise is raced against the attempt signal so that an adapter ignoring its
   * signal cannot hold the call past its deadline.
   */
  async #attempt<T>(
    id: string,
    scope: AttemptScope,
    run: (provider: Provider, context: ProviderContext) => Promise<T>,
  ): Promise<Attempt<T>> {
    const { signal, operation } = scope;
    const logger = scope.logger ?? this.#logger;
    const metrics = this.#options.metrics;
    // Counted here, where every provider call passes: attempts, and failures by class.
    metrics?.providerAttempts.inc({ provider: id, operation });
    const failed = (result: Attempt<T> & { ok: false }): Attempt<T> => {
      metrics?.providerFailures.inc({ provider: id, operation, reason: result.failure });
      return result;
    };
    let provider: Provider;
    try {
      provider = await this.#options.providers.get(id);
    } catch (thrown) {
      logger.error(`provider ${id} could not be loaded`, { cause: thrown });
      return failed({ ok: false, reason: `${id} could not be loaded`, failure: "internal", error: thrown });
    }
    const ms = provider.attemptDeadlineMs ?? this.#options.attemptDeadlineMs ?? PROVIDER_ATTEMPT_DEADLINE_MS;
    const attempt = withDeadline(signal, ms, `${id} attempt`);
    let waitingFor: string | undefined;
    try {
      const context: ProviderContext = {
        signal: attempt.signal,
        http: this.#options.http,
        logger,
        waiting: (what) => {
          waitingFor = what;
        },
        ...(scope.trace === undefined ? {} : { trace: scope.trace }),
      };
      const outcome = await raceAbort(run(provider, context), attempt.signal);
      return { ok: true, outcome, anonymous: provider.anonymous };
    } catch (thrown) {
      // A refused URL (a redirect to a private address) ends the call: no other provider should
      // be sent there either.
      if (thrown instanceof EvidentError && thrown.code === "url_not_allowed") {
        metrics?.providerFailures.inc({ provider: id, operation, reason: "url_not_allowed" });
        throw thrown;
      }
      const { reason, failure } = this.#reason(id, thrown, signal, attempt.signal, ms, waitingFor);
      logger.debug(`provider ${id} failed: ${reason}`, {
        class: failure,
        ...codeField(thrown),
      });
      return failed({ ok: false, reason, failure, error: thrown });
    } finally {
      attempt.dispose();
    }
  }

  #reason(
    id: string,
    thrown: unknown,
    callSignal: AbortSignal,
    attemptSignal: AbortSignal,
    ms: number,
    waitingFor: string | undefined,
  ): { reason: string; failure: ProviderFailure } {
    const waited = waitingFor === undefined ? "" : ` while waiting for ${waitingFor}`;
    if (callSignal.aborted && abortReason(callSignal).code === "deadline_exceeded") {
      return { reason: `${id}: timed out at the call's overall deadline${waited}`, failure: "timeout" };
    }
    if (attemptSignal.aborted) {
      const why = abortReason(attemptSignal);
      if (why.code === "deadline_exceeded")
        return { reason: `${timedOutReason(id, ms)}${waited}`, failure: "timeout" };
      if (why.code === "cancelled") return { reason: `${id} request was cancelled`, failure: "cancelled" };
    }
    if (thrown instanceof ProviderError) return { reason: thrown.reason, failure: thrown.failure };
    if (thrown instanceof EvidentError && thrown.code !== "internal_error") {
      return {
        reason: `${id}: ${thrown.message}`,
        failure: thrown.code === "configuration_error" ? "configuration" : "upstream",
      };
    }
    // Anything else is a bug in an adapter: its message may hold a body or a key, so it stays in the log.
    this.#logger.error(`provider ${id} failed unexpectedly`, { cause: thrown });
    return { reason: `${id} failed unexpectedly`, failure: "internal" };
  }

  #provenance(
    base: Pick<Provenance, "tool" | "query" | "intent" | "url" | "focus">,
    mode: Provenance["mode"],
    attempted: readonly string[],
    used: readonly string[],
    anonymous: readonly string[],
  ): Provenance {
    return {
      ...base,
      mode,
      attempted: [...attempted],
      used: [...used],
      anonymous: [...anonymous],
      retrievedAt: (this.#options.now?.() ?? new Date()).toISOString(),
      ...(this.#options.allowPrivateNetwork ? { privateNetworkAllowed: true as const } : {}),
    };
  }

  /** The answering providers' own warnings, then what failed before them, then the guard switch. */
  #warnings(
    answered: ReadonlyArray<{
      readonly id: string;
      readonly outcome: { readonly warnings?: readonly string[] };
    }>,
    failures: Failures = { reasons: {}, classes: {} },
  ): string[] {
    const warnings = answered.flatMap((answer) => answer.outcome.warnings ?? []);
    const used = answered.map((answer) => answer.id);
    const failed = Object.keys(failures.reasons);
    if (failed.length > 0 && used.length > 0) {
      const next = networkNextStep(Object.values(failures.classes));
      warnings.push(
        `failed before ${used.join(", ")} answered: ${failed.join(", ")} (see providerErrors)${next === undefined ? "" : `. ${next}`}`,
      );
    }
    if (this.#options.allowPrivateNetwork) {
      warnings.push("the operator allows private network addresses (EVIDENT_ALLOW_PRIVATE_NETWORK)");
    }
    return warnings;
  }
}

function allFailed(attempted: string[], failures: Failures, errors: unknown[], fanout = false): EvidentError {
  const reasons = attempted.map((id) => failures.reasons[id] ?? `${id} failed`);
  // One provider that failed for a configuration reason is the operator's to fix: say so.
  const only = errors.length === 1 ? errors[0] : undefined;
  // A content type the one reader cannot read is said as such: the agent may try another reader.
  if (!fanout && only instanceof EvidentError && only.code === "unsupported_content") return only;
  const configuration = only instanceof ProviderError && only.kind === "configuration";
  // Every provider tried failed: one code however many the route had, so clients check one.
  const code =
    !fanout && attempted.length === 1 && configuration ? "configuration_error" : "all_providers_failed";
  // One class for every failure (one provider, or a network down for all) is also said at the top.
  const classes = new Set(Object.values(failures.classes));
  const next = networkNextStep(classes);
  const message =
    attempted.length === 0
      ? "No provider could be tried."
      : code === "all_providers_failed"
        ? `Every provider failed: ${reasons.join("; ")}.`
        : `The provider is not configured correctly: ${reasons.join("; ")}. The operator must fix it (docs/CONFIG.md).`;
  return new EvidentError(code, next === undefined ? message : `${message} ${next}`, {
    details: {
      ...(classes.size === 1 ? { reason: [...classes][0] } : {}),
      provider_errors: failures.reasons,
      provider_reasons: failures.classes,
      providers_attempted: attempted,
    },
  });
}

/**
 * The overall deadline ended a route: the error keeps the reasons of the providers that had
 * already failed or timed out, so the agent and the operator see why nothing answered in time.
 * Cancellation is the caller's own doing and stays as it is.
 */
function stoppedEarly(reason: EvidentError, attempted: readonly string[], failures: Failures): EvidentError {
  const failed = Object.keys(failures.reasons);
  if (reason.code !== "deadline_exceeded" || failed.length === 0) return reason;
  const reasons = failed.map((id) => failures.reasons[id]).join("; ");
  return new EvidentError("deadline_exceeded", `${reason.message} Before it: ${reasons}.`, {
    cause: reason,
    details: {
      ...reason.details,
      provider_errors: failures.reasons,
      provider_reasons: failures.classes,
      providers_attempted: [...attempted],
    },
  });
}

/** The envelope's failure fields, present only when something failed. */
function failureFields(failures: Failures): {
  providerErrors?: Record<string, string>;
  providerReasons?: Record<string, ProviderFailure>;
} {
  return Object.keys(failures.reasons).length === 0
    ? {}
    : { providerErrors: failures.reasons, providerReasons: failures.classes };
}

/** The reason of an attempt that ran out of time: "jina: timed out after 20 s" (or "1500 ms"). */
export function timedOutReason(id: string, ms: number): string {
  return `${id}: timed out after ${ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`}`;
}

function codeField(thrown: unknown): { code?: string } {
  const code = underlyingCode(thrown);
  return code === undefined ? {} : { code };
}
