/**
 * PDFs and large HTML pages are read on a thread of their own
 * (web/providers/direct/reader-thread.ts): the server keeps answering while one is read, a
 * cancelled read ends its thread, a page that needs more than the reader's memory (its heap, or
 * buffers outside it such as a PDF's inflated streams) is `too_large` and the server goes on,
 * failures cross the thread as they are, and no more threads run at once than the bound.
 * Through the built CLI over MCP stdio, as users run it (npm test builds first; from source
 * there is no thread module and pages are read on the calling thread). The server's threads are
 * counted in /proc. Tests that need the same server share one: each thread reads its page with a
 * fresh runtime, so what a test costs is mostly its threads and servers. The bound on threads
 * at once is checked in this process, on the built module, by the order of its events.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, afterEach, before, describe, it } from "node:test";
import {
  WEB_READ_MEMORY_MB,
  WEB_READ_MEMORY_MIN_MB,
  WEB_READ_THREAD_IDLE_MS,
  WEB_READ_THREAD_MIN_CHARS,
  WEB_READ_THREAD_MIN_ELEMENTS,
  WEB_READ_THREAD_START_MB,
  WEB_READ_THREADS,
} from "../../../src/core/limits.js";
import { readHtml } from "../../../src/web/providers/direct/html.js";
import { heavyHtml } from "../../../src/web/providers/direct/reader-thread.js";
import { inflatingPdf } from "../../fixtures/inflating-pdf.js";
import { EVIDENT_CLI as CLI, homeEnv } from "../../helpers/built-cli.js";
import { connectStdio, textOf } from "../../helpers/mcp-client.js";
import { type Loopback, startLoopback } from "../../net/loopback.js";

const ROOT = resolve(import.meta.dirname, "../../..");
/** The reader threads' default memory and idle time, for the tests that call the thread module. */
const LIMITS = { memoryMb: WEB_READ_MEMORY_MB, idleMs: WEB_READ_THREAD_IDLE_MS };

/**
 * Sections of long paragraphs: a page just over the size read on a thread. Its size is what
 * sends it there; fewer, longer paragraphs make the same size cheaper to read.
 */
function largePage(): string {
  const words = "the reader keeps this sentence of the long article as part of its main content".split(" ");
  const paragraph = (i: number) =>
    `<p>Paragraph ${i}: ${Array.from({ length: 600 }, (_, k) => words[(i + k) % words.length]).join(" ")}.</p>`;
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < WEB_READ_THREAD_MIN_CHARS + 64 * 1024; i++) {
    const part = `${i % 10 === 0 ? `<h2>Part ${i / 10}</h2>` : ""}${paragraph(i)}`;
    parts.push(part);
    size += part.length;
  }
  return `<!doctype html><html><head><title>Large</title></head><body><article>${parts.join("\n")}</article></body></html>`;
}

const LARGE = largePage();
/** As long as a large page, but almost all of it one script: sent to a thread, cheap to read there. */
const LONG_SCRIPT = `<!doctype html><html><head><title>Long</title><script>${"var x = 1;\n".repeat(
  Math.ceil(WEB_READ_THREAD_MIN_CHARS / 11),
)}</script></head><body><article><p>A page whose size is its script.</p></article></body></html>`;
/**
 * Short, but with as many elements as goes to a thread: line breaks in one paragraph, which the
 * reader gets through faster than as many paragraphs (what is tested is where it is read).
 */
const MANY = `<!doctype html><html><head><title>Many</title></head><body><article><p>${Array.from(
  { length: WEB_READ_THREAD_MIN_ELEMENTS },
  (_, i) => `${i}<br>`,
).join("")}</p></article></body></html>`;
const REPORT_PDF = readFileSync(resolve(import.meta.dirname, "fixtures/report.pdf"));
const SCANNED_PDF = readFileSync(resolve(import.meta.dirname, "fixtures/scanned.pdf"));
/** Past the smallest reader memory, under what the reader counts before opening a PDF (pdf-inflate.ts). */
const INFLATING_PDF = inflatingPdf(120);
/**
 * Small elements, many of them, up to the body cap: as a DOM, more heap than the smallest
 * allowance; past the reader's element bound, read as text without one.
 */
