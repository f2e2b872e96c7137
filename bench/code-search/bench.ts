/**
 * code_search benchmark (not a test). Prepares corpora from npm / Debian packages only, then for
 * each fixed pattern measures, in this one run:
 *   - median time of a new code_search query (warm, in-process, and over MCP stdio to the built
 *     `evident mcp`) divided by raw `rg --json` on the same corpus, and of a cold one (a fresh
 *     service: no revision cache);
 *   - for context, raw ripgrep given exactly the arguments code_search passes (its case flag,
 *     hidden files, the protective globs), which is part of the difference;
 *   - first-response bytes against raw `rg -n` and `rg --json` output bytes;
 *   - time of a cursor page divided by the original search;
 *   - peak RSS of this process.
 *
 * Usage: node --import tsx bench/code-search/bench.ts [--tier quick|large] [--runs N]
 *   quick: typescript@5.9.3 from `npm pack` (default)
 *   large: linux-source-6.1 from `apt-get download` (1.5 GB unpacked; optional)
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { rgPath } from "@vscode/ripgrep";
import { resolveSearchTarget } from "../../src/code/path-policy.js";
import { normalizeRequest } from "../../src/code/request.js";
import { buildSearchArgs } from "../../src/code/rg-args.js";
import type { CodeSearchInput } from "../../src/code/schema.js";
import { CodeSearchService } from "../../src/code/service.js";
import { silentLogger } from "../../src/core/logger.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const corpora = join(repo, "bench/.corpora");
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const tier = arg("--tier", "quick");
const runs = Number(arg("--runs", "7"));

interface Case {
  readonly label: string;
  readonly input: CodeSearchInput;
  readonly rgFlags: readonly string[];
  readonly pattern: string;
}

/*
 * Each case is one search said two ways: a raw ripgrep command line and the code_search request
 * that means the same thing. ripgrep is case-sensitive unless told otherwise, so the requests
 * say `ignoreCase: false`; code_search's own default (smart case) gets its own row, against
 * ripgrep's `--smart-case`, because a lowercase pattern then matches more lines, more slowly.
 */
const CASES: readonly Case[] = [
  {
    label: "-w '[A-Z]+_SUSPEND'",
    input: { pattern: "[A-Z]+_SUSPEND", wholeWord: true, ignoreCase: false },
    rgFlags: ["-w"],
    pattern: "[A-Z]+_SUSPEND",
  },
  { label: "TODO", input: { pattern: "TODO", ignoreCase: false }, rgFlags: [], pattern: "TODO" },
  {
    label: "createSourceFile",
    input: { pattern: "createSourceFile", ignoreCase: false },
    rgFlags: [],
    pattern: "createSourceFile",
  },
  {
    label: "-F 'function ' (broad)",
    input: { pattern: "function ", literal: true, ignoreCase: false },
    rgFlags: ["-F"],
    pattern: "function ",
  },
  {
    label: "-S -F 'function ' (broad, smart case)",
    input: { pattern: "function ", literal: true },
    rgFlags: ["-S", "-F"],
    pattern: "function ",
  },
];

/** A search of the cases' file scope that matches nothing: it only keeps the scope warm. */
const KEEP_WARM: CodeSearchInput = { pattern: "evident bench keeps this scope warm", literal: true };

