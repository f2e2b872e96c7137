/**
 * Memory soak (not a test): the built `evident mcp` serves code_search over stdio while a client
 * sends many varied calls: new searches with ever new patterns, globs, modes, limits and
 * context, cursor pages, summaries, structure patterns, inspections, anyOf, redaction. The
 * server's resident set (VmRSS, /proc) is read after a warm-up and then every `--every` calls;
 * the report gives each reading, its ratio to the warm-up reading, measured in the same run, and
 * the highest resident set so far (VmHWM): an allocator that returns memory late or early moves
 * the reading, not the peak. After the last call it reads the resident set again, 5 to 60 s
 * later, with no call in flight: what the server keeps, not what it is working with.
 *
 * The server's CPU time (user + system, /proc) is reported with each reading, so settings that
 * trade CPU for memory can be compared run against run.
 *
 * Usage: npm run build && node --import tsx bench/hardening/soak.ts
 *          [--calls 10000] [--every 1000] [--files 400] [--parallel 2] [--seed 1] [--cli PATH]
 *          [--env NAME=VALUE ...]   (the server's environment only, e.g. NODE_OPTIONS or LD_PRELOAD)
 *          [--usage]   (the server preloads usage-probe.mjs: V8's heap and its spaces, external memory
 *                       and ArrayBuffers at each reading, on its stderr; measurement only)
 *          [--glibc]   (at the end, through gdb: glibc's malloc_stats on the server's stderr, then
 *                       the resident set after malloc_trim(0), i.e. what glibc kept but held free)
 * The tree is generated once into bench/.corpora/soak-<files>.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { seeded } from "../../test/fixtures/seeded.js";
import {
  residentMb,
  residentSplit,
  runCalls,
  serverEnv,
  startStdioServer,
  usageProbe,
} from "./stdio-server.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const CALLS = arg("--calls", 10_000);
const EVERY = arg("--every", 1_000);
const FILES = arg("--files", 400);
const PARALLEL = arg("--parallel", 2);
const WARMUP = 200;
/** Readings once the calls stop, in seconds after the last answer. */
const SETTLE_SECONDS = [5, 15, 30, 60];
const random = seeded(arg("--seed", 1));
const SERVER_ENV = serverEnv(process.argv);
const usage = usageProbe(process.argv, SERVER_ENV);
const CLI = process.argv.includes("--cli")
  ? (process.argv[process.argv.indexOf("--cli") + 1] as string)
  : `${repo}dist/adapters/cli/main.js`;
const WORDS = ["alpha", "beta", "gamma", "delta", "parse", "render", "token", "cache", "route", "value"];
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

/** A tree of TypeScript modules that import each other, with functions, classes and tests. */
function tree(files: number): string {
  const root = `${repo}bench/.corpora/soak-${files}`;
  if (existsSync(root)) return root;
  const building = `${root}.partial`;
  const local = seeded(11);
  const word = () => WORDS[Math.floor(local() * WORDS.length)] as string;
  for (let i = 0; i < files; i++) {
    const dir = `${building}/src/m${i % 20}`;
    mkdirSync(dir, { recursive: true });
    const lines = [`import { f${(i + 1) % files} } from "../m${(i + 1) % 20}/f${(i + 1) % files}.js";`, ""];
    for (let k = 0; k < 6; k++) {
      lines.push(
        `export function ${word()}${i}_${k}(input: string): string {`,
        `  const ${word()} = input.split("${word()}");`,
        `  console.log("${word()} ${word()}", ${k});`,
        `  return f${(i + 1) % files}(${word()}.join("${word()}"));`,
        "}",
        "",
      );
    }
    lines.push(
      `export class ${word().toUpperCase()}${i} {`,
      `  ${word()}(): number {`,
      `    return ${i};`,
      "  }",
      "}",
    );
    lines.push(`export const f${i} = (s: string) => s;`, "");
    writeFileSync(`${dir}/f${i}.ts`, lines.join("\n"));
    if (i % 10 === 0) {
      mkdirSync(`${building}/test`, { recursive: true });
      writeFileSync(
        `${building}/test/f${i}.test.ts`,
        `import { f${i} } from "../src/m${i % 20}/f${i}.js";\nf${i}("x");\n`,
      );
    }
  }
  renameSync(building, root);
  return root;
}

