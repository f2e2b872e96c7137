/**
 * Large pages read at once (not a test): the built `evident mcp --transport http` reads the same
 * page of nearly 4 MiB (a real article body from the development set, repeated: the body cap is
 * 4 MiB) for N callers at once, from a loopback site, while one more client lists the tools
 * every 50 ms; then, once, a PDF of under 1 MB whose one content stream inflates to `--pdf-mb`
 * MB of text operators. Reported per round: each read's outcome and time, the server's peak
 * resident set (VmHWM; a fresh server per round) and its resident set 3 s after the last answer,
 * and the slowest listing during the reads against the slowest of 20 listings made before them
 * (the baseline, measured in the same run): how long the reads held every other caller up.
 *
 * Usage: npm run build && npx tsx bench/web-read/concurrent.ts [--reads 1,4,8] [--pdf-mb 256]
 *          [--cli PATH]
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { inflatingPdf, TEXT_OPERATORS } from "../../test/fixtures/inflating-pdf.js";
import { evalDir, loadEval, pageBytes } from "./eval-set.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const option = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const ROUNDS = (option("--reads") ?? "1,4,8").split(",").map(Number);
const CLI = option("--cli") ?? `${repo}dist/adapters/cli/main.js`;
const TARGET_BYTES = 4 * 1024 * 1024 - 128 * 1024;
const PDF_MB = Number(option("--pdf-mb") ?? 256);

const dir = evalDir();
const { items } = await loadEval(dir);
const sample = pageBytes(dir, (items[0] as { file: string }).file).toString("utf8");
const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(sample)?.[1] ?? sample;
const parts: string[] = [];
for (let size = 0; size < TARGET_BYTES; size += Buffer.byteLength(body) + 20)
  parts.push(`<section>${body}</section>`);
const html = `<!doctype html><html><head><title>Long</title></head><body><article>${parts.join("\n")}</article></body></html>`;

const pdf = inflatingPdf(PDF_MB, TEXT_OPERATORS);

const site = createServer((req, res) => {
  const isPdf = req.url === "/inflating.pdf";
  res.writeHead(200, { "content-type": isPdf ? "application/pdf" : "text/html; charset=utf-8" });
  res.end(isPdf ? pdf : html);
});
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

const mb = (pid: number, field: "VmRSS" | "VmHWM") =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;

async function round(reads: number, path: string, what: string): Promise<void> {
  const server = spawn(process.execPath, [CLI, "mcp", "--transport", "http"], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      EVIDENT_HTTP_HOST: "127.0.0.1",
      EVIDENT_HTTP_PORT: "0",
      EVIDENT_ALLOW_ANONYMOUS: "true",
      EVIDENT_ALLOW_PRIVATE_NETWORK: "true",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pid = server.pid as number;
  const url = await new Promise<string>((resolve) => {
    let seen = "";
    const look = (chunk: Buffer) => {
      seen += chunk;
      const found = /(http:\/\/\S+\/mcp)/.exec(seen);
      if (found) resolve(found[1] as string);
    };
    server.stdout.on("data", look);
    server.stderr.on("data", look);
  });
  const connect = async () => {
    const client = new Client({ name: "concurrent", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return client;
  };
  const [reader, lister] = [await connect(), await connect()];
  const list = async () => {
    const started = performance.now();
    try {
      await lister.listTools();
      return { ms: performance.now() - started, failed: false };
    } catch {
      return { ms: performance.now() - started, failed: true };
    }
  };
  // The baseline: listings with no read in flight.
  const idle: number[] = [];
  for (let i = 0; i < 20; i++) idle.push((await list()).ms);
  let listing = true;
  const during: Array<{ ms: number; failed: boolean }> = [];
  const lists = (async () => {
    while (listing) {
      during.push(await list());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: reads }, async () => {
      const at = performance.now();
      try {
        const result = await reader.callTool(
          { name: "web_read", arguments: { url: `${origin}${path}` } },
          { timeout: 180_000 },
        );
        const text = (result.content as Array<{ text: string }>)[0]?.text ?? "";
        const error = result.isError ? (/"reason":"([a-z_]+)"/.exec(text)?.[1] ?? "error") : undefined;
        return `${error ?? "read"} ${((performance.now() - at) / 1000).toFixed(1)} s`;
      } catch (thrown) {
        return `failed (${String((thrown as Error).cause ?? thrown).slice(0, 60)}) ${((performance.now() - at) / 1000).toFixed(1)} s`;
      }
    }),
  );
  const wall = performance.now() - started;
  listing = false;
  await lists;
  const peak = mb(pid, "VmHWM");
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const after = mb(pid, "VmRSS");
  const slowestIdle = Math.max(...idle);
  const slowest = Math.max(...during.map((d) => d.ms));
  console.log(`${reads} read(s) at once of ${what}: ${(wall / 1000).toFixed(1)} s; ${outcomes.join(", ")}`);
  console.log(
    `  server peak RSS ${peak.toFixed(0)} MB, ${after.toFixed(0)} MB 3 s after; slowest listing during the reads ${slowest.toFixed(0)} ms ` +
      `(x${(slowest / slowestIdle).toFixed(0)} the slowest of 20 before them, ${slowestIdle.toFixed(0)} ms), ` +
      `${during.length} listings, ${during.filter((d) => d.failed).length} failed`,
  );
  await reader.close();
  await lister.close();
  server.kill("SIGTERM");
  await new Promise((resolve) => server.once("exit", resolve));
}

console.log(`cli ${CLI}`);
for (const reads of ROUNDS) await round(reads, "/long", `a ${(html.length / 1048576).toFixed(2)} MB page`);
await round(1, "/inflating.pdf", `a ${(pdf.length / 1024).toFixed(0)} KB PDF inflating to ${PDF_MB} MB`);
site.close();
