/**
 * JSON pages through the direct reader: indented like JSON.stringify with two spaces, tokens as
 * sent; never more than the indentation bound (JSON_INDENT_*), at any nesting, with deep JSON
 * returned as sent and a warning that names the bound, not a parse failure; the event loop turns
 * while a long page is indented, and a cancel stops it. Over real HTTP on loopback for the
 * issue's reproductions; by `readBody` for the rest.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EvidentError } from "../../../src/core/errors.js";
import {
  JSON_INDENT_MAX_CHARS,
  JSON_INDENT_MAX_GROWTH,
  JSON_INDENT_MIN_CHARS,
  JSON_INDENT_SLICE_CHARS,
  MAX_RESPONSE_BODY_BYTES,
} from "../../../src/core/limits.js";
import { silentLogger } from "../../../src/core/logger.js";
import { createHttpClient } from "../../../src/net/client.js";
import type { HttpClient } from "../../../src/net/http-client.js";
import type { ProviderReadOutcome } from "../../../src/web/provider.js";
import { createDirectProvider, readBody } from "../../../src/web/providers/direct/provider.js";
import { jsonIndentBudget } from "../../../src/web/providers/direct/text.js";
import { type Loopback, startLoopback } from "../../net/loopback.js";

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const live = () => new AbortController().signal;
const read = (body: string, signal = live()) =>
  readBody("direct", Buffer.from(body), "application/json", "https://example.com/data.json", signal);
const text = (outcome: ProviderReadOutcome) => (outcome.content[0] as { text: string }).text;

/** Indented as JSON.stringify(value, null, 2) would, or bounded: never both wrong. */
function assertBounded(body: string, outcome: ProviderReadOutcome): void {
  const out = text(outcome);
  assert.ok(out.length <= jsonIndentBudget(body.length), `${out.length} characters from ${body.length}`);
  assert.ok(out.length <= Math.max(JSON_INDENT_MAX_GROWTH * body.length, JSON_INDENT_MIN_CHARS));
  assert.ok(out.length <= JSON_INDENT_MAX_CHARS);
}

