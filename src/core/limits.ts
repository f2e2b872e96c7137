/**
 * Every numeric limit and default of evident, in one place, unit-suffixed.
 *
 * Owners import from here; tests import the constants instead of repeating numbers. A limit
 * that is not here does not exist. Sections follow the layer that enforces each limit.
 */
import { availableParallelism } from "node:os";

// ---------------------------------------------------------------------------------------------
// Tool inputs shared by every surface (schemas read these).
// ---------------------------------------------------------------------------------------------

/**
 * An `invalid_arguments` answer names at most this many issues and unknown fields, each name
 * cut to ARGUMENT_NAME_MAX_CHARS, and says how many more: it echoes what the caller wrote, so
 * unbounded it would grow with the request.
 */
export const ARGUMENT_ISSUES_SHOWN = 10;
export const ARGUMENT_NAME_MAX_CHARS = 100;

/** web_search `query` length bounds, in characters. */
export const WEB_QUERY_MIN_CHARS = 1;
export const WEB_QUERY_MAX_CHARS = 4_000;
/** web_search `maxResults` bounds and default. */
export const WEB_MAX_RESULTS_MIN = 1;
export const WEB_MAX_RESULTS_MAX = 20;
export const WEB_MAX_RESULTS_DEFAULT = 5;
/** web_read `url` length bound, in characters. */
export const WEB_URL_MAX_CHARS = 8_192;
/** web_read `cursor` length bound, in characters. */
export const WEB_CURSOR_MAX_CHARS = 256;
/** web_read `focus` and web_search `intent` length bounds, in characters. */
export const WEB_FOCUS_MAX_CHARS = 1_000;
export const WEB_INTENT_MAX_CHARS = 64;
/** Provider ids: how many may be named in one fan-out call, and their length. */
export const WEB_PROVIDERS_MAX = 16;
export const PROVIDER_ID_MAX_CHARS = 64;

// ---------------------------------------------------------------------------------------------
// The config file.
// ---------------------------------------------------------------------------------------------

/**
 * Largest config file read: a real one is a few KB, and it is read again before every web call,
 * so anything larger (or a device, a FIFO) is refused as a configuration error instead.
 */
export const CONFIG_FILE_MAX_BYTES = 1024 * 1024;
/**
 * Longest saved API key, in characters (vendors' keys and JWTs are well under it); also what
 * `evident setup --key-stdin` reads at most, in bytes, so an endless stdin is refused, not held.
 */
export const SAVED_KEY_MAX_CHARS = 4_096;
/**
 * Writers of the config file (setup, the Pi key entry) take a lock file beside it: a second
 * writer waits at most CONFIG_LOCK_WAIT_MS, checking every CONFIG_LOCK_POLL_MS. A lock that
 * names no process (a lock appears with its pid in it), whose process is gone, or older than
 * CONFIG_LOCK_STALE_MS (a writer takes well under a second), is left over and taken over.
 */
export const CONFIG_LOCK_WAIT_MS = 10_000;
export const CONFIG_LOCK_POLL_MS = 25;
export const CONFIG_LOCK_STALE_MS = 60_000;

// ---------------------------------------------------------------------------------------------
// Web routing, network and envelope.
// ---------------------------------------------------------------------------------------------

/** Overall deadline of one web_search or web_read call. */
export const WEB_CALL_DEADLINE_MS = 60_000;
/** Deadline of one provider attempt, connection included (overridable per provider). */
export const PROVIDER_ATTEMPT_DEADLINE_MS = 20_000;
/** Largest response body read from any provider or page. */
export const MAX_RESPONSE_BODY_BYTES = 4 * 1024 * 1024;
/** Redirect hops followed for an agent-supplied URL, each re-checked by the guard. */
export const MAX_REDIRECTS = 5;
/**
 * Largest response head (status line and headers) read from any provider or page: Node's own
 * default, made explicit so the refusal can say it.
 */
