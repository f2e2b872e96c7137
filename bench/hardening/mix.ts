/**
 * Memory under a realistic mix (issue 32, part 2; not a test): the built `evident mcp` over stdio,
 * with Node's defaults, answers code_search calls on the sources of the `typescript` npm package
 * (new queries, cursor pages, inspections by match and by path and line, the rest of an
 * inspection) interleaved with web_read calls of real pages from web-read-eval, served from
 * loopback as its scorer serves them (the charset the page declares). A client keeps `--parallel`
 * calls in flight. The server's resident set (VmRSS) and its peak (VmHWM) are read every
 * `--every` calls, at the end, and 5, 10 and 30 s after the last call with none in flight, split by
 * mapping (glibc's main heap, other anonymous memory, file-backed pages), with the process's
 * threads (a kept reader thread is one). Each call's change of
 * the resident set is added to its kind, so the kinds that raise it show.
 *
 * Usage: npm run build && node --import tsx bench/hardening/mix.ts
 *          [--code 1000] [--reads 200] [--every 100] [--parallel 2] [--seed 1] [--cli PATH]
 *          [--corpus DIR] [--env NAME=VALUE ...]   (the server's environment only)
 *          [--usage]   (the server preloads usage-probe.mjs: V8's heap, external memory and
 *                       ArrayBuffers at each reading, on its stderr; measurement only)
 * The corpus defaults to typescript@5.9.3 (`npm pack`, as bench/code-search does) in
 * bench/.corpora; the pages to ../shared/web-read-eval (EVIDENT_WEB_READ_EVAL).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { seeded } from "../../test/fixtures/seeded.js";
import { startLoopback } from "../../test/net/loopback.js";
import { evalDir, loadEval } from "../web-read/eval-set.js";
import {
  residentMb,
  residentSplit,
  runCalls,
  serverEnv,
  startStdioServer,
  usageProbe,
} from "./stdio-server.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const option = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const CODE_CALLS = Number(option("--code") ?? 1_000);
const READ_CALLS = Number(option("--reads") ?? 200);
const EVERY = Number(option("--every") ?? 100);
const PARALLEL = Number(option("--parallel") ?? 2);
const random = seeded(Number(option("--seed") ?? 1));
const CLI = option("--cli") ?? `${repo}dist/adapters/cli/main.js`;
const SERVER_ENV = serverEnv(process.argv);
/** `--usage`: the server preloads usage-probe.mjs and writes its memory split at each reading. */
const usage = usageProbe(process.argv, SERVER_ENV);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

const WORDS = [
  "createSourceFile",
  "SyntaxKind",
  "getTypeOfSymbol",
  "Diagnostics",
  "checkExpression",
  "emitFile",
  "resolveModuleName",
  "isIdentifier",
  "forEachChild",
  "TypeFlags",
  "NodeFlags",
  "visitNode",
  "Debug.assert",
  "getSourceFile",
  "factory",
  "signature",
  "declaration",
  "transform",
  "interface",
  "function ",
];
const GLOBS = ["lib/*.d.ts", "lib/*.js", "lib/lib.*.d.ts", "!lib/_tsc.js", "lib/typescript.*"];

/** typescript@5.9.3's package, unpacked once into bench/.corpora (as bench/code-search does). */
function corpus(): string {
  const given = option("--corpus");
  if (given !== undefined) return given;
  const dir = join(repo, "bench/.corpora/typescript-5.9.3");
  if (!existsSync(join(dir, "package"))) {
    mkdirSync(dir, { recursive: true });
    execFileSync("npm", ["pack", "typescript@5.9.3", "--pack-destination", dir, "--silent"], {
      stdio: "inherit",
    });
    execFileSync("tar", ["xzf", join(dir, "typescript-5.9.3.tgz"), "-C", dir], { stdio: "inherit" });
  }
  return join(dir, "package");
}

interface Shown {
  index?: number;
  path: string;
  line: number;
}
interface Answer {
  result?: {
    isError?: boolean;
    content?: { text: string }[];
    structuredContent?: {
      cursor?: string;
      nextCursor?: string;
      inspectCursor?: string;
      sourceCursor?: string;
      matches?: Shown[];
      totalMatches?: number;
    };
  };
  error?: unknown;
}

