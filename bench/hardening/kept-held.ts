/**
 * What the kept store counts against what it holds (issue 32; not a test): code_search's service
 * in this process, over the `typescript` package's sources (as mix.ts searches them), runs new
 * searches until its memory store has evicted, then compares the store's count (`bytes`) with
 * what V8's heap and the ArrayBuffers hold more than after the store let go of everything
 * (full collections between readings: this script is run with --expose-gc; the server never is).
 *
 * With `--any-of`, the searches are anyOf analyses of three terms (what the soak sends), whose
 * results are kept as analysis items instead of compact records.
 *
 * With `--pages N`, web_read's service instead reads N pages of web-read-eval (as mix.ts serves
 * them, from loopback) and keeps the long ones; the store's count is compared the same way.
 *
 * Usage: node --expose-gc --import tsx bench/hardening/kept-held.ts [--searches 80] [--corpus DIR]
 *          [--any-of] [--pages N]
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { CodeSearchService } from "../../src/code/service.js";
import { memoryKept, snapshotStore } from "../../src/code/snapshots/store.js";
import { resolveSettings } from "../../src/config/settings.js";
import { KeptPool } from "../../src/core/kept-memory.js";
import { silentLogger } from "../../src/core/logger.js";
import { WebService } from "../../src/web/service.js";
import { seeded } from "../../test/fixtures/seeded.js";
import { startLoopback } from "../../test/net/loopback.js";
import { evalDir, loadEval } from "../web-read/eval-set.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const option = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const SEARCHES = Number(option("--searches") ?? 80);
const root = option("--corpus") ?? join(repo, "bench/.corpora/typescript-5.9.3/package");
const WORDS = [
  "createSourceFile",
  "SyntaxKind",
  "getTypeOfSymbol",
  "Diagnostics",
  "checkExpression",
  "emitFile",
  "isIdentifier",
  "forEachChild",
  "TypeFlags",
  "NodeFlags",
  "visitNode",
  "factory",
  "signature",
  "declaration",
  "transform",
  "interface",
  "function ",
];
const GLOBS = ["lib/*.d.ts", "lib/*.js", "lib/lib.*.d.ts", "!lib/_tsc.js", "lib/typescript.*"];
const random = seeded(1);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --expose-gc");
const held = (): number => {
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};
const mb = (bytes: number) => (bytes / 1048576).toFixed(1);

if (option("--pages") !== undefined) {
  await pages(Number(option("--pages")));
  process.exit(0);
}

/** web_read's kept pages: N pages read, then the count against what letting them go frees. */
async function pages(count: number): Promise<void> {
  const dir = evalDir();
  const { items, scorer } = await loadEval(dir);
  const site = await startLoopback((req, res) => {
    const body = gunzipSync(
      readFileSync(join(dir, "pages", `${decodeURIComponent((req.url ?? "/").slice(1))}.gz`)),
    );
    res.writeHead(200, { "content-type": `text/html; charset=${scorer.declaredCharset(body)}` });
    res.end(body);
  });
  const home = mkdtempSync(join(tmpdir(), "evident-kept-held-"));
  const pool = new KeptPool();
  const web = new WebService({
    settings: resolveSettings({
      EVIDENT_ALLOW_PRIVATE_NETWORK: "true",
      XDG_CONFIG_HOME: home,
      EVIDENT_CACHE_DIR: home,
    }),
    logger: silentLogger,
    memoryPool: pool,
  });
  let kept = 0;
  for (const item of items.slice(0, count)) {
    const url = `${site.url}/${encodeURIComponent(item.file)}`;
    const read = await web.read({ url }, new AbortController().signal, "c").catch(() => undefined);
    if (read?.data.cursor !== undefined) kept++;
  }
  const full = held();
  const counted = pool.bytes;
  const values = pool.entries.size;
  if (process.argv.includes("--flat")) {
    // Diagnosis: each kept text copied flat, so nothing it was cut from stays reachable through it.
    for (const entry of pool.entries.values()) {
      const page = entry.value as { text: string };
      page.text = Buffer.from(page.text, "utf16le").toString("utf16le");
    }
    console.log(`with each kept text copied flat: ${mb(held() - full)} MB of change`);
  }
  for (const id of [...pool.entries.keys()]) pool.entries.delete(id);
  const empty = held();
  console.log(
    `${count} pages read, ${kept} with a cursor: the store counts ${mb(counted)} MB for ${values} pages; letting them go frees ${mb(full - empty)} MB; held / counted ${((full - empty) / counted).toFixed(2)}`,
  );
  await web.close();
  await site.close();
  rmSync(home, { recursive: true, force: true });
}

const kept = memoryKept();
const service = new CodeSearchService({
  cwd: root,
  env: { PATH: process.env.PATH },
  logger: silentLogger,
  store: snapshotStore(kept),
});
const call = { caller: "c", signal: new AbortController().signal };
await service.run({ pattern: "warm-up" }, call);
const ANY_OF = process.argv.includes("--any-of");
for (let n = 0; n < SEARCHES; n++) {
  const word = pick(WORDS);
  const glob = random() < 0.4 ? { glob: [pick(GLOBS)] } : {};
  if (ANY_OF) await service.run({ anyOf: [word, pick(WORDS), `${pick(WORDS)}${n}`], ...glob }, call);
  else await service.run({ pattern: random() < 0.5 ? `${word}|${pick(WORDS)}${n}` : word, ...glob }, call);
}
const full = held();
const counted = kept.bytes;
const values = kept.size;
await kept.close();
const empty = held();
console.log(
  `${SEARCHES} ${ANY_OF ? "anyOf analyses" : "searches"}: the store counts ${mb(counted)} MB for ${values} results; letting them go frees ${mb(full - empty)} MB (V8 heap used + ArrayBuffers, after full collections); held / counted ${((full - empty) / counted).toFixed(2)}`,
);
await service.close();
