/**
 * One read in a fresh process, for bench.ts: argv[2] bytes of HTML (0: a small page) made of a
 * real article page's body repeated, read by the direct reader in-process; prints the peak
 * resident set size in bytes.
 */
import { readBody } from "../../src/web/providers/direct/provider.js";
import { evalDir, loadEval, pageBytes } from "./eval-set.js";

const target = Number(process.argv[2] ?? 0);
const dir = evalDir();
const { items } = await loadEval(dir);
const page = pageBytes(dir, (items[0] as { file: string }).file).toString("utf8");
const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(page)?.[1] ?? page;
let html = page;
if (target > 0) {
  const parts: string[] = [];
  let size = 0;
  while (size < target) {
    parts.push(`<section>${body}</section>`);
    size += body.length + 19;
  }
  html = `<!doctype html><html><head><title>Long</title></head><body><article>${parts.join("\n")}</article></body></html>`;
}
await readBody(
  "direct",
  Buffer.from(html),
  "text/html; charset=utf-8",
  "https://example.org/long",
  new AbortController().signal,
);
console.log(process.resourceUsage().maxRSS * 1024);