describe("direct reader: JSON pages", () => {
  it("S16: indents as JSON.stringify does with two spaces, keeping each token as sent", async () => {
    const body =
      '{"id":12345678901234567890,"name":"caf\\u00e9 \\"x\\"","empty":[],"none":{},"list":[1,-2.50e3,[true,null]],"id":false}';
    const outcome = await read(body);
    assert.equal(outcome.warnings, undefined);
    assert.equal(
      text(outcome),
      [
        "{",
        '  "id": 12345678901234567890,',
        '  "name": "caf\\u00e9 \\"x\\"",',
        '  "empty": [],',
        '  "none": {},',
        '  "list": [',
        "    1,",
        "    -2.50e3,",
        "    [",
        "      true,",
        "      null",
        "    ]",
        "  ],",
        '  "id": false',
        "}",
      ].join("\n"),
      "a 64-bit id keeps its digits, a string its escapes, a repeated key both values",
    );
    const plain = { a: [1, { b: "two", c: [[], {}] }], d: { e: null } };
    assert.equal(text(await read(JSON.stringify(plain))), JSON.stringify(plain, null, 2));
  });

  it("S13: JSON nested 4,000 deep (8 KB) comes back as sent, with a warning naming the bound, not a parse failure", async () => {
    const body = nested(4_000);
    const outcome = await read(body);
    assert.equal(text(outcome), body);
    const warning = outcome.warnings?.[0] ?? "";
    assert.doesNotMatch(warning, /does not parse/);
    assert.match(warning, /returned as sent, not indented/);
    assert.match(warning, new RegExp(`more than ${jsonIndentBudget(body.length)} characters`));
    assert.match(warning, /nests 4000 levels deep/);
  });

  it("S13: fourteen of them side by side, and other shapes, never pass the bound", async () => {
    const fourteen = `[${Array.from({ length: 14 }, () => nested(4_000)).join(",")}]`;
    const shapes = [
      fourteen,
      nested(100),
      nested(200),
      `{${Array.from({ length: 50 }, (_, i) => `"k${i}":${nested(60)}`).join(",")}}`,
      JSON.stringify(Array.from({ length: 2_000 }, (_, i) => [[[[[i]]]]])),
    ];
    for (const body of shapes) {
      const outcome = await read(body);
      assertBounded(body, outcome);
      if (outcome.warnings === undefined)
        assert.equal(text(outcome), JSON.stringify(JSON.parse(body), null, 2));
      else assert.equal(text(outcome), body);
    }
    assert.ok(
      (await read(nested(100))).warnings === undefined,
      "a short page nests freely within its minimum",
    );
  });

  it("S13: an array nested a million deep (2 MB) overflows nothing: it comes back as sent, saying why", async () => {
    const body = nested(1_000_000);
    const outcome = await read(body);
    assert.equal(text(outcome), body);
    assert.match(outcome.warnings?.[0] ?? "", /not indented: .* nests 1000000 levels deep/);
  });

  it("JSON that does not parse comes back as sent, saying where, however deep or long", async () => {
    for (const [body, at] of [
      ['{"name": "evident",', 19],
      [`${"[".repeat(5_000)}}`, 5_000],
      ['{"a":1}}', 7],
      ['["\u0001"]', 2],
      ["[01]", 2],
      ["", 0],
    ] as const) {
      const outcome = await read(body);
      assert.equal(text(outcome), body);
      assert.deepEqual(outcome.warnings, [
        `direct: the page says it is JSON but does not parse as JSON (at character ${at}); its text is returned as sent`,
      ]);
    }
  });

  it("the event loop turns while a long JSON page is indented, and a cancel stops it", async () => {
    const body = JSON.stringify(Array.from({ length: 40_000 }, (_, i) => ({ id: i, tags: ["a", "b"] })));
    assert.ok(body.length > 3 * JSON_INDENT_SLICE_CHARS);
    let turns = 0;
    let turning = true;
    const turn = () => {
      turns++;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    const outcome = await read(body);
    turning = false;
    assert.equal(outcome.warnings, undefined);
    assert.ok(turns >= 3, `${turns} turns of the event loop while ${body.length} characters were indented`);

    const controller = new AbortController();
    setImmediate(() => controller.abort());
    await assert.rejects(read(body, controller.signal), (error: unknown) => {
      assert.ok(error instanceof EvidentError);
      assert.equal(error.code, "cancelled");
      return true;
    });
  });

  describe("over HTTP on loopback", () => {
    let site: Loopback;
    let http: HttpClient;
    const direct = createDirectProvider();
    const pages: Record<string, string> = {};

    before(async () => {
      site = await startLoopback((req, res) => {
        res.setHeader("content-type", "application/json; charset=utf-8");
        res.end(pages[req.url ?? ""] ?? "{}");
      });
      http = createHttpClient({ allowPrivateNetwork: true });
    });
    after(async () => {
      await http.close();
      await site.close();
    });

    it("S13: a page at the body cap of short nested arrays is read within the bound", async () => {
      // The 1.6 MB variant: many arrays a few hundred deep, side by side.
      const unit = nested(400);
      const body = `[${Array.from({ length: Math.floor(1.6e6 / (unit.length + 1)) }, () => unit).join(",")}]`;
      assert.ok(body.length < MAX_RESPONSE_BODY_BYTES);
      pages["/wide.json"] = body;
      const outcome = (await direct.read?.(
        { url: `${site.url}/wide.json` },
        { signal: live(), http, logger: silentLogger },
      )) as ProviderReadOutcome;
      assert.equal(text(outcome), body);
      assert.match(outcome.warnings?.[0] ?? "", /not indented: .* nests 401 levels deep/);
    });
  });
});