export const MAX_RESPONSE_HEADER_BYTES = 16 * 1024;
/** Default character budget of one serialized web envelope. */
export const WEB_ENVELOPE_BUDGET_CHARS = 40_000;
/** Smallest budget an operator may configure (provenance and warnings must still fit). */
export const WEB_ENVELOPE_MIN_BUDGET_CHARS = 2_000;
/** Largest budget an operator may configure. */
export const WEB_ENVELOPE_MAX_BUDGET_CHARS = 1_000_000;
/** URLs listed in one envelope's `sources` index (the rest are counted, not listed). */
export const WEB_SOURCES_MAX = 100;
/** Share of the envelope budget the `sources` index may take before content is placed. */
export const WEB_SOURCES_MAX_BUDGET_SHARE = 0.25;
/** Long web_read documents kept for their cursors: time to live after last use. */
export const WEB_PAGES_TTL_MS = 30 * 60_000;
/**
 * What kept data (core/kept.ts) may take, every caller's values together
 * (EVIDENT_KEPT_MAX_BYTES): in memory, a surface's code_search results and web_read pages
 * together; on disk and in Redis, each of the two. Least recently used evicted first. Ids let go of are remembered (KEPT_TOMBSTONES_MAX, on disk
 * KEPT_FILE_TOMBSTONES_MAX small files) so their cursors read as expired.
 */
export const KEPT_MAX_BYTES = 32 * 1024 * 1024;
export const KEPT_MIN_BYTES = 4 * 1024;
export const KEPT_TOMBSTONES_MAX = 4_096;
export const KEPT_FILE_TOMBSTONES_MAX = 1_024;
/**
 * The most of a kept-value store's byte bound one value may take: so one caller's large value
 * evicts at most this share of what others keep, never all of it. A larger value is refused by
 * the store; web_read keeps the longest prefix that fits and says so. code_search's results
 * stay within it by their retention bound (SNAPSHOT_MAX_BYTES), and one that does not (a lowered
 * EVIDENT_KEPT_MAX_BYTES) is not kept, said as a configuration_error.
 */
export const KEPT_ENTRY_MAX_SHARE = 1 / 4;
/**
 * The `direct` reader reads PDFs, and HTML pages of at least WEB_READ_THREAD_MIN_CHARS
 * characters or WEB_READ_THREAD_MIN_ELEMENTS tag-like tokens (`<` then a letter, `/`, `!` or
 * `?`: start and end tags, comments, declarations, each a step of the parser), on a thread of their own (see
 * web/providers/direct/reader-thread.ts): at most WEB_READ_THREADS at once, each with at most
 * WEB_READ_MEMORY_MB of heap and as much again of buffers (EVIDENT_WEB_READ_MEMORY_MB, at least
 * WEB_READ_MEMORY_MIN_MB), while the process may grow by that plus WEB_READ_THREAD_START_MB (what
 * a thread's start and the reader's modules cost it); buffers and growth are checked every
 * WEB_READ_MEMORY_CHECK_MS. A page that needs more is not read: `too_large`. A page under both
 * costs less to read where it arrives than a thread's start (a fresh runtime loading the reader
 * and running it cold) would add to it (bench/web-read/RESULTS.md, "reader speed, third pass"),
 * and within the shape bounds below its reading is bounded: it is read on the calling thread.
 */
export const WEB_READ_THREAD_MIN_CHARS = 1024 * 1024;
/**
 * Deepest element nesting the `direct` reader extracts main content from: Readability's time
 * grows with the cube of the depth, while real pages nest far less (both measured in
 * bench/web-read/RESULTS.md, "Deeply nested pages"). A deeper page
 * is read as plain text, with a warning.
 */
export const WEB_READ_MAX_DEPTH = 128;
/**
 * Most elements, and most nodes of any kind (elements, attributes, text runs, comments), a page
 * may make for the `direct` reader to build its DOM, extract its main content and format it: the
 * DOM's passes cost tens of microseconds per element, and real pages make far fewer
 * (bench/web-read/RESULTS.md). A page that makes more is read as plain text, with a warning, in
 * one pass without a DOM (bench/hardening/RESULTS.md, "Issue 31: reader-parse").
 */
export const WEB_READ_MAX_ELEMENTS = 25_000;
export const WEB_READ_MAX_NODES = 200_000;
/**
 * Most bytes of one HTML page the `direct` reader takes from the network: a page over
 * MAX_RESPONSE_BODY_BYTES has its scripts and styles dropped as it arrives, and what is kept
 * still stops at that cap; this bounds the bytes streamed through (and the time spent sieving
 * them). A longer page is read as far as this, with a warning that it was cut.
 */
export const WEB_READ_MAX_STREAMED_BYTES = 4 * MAX_RESPONSE_BODY_BYTES;
/**
 * Longest attribute value, and most attributes of one element, the `direct` reader's DOM is
 * given: the rest are cut out of the page before parsing (a class of a quarter million tokens
 * overflowed linkedom's stack; linkedom looks an attribute up by walking its element's list, so
 * one element of 100,000 attributes took seconds).
 */
