/**
 * Pages over the response cap (MAX_RESPONSE_BODY_BYTES), over real HTTP on loopback: an HTML
 * page made large by inline scripts is read without them, and says so; an HTML page whose
 * markup itself passes the cap, or that streams past WEB_READ_MAX_STREAMED_BYTES, is cut and
 * says where; any other type over the cap is still `too_large`. The sieve that drops scripts is
 * checked on chunks split anywhere.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_RESPONSE_BODY_BYTES, WEB_READ_MAX_STREAMED_BYTES } from "../../../src/core/limits.js";
import { ProviderError } from "../../../src/web/provider.js";
import { ScriptSieve } from "../../../src/web/providers/direct/page-body.js";
import { loopbackReader } from "./loopback-reader.js";

const MIB = 1024 * 1024;
const ARTICLE = `<article><h1>Field notes on river otters</h1>${"<p>River otters along the northern estuary were counted each morning, and the notes say where each family slept and fed during the long winter.</p>".repeat(6)}</article>`;
const JSON_LD = `<script type="application/ld+json">{"@type":"Product","name":"Otter lamp","sku":"OTTER-LAMP-7"}</script>`;

/** An inline script of about `bytes` bytes, holding markup-like text a naive sieve trips on. */
function script(bytes: number): string {
  const unit = 'var row = "<div class=\\"x\\"><\\/div>"; if (a < b && c > d) { go("</span>"); }\n';
  return `<script>${unit.repeat(Math.ceil(bytes / unit.length))}</script>`;
}

/** Streams `parts` (strings, or a count of padding bytes to write), respecting back-pressure. */
function streamed(response: import("node:http").ServerResponse, parts: ReadonlyArray<string | number>): void {
  const queue = [...parts];
  const padding = Buffer.alloc(64 * 1024, " ");
  let left = 0;
  const pump = () => {
    for (;;) {
      if (left === 0) {
        const next = queue.shift();
        if (next === undefined) {
          response.end();
          return;
        }
        if (typeof next === "string") {
          if (!response.write(next)) return void response.once("drain", pump);
          continue;
        }
        left = next;
      }
      const size = Math.min(left, padding.length);
      left -= size;
      if (!response.write(padding.subarray(0, size))) return void response.once("drain", pump);
    }
  };
  pump();
}

const PAGES: Record<string, (response: import("node:http").ServerResponse) => void> = {
  // Scripts before and after the body's start: the article ends past the cap.
  "/scripted": (response) => {
    response.setHeader("content-type", "text/html; charset=utf-8");
    response.end(
      `<html><head><title>Otters</title>${JSON_LD}${script(3 * MIB)}<style>${"p{color:red}".repeat(1000)}</style></head><body>${script(2 * MIB)}<!-- <script> a comment, not a script --><main>${ARTICLE}</main></body></html>`,
    );
  },
  // Markup over the cap with no script to drop: read up to the cap.
  "/long": (response) => {
    response.setHeader("content-type", "text/html");
    streamed(response, [
      `<html><body><main>${ARTICLE}<div hidden>`,
      MAX_RESPONSE_BODY_BYTES,
      "</div><p>The end of the page.</p></main></body></html>",
    ]);
  },
  // A page that never stops sending scripts: read as far as the streamed bound.
  "/endless": (response) => {
    response.setHeader("content-type", "text/html");
    streamed(response, [
      `<html><body><main>${ARTICLE}</main><script>`,
      WEB_READ_MAX_STREAMED_BYTES + MIB,
      "</script></body></html>",
    ]);
  },
  "/big.json": (response) => {
    response.setHeader("content-type", "application/json");
    streamed(response, ['{"padding": "', MAX_RESPONSE_BODY_BYTES, '"}']);
  },
  "/big.txt": (response) => {
    response.setHeader("content-type", "text/plain");
    streamed(response, ["<script>", MAX_RESPONSE_BODY_BYTES, "</script>"]);
  },
};