/** What earlier answers handed out, for the calls that continue them. */
const kept = {
  cursors: [] as string[],
  inspect: [] as { cursor: string; match: number }[],
  shown: [] as Shown[],
  sources: [] as string[],
  pages: [] as string[],
};

function keep<T>(list: T[], item: T | undefined): void {
  if (item === undefined) return;
  list.push(item);
  if (list.length > 200) list.shift();
}

function take<T>(list: T[]): T | undefined {
  return list.length === 0 ? undefined : list.splice(Math.floor(random() * list.length), 1)[0];
}

/** One code_search call's arguments and its kind. */
function codeCall(n: number): [string, Record<string, unknown>] {
  const roll = random();
  const cursor = roll < 0.2 ? take(kept.cursors) : undefined;
  if (cursor !== undefined) return ["page", { cursor }];
  const inspect = roll < 0.3 ? take(kept.inspect) : undefined;
  if (inspect !== undefined) return ["inspect match", { cursor: inspect.cursor, inspect: inspect.match }];
  const shown = roll < 0.4 ? take(kept.shown) : undefined;
  if (shown !== undefined) return ["inspect line", { path: shown.path, line: shown.line }];
  const source = roll < 0.45 ? take(kept.sources) : undefined;
  if (source !== undefined) return ["inspect rest", { sourceCursor: source }];
  const word = pick(WORDS);
  return [
    "search",
    {
      // Ever new patterns: a new snapshot almost every call.
      pattern: random() < 0.5 ? `${word}|${pick(WORDS)}${n % 300}` : word,
      ...(random() < 0.4 ? { glob: [pick(GLOBS)] } : {}),
      ...(random() < 0.3 ? { mode: pick(["matches", "summary", "auto"] as const) } : {}),
      ...(random() < 0.3 ? { context: Math.floor(random() * 4) } : {}),
      ...(random() < 0.3 ? { limit: 1 + Math.floor(random() * 40) } : {}),
      ...(random() < 0.2 ? { wholeWord: true } : {}),
    },
  ];
}

function remember(answer: Answer): void {
  const data = answer.result?.structuredContent;
  if (data === undefined) return;
  keep(kept.cursors, data.cursor ?? data.nextCursor);
  const match = data.matches === undefined || data.matches.length === 0 ? undefined : pick(data.matches);
  if (data.inspectCursor !== undefined && match?.index !== undefined)
    keep(kept.inspect, { cursor: data.inspectCursor, match: match.index });
  if (match?.path !== undefined && match.line !== undefined)
    keep(kept.shown, { path: match.path, line: match.line });
  keep(kept.sources, data.sourceCursor);
}

/** The calls in a seeded order: `code` code_search calls and `reads` web_read calls, interleaved. */
function plan(): ("code" | "read")[] {
  const calls: ("code" | "read")[] = [
    ...Array.from({ length: CODE_CALLS }, () => "code" as const),
    ...Array.from({ length: READ_CALLS }, () => "read" as const),
  ];
  for (let i = calls.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [calls[i], calls[j]] = [calls[j] as "code" | "read", calls[i] as "code" | "read"];
  }
  return calls;
}