export const WEB_READ_MAX_ATTRIBUTE_CHARS = 64 * 1024;
export const WEB_READ_MAX_ELEMENT_ATTRIBUTES = 256;
export const WEB_READ_THREAD_MIN_ELEMENTS = 10_000;
export const WEB_READ_THREADS = 1;
export const WEB_READ_MEMORY_MB = 512;
export const WEB_READ_MEMORY_MIN_MB = 64;
export const WEB_READ_THREAD_START_MB = 128;
/**
 * A reader thread that answered is kept for the next page (web/providers/direct/reader-thread.ts)
 * until idle for WEB_READ_THREAD_IDLE_MS, for at most WEB_READ_THREAD_PAGES pages, and only while
 * its heap and buffers hold at most WEB_READ_THREAD_KEEP_MB after a page.
 */
export const WEB_READ_THREAD_IDLE_MS = 5_000;
export const WEB_READ_THREAD_PAGES = 100;
export const WEB_READ_THREAD_KEEP_MB = 96;
/** A reader thread's young generation (V8's default lets it grow to 32 MB, kept while idle). */
export const WEB_READ_THREAD_YOUNG_MB = 8;
export const WEB_READ_MEMORY_CHECK_MS = 50;
/**
 * The `direct` reader indents a JSON page (two spaces a level) only while the indented text stays
 * within JSON_INDENT_MAX_GROWTH times the page's length (JSON_INDENT_MIN_CHARS for a short page)
 * and within JSON_INDENT_MAX_CHARS, the bound on a page as sent: indentation grows with the square
 * of the nesting. Beyond, the page is returned as sent, with a warning. The formatter gives the
 * event loop a turn after every JSON_INDENT_SLICE_CHARS of the page.
 */
export const JSON_INDENT_MAX_GROWTH = 4;
export const JSON_INDENT_MIN_CHARS = 64 * 1024;
export const JSON_INDENT_MAX_CHARS = MAX_RESPONSE_BODY_BYTES;
export const JSON_INDENT_SLICE_CHARS = 64 * 1024;
/** PDF pages the `direct` reader extracts, and how long it may spend extracting them. */
export const PDF_MAX_PAGES = 200;
export const PDF_MAX_MS = 10_000;
/**
 * What a PDF's deflated streams may inflate to, counted before it is opened (discarding what comes
 * out): beyond it the PDF is `too_large`, unread. Real documents' text, fonts and images inflate
 * to tens of MB at most within the body cap; what the PDF reader inflates stays with the process's
 * allocator after the read (bench/hardening/RESULTS.md, "Issue 31: reader-json").
 */
export const PDF_MAX_INFLATED_BYTES = 128 * 1024 * 1024;
/** Bound on the best-effort DELETE of an upstream MCP session at shutdown. */
export const UPSTREAM_SESSION_DELETE_MS = 2_000;

// ---------------------------------------------------------------------------------------------
// code_search.
// ---------------------------------------------------------------------------------------------

export const CODE_PATTERN_MAX_CHARS = 4_096;
export const CODE_PATH_MAX_CHARS = 4_096;
/** `paths` (a file selection with a cursor): 1 to 20 entries. */
export const CODE_PATHS_MIN = 1;
export const CODE_PATHS_MAX = 20;
export const CODE_GLOBS_MAX = 32;
export const CODE_CONTEXT_MIN_LINES = 0;
export const CODE_CONTEXT_MAX_LINES = 20;
export const CODE_CONTEXT_DEFAULT_LINES = 0;
export const CODE_LIMIT_MIN = 1;
export const CODE_LIMIT_MAX = 100;
export const CODE_CURSOR_MAX_CHARS = 512;

/**
 * Overall deadline of one code_search call, waiting for a ripgrep slot included
 * (EVIDENT_CODE_SEARCH_DEADLINE_MS). A search still running then is stopped: deadline_exceeded.
 */
export const CODE_SEARCH_DEADLINE_MS = 30_000;

/**
 * Subprocesses (ripgrep, git) one server's code_search runs at once: one per CPU core, at least
 * two. Each ripgrep searches with every core already, so more at once only slow each other and
 * the server's own event loop (see docs/DECISIONS.md). More wait their turn, and a call
 * cancelled while it waits starts none (EVIDENT_CODE_SEARCH_MAX_PROCESSES).
 */