const HEAVY = `<!doctype html><html><head><title>Heavy</title></head><body><article>${"<p><i>a</i></p>".repeat(
  Math.floor((4 * 1024 * 1024 - 1024) / 15),
)}</article></body></html>`;
const SMALL =
  "<!doctype html><html><head><title>Small</title></head><body><article><p>A small page, read where it arrives.</p></article></body></html>";

// biome-ignore lint/suspicious/noExplicitAny: envelopes are read loosely; their shapes are asserted.
type Envelope = Record<string, any>;

function threadsOf(pid: number): number {
  return Number(/Threads:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}

/** The ids of the process's threads now. */
function tasksOf(pid: number): Set<string> {
  return new Set(readdirSync(`/proc/${pid}/task`));
}

function residentMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;
}

/** Resolves once `condition` holds, checked every few milliseconds (the test's timeout bounds it). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("web_read: large pages on a thread of their own", () => {
  let site: Loopback;
  let base: string;
  /** Resolves when the site has handed the whole large page to the socket, per request. */
  let sent: Array<Promise<void>> = [];

  before(async () => {
    assert.ok(existsSync(CLI), "run `npm run build` first (npm test does)");
    base = await mkdtemp(join(tmpdir(), "evident-threads-"));
    site = await startLoopback((req, res) => {
      const pdf = { "/report.pdf": REPORT_PDF, "/scanned.pdf": SCANNED_PDF, "/inflating.pdf": INFLATING_PDF }[
        req.url ?? ""
      ];
      res.setHeader("content-type", pdf === undefined ? "text/html; charset=utf-8" : "application/pdf");
      if (pdf !== undefined) res.end(pdf);
      else if (req.url === "/many") res.end(MANY);
      else if (req.url === "/heavy") res.end(HEAVY);
      else if (req.url?.startsWith("/large")) {
        sent.push(new Promise((resolve) => res.once("finish", () => resolve())));
        res.end(LARGE);
      } else res.end(SMALL);
    });
  });
  after(async () => {
    await site.close();
    await rm(base, { recursive: true, force: true });
  });

  /** A server over stdio, and a web_read through it (its envelope, an error's too). */
  async function connect(env: Record<string, string> = {}) {
    const { client, transport } = await connectStdio({
      name: "threads",
      cwd: base,
      env: homeEnv(base, { EVIDENT_ALLOW_PRIVATE_NETWORK: "true", ...env }),
    });
    const read = async (path: string, options: { signal?: AbortSignal } = {}) => {
      const result = await client.callTool(
        { name: "web_read", arguments: { url: `${site.url}${path}` } },
        { ...options, timeout: 120_000 },
      );
      return JSON.parse(textOf(result)) as Envelope;
    };
    return { client, transport, read };
  }

  type Server = Awaited<ReturnType<typeof server>>;

  /** The same, once a small page has been read. */
  async function server(env: Record<string, string> = {}) {
    const { client, transport, read } = await connect(env);
    // A small page first: whatever the server starts lazily (its thread pool, the reader's
    // modules) is running before its threads are counted.
    assert.equal((await read("/small")).error, undefined);
    const pid = transport.pid as number;
    const baseline = threadsOf(pid);
    /** Its resident set before any large page. */
    const resident = residentMb(pid);
    /** One read, and the most threads the server had while it ran. */
    const watched = async (path: string) => {
      let most = baseline;
      let reading = true;
      const answer = read(path).finally(() => {
        reading = false;
      });
      await until(() => {
        most = Math.max(most, threadsOf(pid));
        return !reading;
      });
      return { envelope: await answer, most };
    };
    return { client, read, watched, pid, baseline, resident };
  }

  /** One server for the tests of a describe; each test leaves it with no reader thread. */
  function shared(env: Record<string, string> = {}): () => Server {
    let current: Server | undefined;
    before(async () => {
      current = await server(env);
    });
    afterEach(async () => {
      const { pid, baseline } = current as Server;
      await until(() => threadsOf(pid) === baseline);
    });
    after(() => current?.client.close());
    return () => current as Server;
  }

  describe("on a server with the reader's default memory", () => {
    // What is tested is the threads, not the deadlines: on a loaded machine a large page can take
    // longer than the 20 s attempt deadline, so this server's deadlines are long. Its threads end
    // with their page, so each test starts with none and waits for no idle time.
    const current = shared({
      EVIDENT_DIRECT_DEADLINE_MS: "120000",
      EVIDENT_CALL_DEADLINE_MS: "180000",
      EVIDENT_WEB_READ_THREAD_IDLE_MS: "0",
    });

    it("reads a large page on a thread that ends with it, to the same text as on the calling thread", async () => {
      const { watched, pid, baseline } = current();
      const { envelope, most } = await watched("/large");
      assert.equal(envelope.error, undefined, JSON.stringify(envelope.error));
      assert.equal(most, baseline + 1, "one thread more while the page was read");
      await until(() => threadsOf(pid) === baseline);
      const here = await readHtml(LARGE, `${site.url}/large`);
      const text = envelope.content.map((piece: { text: string }) => piece.text).join("");
      assert.ok(text.length > 1000);
      assert.equal(text, (here.content[0] as { text: string }).text.slice(0, text.length));
      assert.equal(envelope.title, "Large");
    });

    it("a short page with many elements goes to a thread too; what decides is counted cheaply", async () => {
      assert.ok(MANY.length < WEB_READ_THREAD_MIN_CHARS / 10);
      const tags = (n: number, tag = "p") => `<html>${`<${tag}>x`.repeat(n)}</html>`;
      assert.equal(
        heavyHtml(tags(WEB_READ_THREAD_MIN_ELEMENTS - 3)),
        false,
        "html + n - 3 + ... under the bound",
      );
      assert.equal(heavyHtml(tags(WEB_READ_THREAD_MIN_ELEMENTS - 1)), true);
      assert.equal(heavyHtml(tags(WEB_READ_THREAD_MIN_ELEMENTS, "P")), true, "upper case counts");
      assert.equal(heavyHtml(`<html>${"< p>x<3 x<=y".repeat(WEB_READ_THREAD_MIN_ELEMENTS)}</html>`), false);
      assert.equal(heavyHtml(" ".repeat(WEB_READ_THREAD_MIN_CHARS)), true);
      const { watched, baseline } = current();
      const { envelope, most } = await watched("/many");
      assert.equal(most, baseline + 1, "one thread more while the page was read");
      const here = await readHtml(MANY, `${site.url}/many`);
      const text = envelope.content.map((piece: { text: string }) => piece.text).join("");
      assert.equal(text, (here.content[0] as { text: string }).text.slice(0, text.length));
    });

    it("answers other calls while a large page is read", async () => {
      const { client, read } = current();
      sent = [];
      const order: string[] = [];
      const large = read("/large").then((envelope) => {
        order.push("read");
        return envelope;
      });
      await until(() => sent.length === 1);
      await sent[0];
      // On the calling thread the page's reading holds everything else up: five listings one
      // after the other would wait for it.
      for (let i = 0; i < 5; i++) {
        await client.listTools();
        order.push("list");
      }
      assert.equal((await large).error, undefined);
      assert.deepEqual(order, ["list", "list", "list", "list", "list", "read"]);
    });

    it("a cancelled read ends its thread at once, and the server goes on", async () => {
      const { read, pid, baseline } = current();
      const controller = new AbortController();
      let settled = false;
      const answer = read("/large", { signal: controller.signal }).then(
        () => "answered",
        () => "cancelled",
      );
      void answer.finally(() => {
        settled = true;
      });
      await until(() => settled || threadsOf(pid) > baseline);
      assert.equal(settled, false, "the read ended before its thread was seen");
      controller.abort();
      assert.equal(await answer, "cancelled");
      await until(() => threadsOf(pid) === baseline);
      assert.equal((await read("/small")).title, "Small");
    });

    it("reads a PDF on a thread: its text by page and its title; a scanned one's failure crosses as it is", async () => {
      const { read, watched, baseline } = current();
      const { envelope, most } = await watched("/report.pdf");
      assert.equal(most, baseline + 1, "one thread more while the PDF was read");
      assert.equal(envelope.title, "Quarterly report");
      assert.match(
        envelope.content[0].text,
        /^--- page 1 of 2 ---\n\nQuarterly report\nRevenue grew by twelve percent in the third quarter\./,
      );
      const scanned = await read("/scanned.pdf");
      assert.equal(scanned.error?.code, "all_providers_failed");
      assert.deepEqual(scanned.error.provider_reasons, { direct: "upstream" });
      assert.match(
        scanned.error.provider_errors.direct,
        /has no text layer to read, probably scanned images/,
      );
    });
  });

  describe("on a server that keeps its thread for a while", () => {
    // Long enough that the next page comes before it ends, on a loaded machine too.
    const current = shared({ EVIDENT_WEB_READ_THREAD_IDLE_MS: "2000" });

    it("pages in a row are read on one thread, kept between them; it ends once idle", async () => {
      const { read, pid, baseline } = current();
      const before = tasksOf(pid);
      const added = () => [...tasksOf(pid)].filter((task) => !before.has(task));
      assert.equal((await read("/many")).error, undefined);
      const kept = added();
      assert.equal(kept.length, 1, "the thread that read the page is kept");
      for (let i = 0; i < 2; i++) {
        const envelope = await read("/many");
        assert.equal(envelope.error, undefined);
        assert.equal(envelope.title, "Many");
        assert.deepEqual(added(), kept, "the next page is read on the same thread");
      }
      await until(() => threadsOf(pid) === baseline);
    });
  });

  describe(`on a server whose reader may use ${WEB_READ_MEMORY_MIN_MB} MB`, () => {
    const current = shared({
      EVIDENT_WEB_READ_MEMORY_MB: String(WEB_READ_MEMORY_MIN_MB),
      EVIDENT_WEB_READ_THREAD_IDLE_MS: "0",
    });

    it("an HTML page of more elements than a DOM is built for is read as text within it", async () => {
      const { read, pid, baseline } = current();
      const envelope = await read("/heavy");
      assert.equal(envelope.error, undefined, JSON.stringify(envelope.error));
      assert.equal(envelope.title, "Heavy");
      assert.match(envelope.warnings.join("\n"), /more than [\d,]+ elements/);
      await until(() => threadsOf(pid) === baseline);
    });

    for (const [what, path] of [
      ["a PDF that inflates past the reader's memory, outside the heap", "/inflating.pdf"],
    ] as const) {
      it(`${what} is too_large, and the server goes on`, async () => {
        const { read, pid, baseline } = current();
        const envelope = await read(path);
        assert.equal(envelope.error?.code, "all_providers_failed", JSON.stringify(envelope).slice(0, 400));
        assert.deepEqual(envelope.error.provider_reasons, { direct: "too_large" });
        assert.match(
          envelope.error.provider_errors.direct,
          new RegExp(`more than the ${WEB_READ_MEMORY_MIN_MB} MB its reader may use`),
        );
        await until(() => threadsOf(pid) === baseline);
        assert.equal((await read("/small")).title, "Small");
      });
    }

    it("PDFs inflating past the reader's memory, one after another, are stopped at it: the process grows less than the backstop allows one read, and does not ratchet up", async () => {
      // The reader's thread stops such a PDF at its allowance, and the C allocator keeps what the
      // ended thread freed for the next one: the process stays about one allowance larger.
      // Stopped by the backstop alone (the process's growth past the allowance and a thread's
      // start), the first PDF left it larger than that, and each one after another could add to it.
      const { read, pid, baseline, resident } = current();
      const after: number[] = [];
      for (let i = 0; i < 4; i++) {
        assert.deepEqual((await read("/inflating.pdf")).error?.provider_reasons, { direct: "too_large" });
        await until(() => threadsOf(pid) === baseline);
        after.push(residentMb(pid));
      }
      const said = `resident ${resident.toFixed(0)} MB, then ${after.map((mb) => mb.toFixed(0)).join(", ")} MB`;
      assert.ok(
        after.every((mb) => mb - resident < WEB_READ_MEMORY_MIN_MB + WEB_READ_THREAD_START_MB),
        said,
      );
      assert.ok((after[3] as number) - (after[0] as number) < WEB_READ_MEMORY_MIN_MB, said);
    });
  });

  it("an unusable EVIDENT_WEB_READ_MEMORY_MB is a configuration_error naming it", async () => {
    const { client, read } = await connect({
      EVIDENT_WEB_READ_MEMORY_MB: String(WEB_READ_MEMORY_MIN_MB - 1),
    });
    try {
      const envelope = await read("/small");
      assert.equal(envelope.error?.code, "configuration_error", JSON.stringify(envelope).slice(0, 400));
      assert.match(JSON.stringify(envelope.error), /EVIDENT_WEB_READ_MEMORY_MB/);
    } finally {
      await client.close();
    }
  });

  it(`reads at most ${WEB_READ_THREADS} page(s) at once: the others wait their turn, saying what they wait for; one that finds the reader free says nothing`, async () => {
    // The built module, as the server runs it (from source there is no thread to wait for). Here
    // the threads are this process's own: a turn comes only once an earlier page has been read,
    // each answer comes from a thread running beside no other reader, and the thread that read
    // the first page reads the others.
    const built = resolve(ROOT, "dist/web/providers/direct/reader-thread.js");
    const { readOnThread, READER_BUSY, readerThreads } = (await import(
      built
    )) as typeof import("../../../src/web/providers/direct/reader-thread.js");
    const page = { kind: "html", html: LONG_SCRIPT, pageUrl: `${site.url}/long` } as const;
    assert.equal(heavyHtml(LONG_SCRIPT), true);
    const live = new AbortController().signal;
    const own = process.pid;
    const idle = threadsOf(own);
    const pages = WEB_READ_THREADS + 2;
    const events: string[] = [];
    const startedBefore = readerThreads().started;
    const reads = Array.from({ length: pages }, (_, i) =>
      readOnThread(page, "direct", live, LIMITS, (what) => {
        if (what === READER_BUSY) events.push(`${i} waits`);
        else {
          assert.equal(what, undefined);
          assert.ok(
            threadsOf(own) <= idle + WEB_READ_THREADS,
            `page ${i}'s turn beside more threads than the bound`,
          );
          events.push(`${i} turn`);
        }
      }).then((outcome) => {
        assert.ok(threadsOf(own) <= idle + WEB_READ_THREADS, `page ${i} read beside another reader`);
        events.push(`${i} read`);
        return outcome;
      }),
    );
    // Said at once, while the first pages hold the reader.
    assert.deepEqual(
      events,
      Array.from({ length: pages - WEB_READ_THREADS }, (_, k) => `${WEB_READ_THREADS + k} waits`),
    );
    for (const outcome of await Promise.all(reads)) assert.equal(outcome.title, "Long");
    const waiting = Array.from({ length: pages - WEB_READ_THREADS }, (_, k) => WEB_READ_THREADS + k);
    for (const i of waiting) {
      assert.ok(events.indexOf(`${i} read`) > events.indexOf(`${i - WEB_READ_THREADS} read`), events.join());
      if (i > WEB_READ_THREADS)
        assert.ok(events.indexOf(`${i} turn`) > events.indexOf(`${i - 1} turn`), events.join());
    }
    assert.equal(
      readerThreads().started - startedBefore,
      WEB_READ_THREADS,
      "the pages after the first start no thread",
    );
    for (let i = 0; i < WEB_READ_THREADS; i++)
      assert.ok(!events.includes(`${i} turn`), "the first said nothing");
  });
  it("a read cancelled on a kept thread ends that thread; the next page starts a new one and is read", async () => {
    const built = resolve(ROOT, "dist/web/providers/direct/reader-thread.js");
    const { readOnThread, readerKept, readerThreads } = (await import(
      built
    )) as typeof import("../../../src/web/providers/direct/reader-thread.js");
    const page = { kind: "html", html: MANY, pageUrl: `${site.url}/many` } as const;
    const live = new AbortController().signal;
    const own = process.pid;
    assert.equal((await readOnThread(page, "direct", live, LIMITS)).title, "Many");
    assert.ok(readerKept(LIMITS), "the thread that read the page is kept");
    const kept = readerThreads().started;
    const threads = threadsOf(own);
    const controller = new AbortController();
    const cancelled = readOnThread(page, "direct", controller.signal, LIMITS);
    controller.abort();
    await assert.rejects(cancelled, { code: "cancelled" });
    assert.equal(readerThreads().started, kept, "the cancelled page was given to the kept thread");
    await until(() => threadsOf(own) === threads - 1);
    assert.equal((await readOnThread(page, "direct", live, LIMITS)).title, "Many");
    assert.equal(readerThreads().started, kept + 1, "a new thread for the next page");
  });
  it("a thread whose idle time is 0 ends with its page: none is kept for the next", async () => {
    const built = resolve(ROOT, "dist/web/providers/direct/reader-thread.js");
    const { readOnThread, readerKept } = (await import(
      built
    )) as typeof import("../../../src/web/providers/direct/reader-thread.js");
    const page = { kind: "html", html: MANY, pageUrl: `${site.url}/many` } as const;
    const live = new AbortController().signal;
    assert.equal((await readOnThread(page, "direct", live, LIMITS)).title, "Many");
    assert.ok(readerKept(LIMITS), "kept with the default idle time");
    const none = { ...LIMITS, idleMs: 0 };
    assert.equal((await readOnThread(page, "direct", live, none)).title, "Many");
    assert.equal(readerKept(none), false, "the kept thread read the page and ended");
  });
  it("while a thread is kept, a page under the thresholds is read on it, to the same text; with none kept, where it arrives", async () => {
    const dist = resolve(ROOT, "dist/web/providers/direct");
    const { readBody } = (await import(
      `${dist}/provider.js`
    )) as typeof import("../../../src/web/providers/direct/provider.js");
    const { readerThreads } = (await import(
      `${dist}/reader-thread.js`
    )) as typeof import("../../../src/web/providers/direct/reader-thread.js");
    const html = "text/html; charset=utf-8";
    const read = (page: string, signal = new AbortController().signal) =>
      readBody("direct", new TextEncoder().encode(page), html, `${site.url}/page`, signal);
    assert.equal(heavyHtml(SMALL), false);
    assert.equal((await read(MANY)).title, "Many");
    const { started, pages } = readerThreads();
    const onThread = await read(SMALL);
    assert.deepEqual(readerThreads(), { started, pages: pages + 1 }, "read on the kept thread");
    assert.deepEqual(onThread, await readHtml(SMALL, `${site.url}/page`));
    // A stopped read ends the thread: none is kept.
    const own = process.pid;
    const threads = threadsOf(own);
    const controller = new AbortController();
    const cancelled = read(MANY, controller.signal);
    controller.abort();
    await assert.rejects(cancelled, { code: "cancelled" });
    await until(() => threadsOf(own) === threads - 1);
    assert.equal((await read(SMALL)).title, "Small");
    assert.deepEqual(
      readerThreads(),
      { started, pages: pages + 1 },
      "read where it arrived, starting nothing",
    );
  });
});