/** User plus system CPU seconds of a process so far (fields 14 and 15 of /proc/PID/stat). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // In clock ticks: 100 a second on Linux.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Answer {
  result?: { isError?: boolean; structuredContent?: { cursor?: string }; content?: { text: string }[] };
  error?: unknown;
}

async function main(): Promise<void> {
  const root = tree(FILES);
  const { pid, request, close } = await startStdioServer<Answer>({
    cli: CLI,
    cwd: root,
    env: { ...process.env, ...SERVER_ENV },
    client: "soak",
  });

  const cursors: string[] = [];
  const kinds = new Map<string, number>();
  const errors = new Map<string, number>();
  const varied = (n: number): Record<string, unknown> => {
    const roll = random();
    const file = `src/m${n % 20}/f${n % FILES}.ts`;
    if (roll < 0.15 && cursors.length > 0)
      return { cursor: cursors.splice(Math.floor(random() * cursors.length), 1)[0] };
    if (roll < 0.25) return { structure: `console.log("${pick(WORDS)} $A", $B)`, glob: `src/m${n % 20}/**` };
    if (roll < 0.35) return { path: file, line: 1 + Math.floor(random() * 30) };
    if (roll < 0.42) return { anyOf: [pick(WORDS), `${pick(WORDS)}${n % 97}`, `f${n % FILES}`] };
    if (roll < 0.45) return { path: file, navigate: pick(["imports", "tests"] as const) };
    return {
      // Ever new patterns: a new snapshot (and for summaries a new file table) almost every call.
      pattern: `${pick(WORDS)}${random() < 0.5 ? String(n % 500) : ""}|f${n % FILES}\\b`,
      ...(random() < 0.4 ? { glob: `src/m${Math.floor(random() * 20)}/**` } : {}),
      ...(random() < 0.3 ? { mode: pick(["matches", "summary", "auto"] as const) } : {}),
      ...(random() < 0.3 ? { context: Math.floor(random() * 4) } : {}),
      ...(random() < 0.3 ? { limit: 1 + Math.floor(random() * 40) } : {}),
      ...(random() < 0.2 ? { redact: true } : {}),
      ...(random() < 0.1 ? { literal: true, pattern: pick(WORDS) } : {}),
    };
  };
  let done = 0;
  const one = async () => {
    const n = done++;
    const args = varied(n);
    const kind = Object.keys(args)[0] as string;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    const answer = await request("tools/call", { name: "code_search", arguments: args });
    if (answer.error !== undefined || answer.result?.isError === true) {
      const code = /"code":"([a-z_]+)"/.exec(answer.result?.content?.[0]?.text ?? "")?.[1] ?? "protocol";
      errors.set(code, (errors.get(code) ?? 0) + 1);
    }
    const cursor = answer.result?.structuredContent?.cursor;
    if (cursor !== undefined && cursors.length < 200) cursors.push(cursor);
  };
  const run = (until: number) => runCalls(PARALLEL, until, () => done, one);
  const started = Date.now();
  await run(WARMUP);
  const base = residentMb(pid);
  console.log(
    `${FILES} files, ${PARALLEL} calls at a time, cli ${CLI}, server env ${JSON.stringify(SERVER_ENV)}`,
  );
  console.log(`after ${WARMUP} warm-up calls: RSS ${base.toFixed(1)} MB`);
  for (let at = EVERY; at <= CALLS; at += EVERY) {
    await run(WARMUP + at);
    usage(pid);
    const now = residentMb(pid);
    console.log(
      `after ${String(at).padStart(6)} calls: RSS ${now.toFixed(1)} MB (x${(now / base).toFixed(2)} of warm-up), ` +
        `peak ${residentMb(pid, "VmHWM").toFixed(1)} MB, ` +
        `${((Date.now() - started) / 1000).toFixed(0)} s, server CPU ${cpuSeconds(pid).toFixed(1)} s`,
    );
  }
  console.log(
    `calls by kind: ${JSON.stringify(Object.fromEntries(kinds))}; error results by code ${JSON.stringify(Object.fromEntries(errors))}`,
  );
  // What the server keeps once the calls stop: the runtime gives back what it no longer needs
  // when allocation stops (V8 shrinks its young generation and compacts after a few seconds).
  const stopped = Date.now();
  for (const seconds of SETTLE_SECONDS) {
    await new Promise((resolve) => setTimeout(resolve, stopped + seconds * 1000 - Date.now()));
    const now = residentMb(pid);
    console.log(
      `${String(seconds).padStart(3)} s after the last call: RSS ${now.toFixed(1)} MB (x${(now / base).toFixed(2)} of warm-up), ` +
        `server CPU ${cpuSeconds(pid).toFixed(1)} s`,
    );
  }
  console.log(`resident at the end: ${residentSplit(pid)}`);
  usage(pid);
  if (process.argv.includes("--glibc")) {
    const gdb = (call: string) =>
      execFileSync("gdb", ["-p", String(pid), "-batch", "-nx", "-ex", call], { stdio: "ignore" });
    gdb("call (void) malloc_stats()");
    gdb("call (int) malloc_trim(0)");
    console.log(`after malloc_trim(0): RSS ${residentMb(pid).toFixed(1)} MB; ${residentSplit(pid)}`);
  }
  await close();
}

await main();