export const CODE_SEARCH_MAX_PROCESSES = Math.max(2, availableParallelism());

/**
 * Project roots one surface keeps a code_search service for (its snapshots and caches): a client
 * that moves between more roots than this retires the least recently used one, once its calls in
 * flight have ended; its cursors then expire.
 */
export const CODE_SEARCH_ROOTS_KEPT = 4;

/** ripgrep JSON protocol: the longest single line accepted. */
export const RG_MAX_PROTOCOL_LINE_BYTES = 16 * 1024 * 1024;
/** A search's compact records: their first room, which doubles in place as they need more. */
export const RG_RECORDS_INITIAL_BYTES = 64 * 1024;
/** The most address space one search's records may reserve, whatever its bounds say. */
export const RG_RECORDS_RESERVATION_MAX_BYTES = 2 * 1024 * 1024 * 1024;
/** Captured stderr of an owned subprocess. */
export const PROCESS_STDERR_MAX_BYTES = 64 * 1024;
/** Characters of ripgrep's own explanation that an error message quotes. */
export const RG_REASON_MAX_CHARS = 2_000;
/** Owned subprocess: SIGTERM, then SIGKILL after this, then failure if not closed after the next. */
export const PROCESS_KILL_ESCALATION_MS = 250;
export const PROCESS_CLOSE_TIMEOUT_MS = 2_000;

/** Revision metadata: candidates observed before the search, and concurrent stats. */
export const MAX_SOURCE_REVISION_FILES = 50_000;
export const MAX_CONCURRENT_STATS = 16;
/** Metadata reads done back to back before yielding to the event loop (about a millisecond). */
export const STAT_SLICE_FILES = 256;
/** ...and for at most this long, whatever the count (an uncached inode costs far more). */
export const STAT_SLICE_MS = 4;
/**
 * How long a file scope's enumeration counts as fresh. Searches never wait for a scope that has
 * been enumerated once: an older enumeration still serves, and is redone in the background after
 * the search (see code/revisions/cache.ts). Files created since it stay unverified until observed.
 */
export const REVISION_CACHE_TTL_MS = 30_000;
/**
 * A one-shot search trusts a retained file whose change time is at least this much older than
 * the search's start (code/revisions/settled.ts): the kernel stamps files from a clock that runs
 * up to a tick behind the wall clock.
 */
export const CHANGE_TIME_MARGIN_MS = 50;
/** File scopes (working directory plus file filters) whose revisions are kept between searches. */
export const REVISION_CACHE_MAX_SCOPES = 4;

/** Snapshot retention bounds. */
export const SNAPSHOT_MAX_MATCHES = 50_000;
export const SNAPSHOT_MAX_OCCURRENCES = 200_000;
/**
 * A quarter of the default store: a result within it is always within its share. Counted in
 * what the snapshot keeps: compact records (rg/compact.ts), else ripgrep's events.
 */
export const SNAPSHOT_MAX_BYTES = 8 * 1024 * 1024;
/**
 * What SNAPSHOT_MAX_BYTES counts besides the bytes a snapshot keeps of each match (its record or
 * its event): its offsets (two 32-bit numbers) and, per file, the run's bookkeeping and key.
 */
export const SNAPSHOT_MATCH_OVERHEAD_BYTES = 8;
export const SNAPSHOT_FILE_OVERHEAD_BYTES = 64;
/** Snapshot time to live after last use. */
export const SNAPSHOT_TTL_MS = 30 * 60_000;
/** Random bits in a cursor's snapshot identity. */
export const CURSOR_RANDOM_BITS = 128;

/** Summary pages and previews. */
export const SUMMARY_FILES_PER_PAGE = 30;
export const SUMMARY_PREVIEW_FILES = 5;
export const SUMMARY_PREVIEW_WINDOWS_PER_FILE = 2;
export const SUMMARY_PREVIEW_LINES_PER_WINDOW = 7;
/**
 * The whole text of one code_search answer, its "Project root:" line included: the line takes at
 * most PROJECT_ROOT_LINE_MAX_BYTES (a longer root is shortened in the text; the data has it
 * whole), and pages and inspections fit in the rest.
 */