async function main(): Promise<void> {
  const root = corpus();
  const dir = evalDir();
  const { items, scorer } = await loadEval(dir);
  const pages = items.slice();
  const site = await startLoopback((req, res) => {
    const file = decodeURIComponent((req.url ?? "/").slice(1));
    const path = join(dir, "pages", file);
    if (file.includes("/") || !existsSync(`${path}.gz`)) {
      res.writeHead(404).end();
      return;
    }
    const body = gunzipSync(readFileSync(`${path}.gz`));
    res.writeHead(200, { "content-type": `text/html; charset=${scorer.declaredCharset(body)}` });
    res.end(body);
  });
  const home = mkdtempSync(join(tmpdir(), "evident-mix-"));
  const { pid, request, close } = await startStdioServer<Answer>({
    cli: CLI,
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      XDG_CONFIG_HOME: join(home, "config"),
      EVIDENT_CACHE_DIR: join(home, "cache"),
      EVIDENT_ALLOW_PRIVATE_NETWORK: "true",
      ...SERVER_ENV,
    },
    client: "mix",
  });

  const calls = plan();
  const byKind = new Map<string, { calls: number; errors: number; raisedMb: number; ms: number }>();
  const errors = new Map<string, number>();
  let done = 0;
  const one = async () => {
    const n = done++;
    let name = "code_search";
    let kind: string;
    let args: Record<string, unknown>;
    if (calls[n] === "read") {
      name = "web_read";
      const cursor = random() < 0.3 ? take(kept.pages) : undefined;
      const page = take(pages) ?? pick(items);
      [kind, args] =
        cursor !== undefined
          ? ["read next part", { cursor }]
          : ["read", { url: `${site.url}/${encodeURIComponent(page.file)}` }];
    } else [kind, args] = codeCall(n);
    const before = residentMb(pid, "VmRSS");
    const started = performance.now();
    const answer = await request("tools/call", { name, arguments: args });
    const entry = byKind.get(kind) ?? { calls: 0, errors: 0, raisedMb: 0, ms: 0 };
    entry.calls += 1;
    entry.ms += performance.now() - started;
    entry.raisedMb += Math.max(0, residentMb(pid, "VmRSS") - before);
    if (answer.error !== undefined || answer.result?.isError === true) {
      entry.errors += 1;
      const code = /"code":\s*"([a-z_]+)"/.exec(answer.result?.content?.[0]?.text ?? "")?.[1] ?? "protocol";
      errors.set(code, (errors.get(code) ?? 0) + 1);
    }
    byKind.set(kind, entry);
    if (name === "web_read") keep(kept.pages, answer.result?.structuredContent?.cursor);
    else remember(answer);
  };
  const run = (until: number) => runCalls(PARALLEL, until, () => done, one);
  const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(
    `corpus ${root}, ${CODE_CALLS} code_search + ${READ_CALLS} web_read calls, ${PARALLEL} at a time`,
  );
  console.log(`cli ${CLI}, server env ${JSON.stringify(SERVER_ENV)}, load average ${load()}`);
  console.log(`started: RSS ${residentMb(pid, "VmRSS").toFixed(1)} MB; ${residentSplit(pid)}`);
  const started = Date.now();
  for (let at = EVERY; at < calls.length + EVERY; at += EVERY) {
    await run(Math.min(at, calls.length));
    usage(pid);
    console.log(
      `after ${String(done).padStart(5)} calls: RSS ${residentMb(pid, "VmRSS").toFixed(1)} MB, peak ${residentMb(pid, "VmHWM").toFixed(1)} MB, ` +
        `${((Date.now() - started) / 1000).toFixed(0)} s, load ${load()}`,
    );
  }
  console.log(`at the end: ${residentSplit(pid)}`);
  console.log("| kind | calls | error results | RSS raised (sum of rises), MB | mean ms |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const [kind, entry] of [...byKind].sort((a, b) => b[1].raisedMb - a[1].raisedMb)) {
    console.log(
      `| ${kind} | ${entry.calls} | ${entry.errors} | ${entry.raisedMb.toFixed(1)} | ${(entry.ms / entry.calls).toFixed(0)} |`,
    );
  }
  console.log(`error results by code: ${JSON.stringify(Object.fromEntries(errors))}`);
  const stopped = Date.now();
  // A reader thread kept after the last large page ends once idle (EVIDENT_WEB_READ_THREAD_IDLE_MS,
  // 5 s by default): the readings from 10 s on come after it.
  for (const seconds of [5, 10, 30]) {
    await new Promise((resolve) => setTimeout(resolve, stopped + seconds * 1000 - Date.now()));
    usage(pid);
    console.log(
      `${String(seconds).padStart(2)} s after the last call: RSS ${residentMb(pid, "VmRSS").toFixed(1)} MB; ${residentSplit(pid)}`,
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  await close();
  await site.close();
  rmSync(home, { recursive: true, force: true });
}

await main();
