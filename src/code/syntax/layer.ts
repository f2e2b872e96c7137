/**
 * The syntax layer: one per service. It answers two questions about a verified source document,
 * each with an explicit status instead of an exception when it cannot:
 *   - `tree(document)`: the ast-grep tree and its facts (symbols, syntax errors), for languages
 *     ast-grep parses here; for structure patterns and anything else that walks a tree;
 *   - `symbols(document)`: symbol ranges from ast-grep, else from Universal Ctags.
 * Results are cached by language and content hash (syntax/cache.ts). Parses run off the calling
 * thread, at most PARSE_CONCURRENCY at once; a cancelled caller stops waiting at once (the parse
 * already running finishes in the background and is cached, since it was paid for).
 *
 * Statuses: `ok`; `no_provider` (a language nothing here parses, or a provider that is missing
 * or failed to load); `parse_error` (the provider failed on this document); `changed` (ctags,
 * which reads the file itself, saw another revision than the document's).
 */
import type { SgRoot } from "@ast-grep/napi";
import { abortReason, throwIfAborted } from "../../core/abort.js";
import { PARSE_CONCURRENCY } from "../../core/limits.js";
import { readRevision, sameRevision } from "../revisions/scan.js";
import type { SourceDocument } from "../source/document.js";
import { type AstGrepRuntime, loadAstGrep, parseTree, type TreeFacts, treeFacts } from "./ast-grep.js";
import { estimatedNodes, SyntaxCache, type SyntaxCacheOptions } from "./cache.js";
import { type CtagsProbe, ctagsSymbols, probeCtags } from "./ctags.js";
import { type AstGrepLanguage, astGrepLanguageOf } from "./languages.js";
import type { SymbolRange } from "./symbols.js";

export type SyntaxProvider = "ast-grep" | "ctags";

/** Why no syntax facts are available for a document. */
export type SyntaxFailure = {
  readonly status: "no_provider" | "parse_error" | "changed";
  readonly reason: string;
};

export type TreeOutcome =
  | {
      readonly status: "ok";
      readonly language: AstGrepLanguage;
      readonly root: SgRoot;
      readonly facts: TreeFacts;
    }
  | SyntaxFailure;

export type SymbolsOutcome =
  | {
      readonly status: "ok";
      readonly provider: SyntaxProvider;
      readonly symbols: readonly SymbolRange[];
      /** Syntax errors the parser recovered from (ast-grep only; symbols overlapping one say so). */
      readonly syntaxErrors: number;
    }
  | SyntaxFailure;

export interface SyntaxLayerOptions {
  /** The service's environment: ctags is looked up on its PATH. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cache?: SyntaxCacheOptions;
  /** Observes every parse actually run (tests: cache hits and cancellation). */
  readonly onParse?: (path: string) => void;
}

type Cached =
  | { readonly provider: "ast-grep"; readonly root: SgRoot; readonly facts: TreeFacts }
  | { readonly provider: "ctags"; readonly symbols: readonly SymbolRange[] };