export const CODE_ANSWER_MAX_BYTES = 16 * 1024;
export const PROJECT_ROOT_LINE_MAX_BYTES = 512;
/** Detail pages. */
export const DETAIL_PAGE_DEFAULT_MATCHES = 50;
export const DETAIL_PAGE_MAX_BYTES = CODE_ANSWER_MAX_BYTES - PROJECT_ROOT_LINE_MAX_BYTES;
export const LONG_LINE_CHARS = 500;
export const MAX_DISPLAYED_OCCURRENCES = 20;

/** Context budget tiers, in estimated tokens, and the estimate itself. */
export const CHARS_PER_TOKEN = 4;
export const BUDGET_FULL_TOKENS = 2_000;
export const BUDGET_TIGHT_TOKENS = 1_000;
export const BUDGET_CRITICAL_TOKENS = 500;
/** Remaining-context fractions that select the tiers: above 40% full, 12%..40% tight, below critical. */
export const BUDGET_TIGHT_BELOW_REMAINING = 0.4;
export const BUDGET_CRITICAL_BELOW_REMAINING = 0.12;
/** How long an MCP client has to answer roots/list before the server's own root is used. */
export const ROOTS_LIST_TIMEOUT_MS = 5_000;
/** Progress notifications start once a search has run this long. */
export const PROGRESS_AFTER_MS = 1_000;
/**
 * The shared (Redis) snapshot store: matches are stored in blocks of this many, so a page reads
 * only the blocks it shows; Redis drops a snapshot no replica has swept this long after its time
 * to live (or after twice the time to live, if longer).
 */
export const SNAPSHOT_BLOCK_MATCHES = 256;
export const SHARED_STORE_EXPIRY_GRACE_MS = 60_000;
/** Connecting to the shared store, and one command to it. */
export const SHARED_STORE_CONNECT_TIMEOUT_MS = 3_000;
export const SHARED_STORE_COMMAND_TIMEOUT_MS = 5_000;
/** Shortest accepted EVIDENT_CURSOR_KEY (the secret replicas share to sign cursors). */
export const CURSOR_KEY_MIN_CHARS = 32;
/** Names read ahead of the metadata reads during enumeration before ripgrep is paused. */
export const SCAN_PENDING_NAMES_MAX = 8_192;
/** Largest current file read to show context lines. */
export const CONTEXT_FILE_MAX_BYTES = 5 * 1024 * 1024;
/** Characters shown on each side of an occurrence in a long-line excerpt. */
export const LONG_LINE_EXCERPT_RADIUS_CHARS = 80;
/** Occurrence windows shown per long line (the rest are counted, never dropped from the snapshot). */
export const LONG_LINE_MAX_WINDOWS = 3;
/** Interval between progress notifications once they have started. */
export const PROGRESS_INTERVAL_MS = 1_000;
/** Room kept for a page's header, notes and continuation lines when fitting it to a budget. */
export const PAGE_FRAME_RESERVE_CHARS = 400;
/** Summary sample lines are cut to this many characters (the full line is one page away). */
export const SUMMARY_PREVIEW_LINE_CHARS = 200;

// ---------------------------------------------------------------------------------------------
// code_search analysis: anyOf, change scopes, impact, navigation.
// ---------------------------------------------------------------------------------------------

/** anyOf: distinct literal terms per request, and the length of each in UTF-8 bytes. */
export const ANYOF_TERMS_MIN = 2;
export const ANYOF_TERMS_MAX = 64;
export const ANYOF_TERM_MAX_BYTES = 256;
/** Terms per alternation candidate scan, and scans run at once. */
export const ANYOF_GROUP_TERMS = 8;
export const ANYOF_CONCURRENT_GROUPS = 4;
/** Characters of a term shown where an answer's text names it (the data has it whole). */
export const ANYOF_TERM_LABEL_CHARS = 40;
/**
 * Items an analysis result keeps and their estimated memory: the snapshot bounds, shared.
 * Pages show at most ANALYSIS_ITEMS_PER_PAGE items within DETAIL_PAGE_MAX_BYTES.
 */
export const ANALYSIS_MAX_ITEMS = SNAPSHOT_MAX_MATCHES;
export const ANALYSIS_MAX_BYTES = SNAPSHOT_MAX_BYTES;
export const ANALYSIS_ITEMS_PER_PAGE = 30;
/** What an analysis item costs besides its text, for the byte bound (an object and its fields). */
export const ANALYSIS_ITEM_OVERHEAD_BYTES = 96;