/**
 * A long article of some 4,800 tags: more than a thread's start once sent to one, less than a
 * thread's start costs to read where it arrives.
 */
const THOUSANDS = `<!doctype html><html><head><title>Thousands</title></head><body><article>${Array.from(
  { length: 600 },
  (_, i) =>
    `<h2>Part ${i}</h2><p>The part ${i} of a long article, with <a href="/part/${i}">a link to its notes</a>.</p><p>A second paragraph.</p>`,
).join("")}</article></body></html>`;

describe("web_read: pages under the thread's bounds", () => {
  it("a page of thousands of tags is read where it arrives: it pays no thread's start, to the same text", async () => {
    const dist = resolve(ROOT, "dist/web/providers/direct");
    const { readBody } = (await import(
      `${dist}/provider.js`
    )) as typeof import("../../../src/web/providers/direct/provider.js");
    const { readerThreads, readerKept } = (await import(
      `${dist}/reader-thread.js`
    )) as typeof import("../../../src/web/providers/direct/reader-thread.js");
    assert.ok((THOUSANDS.match(/<[a-z/!]/gi) ?? []).length > 4_500);
    assert.equal(heavyHtml(THOUSANDS), false);
    assert.equal(readerKept(LIMITS), false, "no thread is kept to take it");
    const { started, pages } = readerThreads();
    const url = "https://site.test/thousands";
    const outcome = await readBody(
      "direct",
      new TextEncoder().encode(THOUSANDS),
      "text/html; charset=utf-8",
      url,
      new AbortController().signal,
    );
    assert.deepEqual(readerThreads(), { started, pages }, "no thread started or used");
    assert.equal(outcome.title, "Thousands");
    assert.deepEqual(outcome, await readHtml(THOUSANDS, url));
  });
});
