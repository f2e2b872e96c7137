/**
 * Whether a change to the `direct` reader left its answers as they were: every page of the WCXB
 * development split and of web-read-eval is read in-process (`readHtml`, as the server reads a
 * page where it arrives or on its thread) and each answer's fingerprint is written; given an
 * earlier run's file, the pages whose answer differs are named. A change meant to make the reader
 * faster, not different, shows no page here.
 *
 *   npx tsx bench/web-read/same.ts --out AFTER.json [--compare BEFORE.json] [--skip N] [--limit N] [--set wcxb|eval]
 *
 * Pages over the fetch layer's response cap are never read by the server: skipped here too.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { MAX_RESPONSE_BODY_BYTES } from "../../src/core/limits.js";
import { decodeBody } from "../../src/web/providers/direct/charset.js";
import { readHtml } from "../../src/web/providers/direct/html.js";
import { bothSetsPages } from "./eval-set.js";

const { values: opt } = parseArgs({
  options: {
    out: { type: "string" },
    compare: { type: "string" },
    limit: { type: "string" },
    skip: { type: "string" },
    set: { type: "string" },
  },
});

const pages = await bothSetsPages(opt);

const prints: Record<string, string> = {};
for (const page of pages) {
  const bytes = page.bytes();
  if (bytes.length > MAX_RESPONSE_BODY_BYTES) continue;
  let answer: string;
  try {
    answer = JSON.stringify(await readHtml(decodeBody(bytes, page.contentType, true).text, page.url));
  } catch (error) {
    answer = `error: ${String(error)}`;
  }
  prints[page.id] = createHash("sha256").update(answer).digest("hex").slice(0, 16);
}
if (opt.out !== undefined) writeFileSync(opt.out, JSON.stringify(prints, null, 1));
console.log(`web-read same: ${Object.keys(prints).length} pages read`);
if (opt.compare !== undefined) {
  const before = JSON.parse(readFileSync(opt.compare, "utf8")) as Record<string, string>;
  const differ = Object.keys(prints).filter((id) => before[id] !== undefined && before[id] !== prints[id]);
  const missing = Object.keys(before).filter((id) => prints[id] === undefined).length;
  console.log(`${differ.length} answers differ${missing > 0 ? `, ${missing} pages not read this run` : ""}`);
  for (const id of differ) console.log(`  ${id}`);
  if (differ.length > 0) process.exitCode = 1;
}