/** `changes`: a revision expression's length, the files a comparison covers, and each file's size. */
export const GIT_REVISION_MAX_CHARS = 256;
export const CHANGES_MAX_FILES = 10_000;
export const CHANGES_FILE_MAX_BYTES = 5 * 1024 * 1024;
/** Content of one change scope, all files together; files beyond it are named, not searched. */
export const CHANGES_MAX_BYTES = 64 * 1024 * 1024;
/** Materialized change scopes kept between calls (code/changes/mirrors.ts). */
export const CHANGES_MIRRORS_KEPT = 4;
/** Working-tree files whose content id is kept by revision between calls. */
export const CHANGES_CONTENT_IDS_MAX = 50_000;
/** Paths named on one Git command line (a patch limited to the files a scan matched). */
export const GIT_PATHSPECS_PER_COMMAND = 1_000;
/** Changed files read or written at once while a change scope is materialized. */
export const CHANGES_CONCURRENT_FILES = 16;
/** Changed files an answer's text names as not covered (its data lists them all). */
export const CHANGES_NOT_COVERED_LISTED = 5;
/** A line of Git's diff header output longer than this is refused (content lines are skipped unread). */
export const GIT_HEADER_LINE_MAX_BYTES = 64 * 1024;
/** Git versions as [major, minor]: `--no-lazy-fetch` exists from 2.45. */
export const GIT_NO_LAZY_FETCH_SINCE: readonly [number, number] = [2, 45];

// ---------------------------------------------------------------------------------------------
// code_search: source reads, inspection, syntax and structure search.
// ---------------------------------------------------------------------------------------------

/** Largest file read as one source document (inspection, parsing, continuations). */
export const SOURCE_DOCUMENT_MAX_BYTES = 5 * 1024 * 1024;
/** Targets of one inspection (`targets` or `matchIndices`). */
export const INSPECT_TARGETS_MIN = 1;
export const INSPECT_TARGETS_MAX = 5;
/** One byte budget for the whole text of an inspection answer, however many targets. */
export const INSPECT_RESPONSE_MAX_BYTES = CODE_ANSWER_MAX_BYTES - PROJECT_ROOT_LINE_MAX_BYTES;
/** A range's first line is cut inside (on a UTF-8 boundary) only if this much budget is left. */
export const INSPECT_MIN_CUT_BYTES = 256;
/** Lines shown on each side of a target line when no symbol range encloses it. */
export const INSPECT_EXCERPT_RADIUS_LINES = 20;
/** Length of a `symbol` name in an inspection target. */
export const INSPECT_SYMBOL_MAX_CHARS = 256;
/** A source continuation token: up to five documents, each naming its path. */
export const SOURCE_CURSOR_MAX_CHARS = 32_768;
/** How long a source continuation stays valid after it was issued. */
export const SOURCE_CURSOR_TTL_MS = 30 * 60_000;
/** Files parsed by one structure search (`maxParseFiles`). */
export const PARSE_FILES_MIN = 1;
export const PARSE_FILES_MAX = 2_000;
export const PARSE_FILES_DEFAULT = 200;
/**
 * Source bytes one structure search, impact or navigation call parses, beyond which files count
 * as over the parse budget (the first file always parses). A syntax tree takes tens of bytes of
 * native memory per source byte, freed only when V8 collects its handle, so this bounds what
 * one call adds (bench/hardening/RESULTS.md).
 */
export const PARSE_BYTES_MAX = 4 * 1024 * 1024;
/**
 * Steps down the syntax trees an impact call may take to place its occurrences (a node's
 * children looked at, or a step of a search among them): a file of deeply nested code would
 * otherwise take a time quadratic in its depth. Beyond it, occurrences stay unclassified.
 */
export const IMPACT_ROLE_STEPS = 2_000_000;
/**
 * Largest package.json navigation reads to resolve imports (read synchronously, once per
 * directory and call); a larger one counts as absent. Real manifests are kilobytes.
 */
