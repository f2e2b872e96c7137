/**
 * The syntax layer: one per service. It answers questions about a verified source document,
 * each with an explicit status instead of an exception when it cannot:
 *   - `tree(document)`: an ast-grep tree and its facts, for structure patterns and anything else
 *     that walks a tree; parsed for each call, never kept;
 *   - `facts(document)`: the tree's facts (symbols, syntax errors) alone;
 *   - `specifiers(document)`: the module specifiers a JavaScript/TypeScript file names;
 *   - `symbols(document)`: symbol ranges from ast-grep, else from Universal Ctags.
 * Facts are cached by language and content hash (bounded-cache.ts); trees are not, since a tree
 * is native memory that V8 frees only when it collects the tree's small handle. Parses run off
 * the calling thread, at most PARSE_CONCURRENCY at once; a cancelled caller stops waiting at
 * once (the parse already running finishes in the background and its facts are cached, since it
 * was paid for).
 *
 * Statuses: `ok`; `no_provider` (a language nothing here parses, or a provider that is missing
 * or failed to load); `parse_error` (the provider failed on this document); `changed` (ctags,
 * which reads the file itself, saw another revision than the document's).
 */
import type { SgRoot } from "@ast-grep/napi";
import { raceAbort, throwIfAborted } from "../../core/abort.js";
import { PARSE_CONCURRENCY } from "../../core/limits.js";
import { Slots } from "../../core/slots.js";
import { BoundedCache, estimatedBytes } from "../bounded-cache.js";
import { readRevisionSync, sameRevision } from "../revisions/scan.js";
import type { SourceDocument } from "../source/document.js";
import { type AstGrepRuntime, loadAstGrep, parseTree, type TreeFacts, treeFacts } from "./ast-grep.js";
import { type CtagsProbe, ctagsSymbols, probeCtags } from "./ctags.js";
import { type AstGrepLanguage, astGrepLanguageOf } from "./languages.js";
import { type Specifier, specifiersOf } from "./specifiers.js";
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

export type FactsOutcome =
  | { readonly status: "ok"; readonly language: AstGrepLanguage; readonly facts: TreeFacts }
  | SyntaxFailure;

export type SpecifiersOutcome =
  | {
      readonly status: "ok";
      readonly specifiers: readonly Specifier[];
      /** Syntax errors the parser recovered from (specifiers inside one may be missed). */
      readonly syntaxErrors: number;
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
  /** Observes every parse actually run (tests: cache hits and cancellation). */
  readonly onParse?: (path: string) => void;
}

type Cached =
  | { readonly kind: "facts"; readonly facts: TreeFacts }
  | { readonly kind: "specifiers"; readonly specifiers: readonly Specifier[]; readonly syntaxErrors: number }
  | { readonly kind: "ctags"; readonly symbols: readonly SymbolRange[] };

type Parsed = { readonly language: AstGrepLanguage; readonly root: SgRoot; readonly facts: TreeFacts };

export class SyntaxLayer {
  readonly #options: SyntaxLayerOptions;
  readonly #cache: BoundedCache<Cached>;
  readonly #pending = new Map<string, Promise<unknown>>();
  #ctags: Promise<CtagsProbe> | undefined;
  /** Parses (and ctags runs) at once. */
  readonly #parses = new Slots(PARSE_CONCURRENCY);

  constructor(options: SyntaxLayerOptions) {
    this.#options = options;
    this.#cache = new BoundedCache();
  }

  /** Entries and estimated bytes held (tests, diagnostics). */
  get cached(): { readonly entries: number; readonly bytes: number } {
    return { entries: this.#cache.size, bytes: this.#cache.bytes };
  }

  /** A tree of its own for this call: always parsed (a parse already running is shared). */
  async tree(document: SourceDocument, signal?: AbortSignal): Promise<TreeOutcome> {
    throwIfAborted(signal);
    const language = astGrepLanguageOf(document.path);
    if (language === undefined)
      return { status: "no_provider", reason: "ast-grep does not parse this file's language" };
    const runtime = await loadAstGrep();
    if ("error" in runtime) return { status: "no_provider", reason: runtime.error };
    if (!runtime.available.has(language))
      return { status: "no_provider", reason: runtime.unavailable.get(language) ?? `no ${language} parser` };
    const result = await this.#once(`tree\0${language}\0${document.hash}`, document, signal, () =>
      this.#parse(runtime, language, document),
    );
    return "status" in result ? result : { status: "ok", ...result };
  }