describe("direct: pages over the response cap", () => {
  const { read, text } = loopbackReader((request, response) => {
    const page = PAGES[request.url ?? ""];
    if (page === undefined) {
      response.statusCode = 404;
      response.end();
      return;
    }
    page(response);
  });

  it("S13: an HTML page over the cap because of its scripts is read without them, and the warning says so", async () => {
    const outcome = await read("/scripted");
    assert.match(text(outcome), /where each family slept and fed/);
    // JSON-LD is kept: the reader reads its facts.
    assert.match(text(outcome), /OTTER-LAMP-7/);
    assert.doesNotMatch(text(outcome), /var row|color:red/);
    assert.match(
      outcome.warnings?.[0] ?? "",
      /over the 4 MiB response cap; the content of its scripts and styles \([\d,]+ bytes\).* was dropped/,
    );
    assert.doesNotMatch(outcome.warnings?.join(" ") ?? "", /cut/);
  });

  it("S13: an HTML page whose markup passes the cap is cut there, and the warning says where", async () => {
    const outcome = await read("/long");
    assert.match(text(outcome), /where each family slept and fed/);
    assert.doesNotMatch(text(outcome), /The end of the page/);
    assert.match(
      outcome.warnings?.[0] ?? "",
      /the page's HTML was cut after [\d,]+ bytes.*may miss the end of the page/,
    );
  });

  it("S13: an HTML page that streams past the bytes read for one page is cut there", async () => {
    const outcome = await read("/endless");
    assert.match(text(outcome), /where each family slept and fed/);
    assert.match(outcome.warnings?.[0] ?? "", /cut after [\d,]+ bytes/);
    const cutAt = Number(
      (outcome.warnings?.[0] ?? "").match(/after ([\d,]+) bytes/)?.[1]?.replaceAll(",", ""),
    );
    assert.ok(cutAt <= WEB_READ_MAX_STREAMED_BYTES, `read ${cutAt} bytes`);
  });

  for (const path of ["/big.json", "/big.txt"]) {
    it(`S13: ${path} over the cap is still refused as too_large, never cut`, async () => {
      const error = await read(path).then(
        () => assert.fail("expected a failure"),
        (thrown: unknown) => thrown,
      );
      assert.ok(error instanceof ProviderError);
      assert.equal(error.kind, "too_large");
      assert.match(error.reason, /exceeded 4 MiB/);
    });
  }
});

describe("direct: the script sieve", () => {
  const PAGE = `<!DOCTYPE html><html><head>${JSON_LD}<SCRIPT src="a.js"></SCRIPT><style media="x">a{b:c}</style><script>if (a<b) x = "</scrip" + "t>"; y = '<script>';</script></head><body><!-- <script>kept comment</script> --><p>Text <b>bold</b> <span>and</span> <scripted>tags</scripted></p><script type="module">drop()</script ><p>End</p></body></html>`;
  const EXPECTED = `<!DOCTYPE html><html><head>${JSON_LD}<SCRIPT src="a.js"></SCRIPT><style media="x"></style><script></script></head><body><!-- <script>kept comment</script> --><p>Text <b>bold</b> <span>and</span> <scripted>tags</scripted></p><script type="module"></script ><p>End</p></body></html>`;

  const sieved = (chunks: readonly Buffer[]) => {
    const sieve = new ScriptSieve();
    const out = chunks.flatMap((chunk) => sieve.push(chunk));
    out.push(...sieve.end());
    return { text: Buffer.concat(out).toString("latin1"), dropped: sieve.dropped };
  };

  it("drops script (not JSON-LD) and style content, keeps tags and comments, and counts what it dropped", () => {
    const { text, dropped } = sieved([Buffer.from(PAGE, "latin1")]);
    assert.equal(text, EXPECTED);
    assert.equal(dropped, PAGE.length - EXPECTED.length);
  });

  it("gives the same bytes whatever the chunks, split anywhere (twice)", () => {
    const bytes = Buffer.from(PAGE, "latin1");
    for (let first = 1; first < bytes.length; first += 1) {
      const second = Math.min(bytes.length, first + 1 + (first % 11));
      const { text } = sieved([
        bytes.subarray(0, first),
        bytes.subarray(first, second),
        bytes.subarray(second),
      ]);
      assert.equal(text, EXPECTED, `split at ${first} and ${second}`);
    }
  });
});