export class SyntaxLayer {
  readonly #options: SyntaxLayerOptions;
  readonly #cache: SyntaxCache<Cached>;
  readonly #pending = new Map<string, Promise<Cached | SyntaxFailure>>();
  #ctags: Promise<CtagsProbe> | undefined;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(options: SyntaxLayerOptions) {
    this.#options = options;
    this.#cache = new SyntaxCache(options.cache);
  }

  /** Entries and estimated nodes held (tests, diagnostics). */
  get cached(): { readonly entries: number; readonly nodes: number } {
    return { entries: this.#cache.size, nodes: this.#cache.nodes };
  }

  async tree(document: SourceDocument, signal?: AbortSignal): Promise<TreeOutcome> {
    throwIfAborted(signal);
    const language = astGrepLanguageOf(document.path);
    if (language === undefined)
      return { status: "no_provider", reason: "ast-grep does not parse this file's language" };
    const runtime = await loadAstGrep();
    if ("error" in runtime) return { status: "no_provider", reason: runtime.error };
    if (!runtime.available.has(language))
      return { status: "no_provider", reason: runtime.unavailable.get(language) ?? `no ${language} parser` };
    const result = await this.#once(`ast-grep\0${language}\0${document.hash}`, document, signal, () =>
      this.#parse(runtime, language, document),
    );
    if (!("provider" in result)) return result;
    if (result.provider !== "ast-grep") throw new Error("syntax cache holds another provider's entry");
    return { status: "ok", language, root: result.root, facts: result.facts };
  }

  async symbols(document: SourceDocument, signal?: AbortSignal): Promise<SymbolsOutcome> {
    const tree = await this.tree(document, signal);
    if (tree.status === "ok")
      return {
        status: "ok",
        provider: "ast-grep",
        symbols: tree.facts.symbols,
        syntaxErrors: tree.facts.syntaxErrors,
      };
    if (astGrepLanguageOf(document.path) !== undefined && tree.status !== "no_provider") return tree;
    // ast-grep cannot: Universal Ctags may know the language.
    this.#ctags ??= probeCtags(this.#options.env);
    const ctags = await this.#ctags;
    if ("missing" in ctags) {
      const why =
        tree.status === "no_provider" && astGrepLanguageOf(document.path) !== undefined
          ? `${tree.reason}; `
          : "";
      return { status: "no_provider", reason: `${why}${ctags.missing}` };
    }
    const result = await this.#once(
      `ctags\0${document.hash}\0${document.path}`,
      document,
      signal,
      async () => {
        const outcome = await ctagsSymbols(ctags.path, document.path, signal);
        if (outcome.status !== "ok") return outcome;
        // ctags read the file itself: its symbols describe the document only if that is still it.
        if (!sameRevision(document.revision, await readRevision(document.path)))
          return { status: "changed", reason: "the file changed while ctags read it" } as const;
        return {
          value: { provider: "ctags", symbols: outcome.symbols } as const,
          nodes: outcome.symbols.length + 1,
        };
      },
    );
    if (!("provider" in result)) return result;
    if (result.provider !== "ctags") throw new Error("syntax cache holds another provider's entry");
    return { status: "ok", provider: "ctags", symbols: result.symbols, syntaxErrors: 0 };
  }

  close(): void {
    this.#cache.clear();
  }

  /** One computation per key at a time; a cancelled caller stops waiting, the work goes on. */
  async #once(
    key: string,
    document: SourceDocument,
    signal: AbortSignal | undefined,
    compute: () => Promise<{ readonly value: Cached; readonly nodes: number } | SyntaxFailure>,
  ): Promise<Cached | SyntaxFailure> {
    const hit = this.#cache.get(key);
    if (hit !== undefined) return hit;
    let pending = this.#pending.get(key);
    if (pending === undefined) {
      pending = this.#slot(undefined)
        .then(async (release) => {
          try {
            this.#options.onParse?.(document.path);
            const result = await compute();
            if ("status" in result) return result;
            this.#cache.set(key, result.value, result.nodes);
            return result.value;
          } finally {
            release();
          }
        })
        .finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
      // A caller that stopped waiting must not leave the outcome unobserved.
      pending.catch(() => {});
    }
    return raceAbort(pending, signal);
  }

  async #parse(
    runtime: AstGrepRuntime,
    language: AstGrepLanguage,
    document: SourceDocument,
  ): Promise<{ readonly value: Cached; readonly nodes: number } | SyntaxFailure> {
    let root: SgRoot;
    try {
      root = await parseTree(runtime.napi, language, document.text);
    } catch (error) {
      return { status: "parse_error", reason: `ast-grep could not parse it (${(error as Error).message})` };
    }
    return {
      value: { provider: "ast-grep", root, facts: treeFacts(runtime.napi, root, language) },
      nodes: estimatedNodes(document.bytes.length),
    };
  }

  /** Waits for one of PARSE_CONCURRENCY slots; gives up waiting when cancelled. */
  async #slot(signal: AbortSignal | undefined): Promise<() => void> {
    while (this.#running >= PARSE_CONCURRENCY) {
      throwIfAborted(signal);
      await new Promise<void>((wake) => this.#waiting.push(wake));
    }
    throwIfAborted(signal);
    this.#running++;
    return () => {
      this.#running--;
      this.#waiting.shift()?.();
    };
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