export const MANIFEST_MAX_BYTES = 1024 * 1024;
/** Nesting of an `exports` or `imports` target (conditions, fallbacks) navigation follows. */
export const MANIFEST_TARGET_DEPTH = 32;
/** Import specifiers navigation resolves between turns of the event loop (each stats the tree). */
export const NAVIGATION_RESOLVE_TURN = 256;
/** Nearest ancestors a role looks at: strings and import or export clauses hold names within a few levels. */
export const IMPACT_ROLE_ANCESTORS = 8;
/** Structure patterns remembered as valid or not per language (the checks are cleared beyond it). */
export const STRUCTURE_PATTERN_CHECKS_MAX = 256;
/** Parses in flight at once (each on a thread of libuv's pool). */
export const PARSE_CONCURRENCY = 2;
/**
 * Syntax facts kept between calls per project root served (symbols, syntax errors, import
 * specifiers; never a tree), keyed by language and content hash, least recently used out: at
 * most this many entries and this much estimated memory. A tree lives only for the call that
 * parsed it: trees are native memory that V8 frees late (bench/hardening/RESULTS.md), so a
 * structure search parses again what an earlier call parsed; an inspection does not.
 */
export const SYNTAX_CACHE_MAX_ENTRIES = 4_096;
export const SYNTAX_CACHE_MAX_BYTES = 4 * 1024 * 1024;
/**
 * Estimated memory of one cached fact (a symbol or specifier) without its strings' characters,
 * which are counted apart, and of an entry.
 */
export const SYNTAX_FACT_BYTES_ESTIMATE = 128;

// ---------------------------------------------------------------------------------------------
// Transports.
// ---------------------------------------------------------------------------------------------

/**
 * Log lines one `evident` tool command holds until its outcome is known (written after a
 * success, dropped after a failure, whose standard error is the error document alone); beyond
 * it the oldest are left out, and the count of them said.
 */
export const CLI_HELD_LOG_LINES = 100;
/** Largest MCP message on stdio (one line); a longer one is skipped and answered with an error. */
export const STDIO_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
export const HTTP_DEFAULT_HOST = "127.0.0.1";
export const HTTP_DEFAULT_PORT = 8787;
/** Shortest accepted bearer token. */
export const HTTP_MIN_TOKEN_CHARS = 32;
/** Largest accepted request body on POST /mcp. */
export const HTTP_MAX_BODY_BYTES = 1024 * 1024;
/**
 * JSON-RPC requests served at once (each call of a 2025-03-26 batch counts; an HTTP request
 * carrying none counts one); beyond it 503 with Retry-After, and a batch larger than the bound
 * itself is refused.
 */
export const HTTP_MAX_CONCURRENT_REQUESTS = 32;
export const HTTP_RETRY_AFTER_SECONDS = 1;
/**
 * Open connections the HTTP server holds; further ones are closed as they arrive, so idle or
 * half-open sockets cannot take the file descriptors and memory that calls need.
 */
export const HTTP_MAX_CONNECTIONS = 512;
/**
 * Open connections one client address holds (idle, still sending its head, or being served);
 * further ones from it are answered 503 and closed, so one address cannot take every connection
 * slot (and /healthz) from the others. IPv6 clients are counted per /64.
 */
export const HTTP_MAX_CONNECTIONS_PER_CLIENT = 64;
/** At most one warning per this long while connections are refused at a connection bound. */
export const HTTP_CONNECTION_DROP_LOG_MS = 10_000;
/** How long in-flight requests may run after SIGTERM/SIGINT before the server closes anyway. */
export const HTTP_SHUTDOWN_GRACE_MS = 10_000;
/**
 * At the end of shutdown, how long answers still being written (calls cancelled at the end of
 * the grace period, 503s to requests that were still arriving) get before connections close.
 */
export const HTTP_SHUTDOWN_FLUSH_MS = 2_000;
/**
 * At the end of shutdown, idle-looking connections are closed only once none has brought a
 * request for this long (within HTTP_SHUTDOWN_FLUSH_MS): a client may still be sending on one.
 */
export const HTTP_SHUTDOWN_QUIET_MS = 500;
/** Time a client has to send a request's headers, then its body (408 beyond either). */
export const HTTP_HEADERS_TIMEOUT_MS = 10_000;
export const HTTP_BODY_READ_TIMEOUT_MS = 10_000;
/** An idle keep-alive connection is closed after this. */
export const HTTP_KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** How long a browser may reuse a CORS preflight answer. */
export const HTTP_CORS_MAX_AGE_SECONDS = 600;
/**
 * Upper bounds (seconds) of the tool-call latency histogram's buckets (`/metrics`): from a cached
 * code_search page to a web call at its overall deadline (WEB_CALL_DEADLINE_MS).
 */
export const METRICS_DURATION_BUCKETS_SECONDS = [
  0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60,
] as const;