function prepare(): string {
  mkdirSync(corpora, { recursive: true });
  if (tier === "quick") {
    const dir = join(corpora, "typescript-5.9.3");
    if (!existsSync(join(dir, "package"))) {
      mkdirSync(dir, { recursive: true });
      execFileSync("npm", ["pack", "typescript@5.9.3", "--pack-destination", dir, "--silent"], {
        stdio: "inherit",
      });
      execFileSync("tar", ["xzf", join(dir, "typescript-5.9.3.tgz"), "-C", dir], { stdio: "inherit" });
    }
    return join(dir, "package");
  }
  const dir = join(corpora, "linux-source-6.1");
  if (!existsSync(join(dir, "tree"))) {
    mkdirSync(join(dir, "tree"), { recursive: true });
    execFileSync("apt-get", ["download", "linux-source-6.1"], { cwd: dir, stdio: "inherit" });
    const deb = readdirSync(dir).find((f) => f.endsWith(".deb"));
    if (deb === undefined) throw new Error("apt-get download produced no .deb");
    execFileSync("dpkg-deb", ["-x", join(dir, deb), join(dir, "deb")], { stdio: "inherit" });
    const tarball = readdirSync(join(dir, "deb/usr/src")).find(
      (f) => f.startsWith("linux-source") && f.includes(".tar"),
    );
    if (tarball === undefined) throw new Error("no linux-source tarball in the package");
    execFileSync("tar", ["xaf", join(dir, "deb/usr/src", tarball), "-C", join(dir, "tree")], {
      stdio: "inherit",
    });
  }
  const [top] = readdirSync(join(dir, "tree"));
  const tree = join(dir, "tree", top as string);
  // Debian's source package ends the top-level .gitignore with "/*" (everything but debian/).
  // Under this repository's git work tree ripgrep would honour it and see no files at all, for
  // raw rg and code_search alike; a kernel checkout has no such rule, so drop it.
  const gitignore = join(tree, ".gitignore");
  const rules = readFileSync(gitignore, "utf8");
  const kept = rules.replace(/^\/\*\n(?:!\/debian\/\n)?/m, "");
  if (kept !== rules) writeFileSync(gitignore, kept);
  return tree;
}