  async facts(document: SourceDocument, signal?: AbortSignal): Promise<FactsOutcome> {
    const language = astGrepLanguageOf(document.path);
    const hit = language === undefined ? undefined : this.#cache.get(factsKey(language, document));
    if (language !== undefined && hit?.kind === "facts") return { status: "ok", language, facts: hit.facts };
    const tree = await this.tree(document, signal);
    return tree.status === "ok" ? { status: "ok", language: tree.language, facts: tree.facts } : tree;
  }

  async specifiers(document: SourceDocument, signal?: AbortSignal): Promise<SpecifiersOutcome> {
    const language = astGrepLanguageOf(document.path);
    const key = `specifiers\0${language}\0${document.hash}`;
    const hit = this.#cache.get(key);
    if (hit?.kind === "specifiers")
      return { status: "ok", specifiers: hit.specifiers, syntaxErrors: hit.syntaxErrors };
    const tree = await this.tree(document, signal);
    if (tree.status !== "ok") return tree;
    const specifiers = specifiersOf(tree.root.root(), tree.language);
    const syntaxErrors = tree.facts.syntaxErrors;
    this.#cache.set(
      key,
      { kind: "specifiers", specifiers, syntaxErrors },
      estimatedBytes(specifiers.map((s) => [s.specifier])),
    );
    return { status: "ok", specifiers, syntaxErrors };
  }

  async symbols(document: SourceDocument, signal?: AbortSignal): Promise<SymbolsOutcome> {
    const facts = await this.facts(document, signal);
    if (facts.status === "ok")
      return {
        status: "ok",
        provider: "ast-grep",
        symbols: facts.facts.symbols,
        syntaxErrors: facts.facts.syntaxErrors,
      };
    if (astGrepLanguageOf(document.path) !== undefined && facts.status !== "no_provider") return facts;
    // ast-grep cannot: Universal Ctags may know the language.
    this.#ctags ??= probeCtags(this.#options.env);
    const ctags = await this.#ctags;
    if ("missing" in ctags) {
      const why =
        facts.status === "no_provider" && astGrepLanguageOf(document.path) !== undefined
          ? `${facts.reason}; `
          : "";
      return { status: "no_provider", reason: `${why}${ctags.missing}` };
    }
    const key = `ctags\0${document.hash}\0${document.path}`;
    const hit = this.#cache.get(key);
    const result =
      hit?.kind === "ctags"
        ? hit
        : await this.#once(key, document, signal, async () => {
            const outcome = await ctagsSymbols(ctags.path, document.path, this.#options.env, signal);
            if (outcome.status !== "ok") return outcome;
            // ctags read the file itself: its symbols describe the document only if that is still it.
            if (!sameRevision(document.revision, readRevisionSync(document.path)))
              return { status: "changed", reason: "the file changed while ctags read it" } as const;
            const value = { kind: "ctags", symbols: outcome.symbols } as const;
            this.#cache.set(key, value, symbolsBytes(outcome.symbols));
            return value;
          });
    if ("status" in result) return result;
    return { status: "ok", provider: "ctags", symbols: result.symbols, syntaxErrors: 0 };
  }

  close(): void {
    this.#cache.clear();
  }

  /** One computation per key at a time; a cancelled caller stops waiting, the work goes on. */
  async #once<T>(
    key: string,
    document: SourceDocument,
    signal: AbortSignal | undefined,
    compute: () => Promise<T>,
  ): Promise<T> {
    let pending = this.#pending.get(key) as Promise<T> | undefined;
    if (pending === undefined) {
      pending = this.#parses
        .acquire()
        .then(async (release) => {
          try {
            this.#options.onParse?.(document.path);
            return await compute();
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

  /** Parses, and caches the tree's facts (the tree itself is the caller's alone). */
  async #parse(
    runtime: AstGrepRuntime,
    language: AstGrepLanguage,
    document: SourceDocument,
  ): Promise<Parsed | SyntaxFailure> {
    let root: SgRoot;
    try {
      root = await parseTree(runtime.napi, language, document.text);
    } catch (error) {
      return { status: "parse_error", reason: `ast-grep could not parse it (${(error as Error).message})` };
    }
    const facts = treeFacts(runtime.napi, root, language);
    this.#cache.set(factsKey(language, document), { kind: "facts", facts }, symbolsBytes(facts.symbols));
    return { language, root, facts };
  }
}

function symbolsBytes(symbols: readonly SymbolRange[]): number {
  return estimatedBytes(symbols.map((s) => [s.name, s.qualifiedName]));
}

function factsKey(language: AstGrepLanguage, document: SourceDocument): string {
  return `facts\0${language}\0${document.hash}`;
}