/** Runs raw ripgrep, discarding output; returns elapsed ms and output bytes. */
function rawRg(cwd: string, args: readonly string[]): Promise<{ ms: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(rgPath, [...args], { cwd, stdio: ["ignore", "pipe", "ignore"] });
    let bytes = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    child.on("error", reject);
    child.on("close", () => resolve({ ms: Number(process.hrtime.bigint() - start) / 1e6, bytes }));
  });
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** A minimal JSON-RPC client over the stdio server's pipes. */
class McpClient {
  #next = 1;
  #buffer = "";
  readonly #pending = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  constructor(private readonly child: ChildProcess) {
    child.stdout?.on("data", (chunk: Buffer) => {
      this.#buffer += chunk.toString("utf8");
      let newline = this.#buffer.indexOf("\n");
      while (newline >= 0) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        const message = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
        if (message.id !== undefined) this.#pending.get(message.id)?.(message);
        newline = this.#buffer.indexOf("\n");
      }
    });
  }
  request(method: string, params: unknown): Promise<{ result?: unknown; error?: unknown }> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.child.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  }
  notify(method: string): void {
    this.child.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`);
  }
}

async function startMcp(cwd: string): Promise<{ client: McpClient; stop: () => Promise<void> }> {
  // The server as users run it: the built `evident mcp` on plain node, rooted at the corpus.
  const child = spawn(process.execPath, [join(repo, "dist/adapters/cli/main.js"), "mcp"], {
    cwd,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const client = new McpClient(child);
  await client.request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  });
  client.notify("notifications/initialized");
  return {
    client,
    stop: () =>
      new Promise((resolve) => {
        child.once("close", () => resolve());
        child.stdin?.end();
      }),
  };
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);

async function main(): Promise<void> {
  const corpus = prepare();
  // The MCP server runs from dist/, which may be older than the sources.
  execFileSync("npm", ["run", "build", "--silent"], { cwd: repo, stdio: "inherit" });
  const files =
    execFileSync(rgPath, ["--files", "."], { cwd: corpus, maxBuffer: 1 << 30 })
      .toString()
      .split("\n").length - 1;
  console.log(`corpus: ${corpus} (${files} files searchable), runs per measurement: ${runs}`);
  const service = new CodeSearchService({ cwd: corpus, env: process.env, logger: silentLogger });
  const mcp = await startMcp(corpus);
  // Warm-up: the first call loads modules and resolves ripgrep.
  await service.run(KEEP_WARM, { caller: "bench", signal: new AbortController().signal });
  await mcp.client.request("tools/call", { name: "code_search", arguments: KEEP_WARM });

  const rows: string[][] = [];
  for (const c of CASES) {
    const rgArgs = ["--json", ...c.rgFlags, "--", c.pattern, "."];
    const request = normalizeRequest(c.input);
    if (request.kind === "page") throw new Error("a benchmark case must be a new search");
    const target = (await resolveSearchTarget(corpus, request.path)).rg;
    const sameArgs = buildSearchArgs(request.query, target);
    const rgTimes: number[] = [];
    const sameTimes: number[] = [];
    const ourTimes: number[] = [];
    const mcpTimes: number[] = [];
    const coldTimes: number[] = [];
    let first: Awaited<ReturnType<CodeSearchService["run"]>> | undefined;
    let jsonBytes = 0;
    for (let i = 0; i < runs; i++) {
      // Warm means the file scope was enumerated less than 30 s ago (the revision cache's time
      // to live), and a long run crosses that line. So each round starts with an untimed search
      // of the same scope: if the enumeration has expired, that search pays for it, and the
      // measured ones below come seconds later, after the raw ripgrep runs, as before.
      await service.run(KEEP_WARM, { caller: "bench", signal: new AbortController().signal });
      await mcp.client.request("tools/call", { name: "code_search", arguments: KEEP_WARM });
      // Interleaved so that cache state and machine noise hit both sides alike.
      const raw = await rawRg(corpus, rgArgs);
      rgTimes.push(raw.ms);
      jsonBytes = raw.bytes;
      sameTimes.push((await rawRg(target.cwd, sameArgs)).ms);
      const ours = await timed(() =>
        service.run(c.input, { caller: "bench", signal: new AbortController().signal }),
      );
      ourTimes.push(ours.ms);
      first = ours.value;
      const overMcp = await timed(() =>
        mcp.client.request("tools/call", { name: "code_search", arguments: c.input }),
      );
      mcpTimes.push(overMcp.ms);
      // Cold: a new service has no revision cache, so it pays for the names-only enumeration.
      const fresh = new CodeSearchService({ cwd: corpus, env: process.env, logger: silentLogger });
      const cold = await timed(() =>
        fresh.run(c.input, { caller: "bench", signal: new AbortController().signal }),
      );
      coldTimes.push(cold.ms);
      await fresh.close();
    }
    const plain = await rawRg(corpus, ["-n", ...c.rgFlags, "--", c.pattern, "."]);
    let pageRatio = "n/a";
    if (first?.data.cursor !== undefined) {
      const cursor = first.data.cursor;
      const pageTimes: number[] = [];
      for (let i = 0; i < runs; i++) {
        pageTimes.push(
          (
            await timed(() =>
              service.run({ cursor }, { caller: "bench", signal: new AbortController().signal }),
            )
          ).ms,
        );
      }
      pageRatio = fmt(median(pageTimes) / median(ourTimes), 3);
    }
    const firstBytes = Buffer.byteLength(first?.text ?? "");
    const reachable = first?.data.cursor !== undefined || first?.data.view !== "summary";
    rows.push([
      c.label,
      String(first?.data.totalMatches ?? 0) + (first?.data.status === "partial" ? "+" : ""),
      fmt(median(rgTimes), 1),
      fmt(median(sameTimes), 1),
      fmt(median(ourTimes), 1),
      fmt(median(ourTimes) / median(rgTimes)),
      fmt(median(mcpTimes) / median(rgTimes)),
      fmt(median(coldTimes) / median(rgTimes)),
      String(firstBytes),
      String(plain.bytes),
      String(jsonBytes),
      pageRatio,
      `${first?.data.view}${reachable ? "" : " (unreachable!)"}`,
    ]);
  }
  await mcp.stop();
  await service.close();
  const header = [
    "pattern",
    "matches",
    "rg --json ms",
    "rg, same flags ms",
    "code_search ms",
    "in-process / rg",
    "MCP stdio / rg",
    "cold / rg",
    "first response B",
    "rg -n B",
    "rg --json B",
    "page / search",
    "first view",
  ];
  console.log(`| ${header.join(" | ")} |`);
  console.log(`|${header.map(() => "---").join("|")}|`);
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
  console.log(
    `peak RSS of the benchmark process (in-process service included): ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`,
  );
}

await main();
