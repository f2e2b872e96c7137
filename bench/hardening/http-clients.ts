/**
 * Issue 31, HTTP lane (not a test; the short forms are test/adapters/http-hostile-clients.test.ts).
 * Starts the built `evident mcp --transport http` and measures two hostile clients:
 *
 * - flood: FLOOD sockets from 127.0.0.2, each sending part of a request head and nothing more,
 *   while /healthz is probed from 127.0.0.1 every 200 ms across the 10 s header timeout: how many
 *   probes were answered, the slowest answer, and what the flood's sockets got.
 * - batch: with EVIDENT_HTTP_MAX_CONCURRENT=4, one JSON-RPC batch (no protocol header) of BATCH
 *   web_reads of a loopback page server that holds each page HOLD_MS, then a batch of 4 with 4
 *   single calls beside it: the most page requests open at once (the tool calls running at once),
 *   the statuses, and the /healthz latency meanwhile.
 *
 * For each: the server's peak RSS (VmHWM) and its RSS after IDLE_MS idle.
 *
 * Usage: npm run build && node --import tsx bench/hardening/http-clients.ts
 *          [--flood 520] [--batch 50] [--idle 10000] [--cli PATH]
 * `--cli PATH`: another build's entry point (the base commit's dist/adapters/cli/main.js).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, request } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const FLOOD = arg("--flood", 520);
const BATCH = arg("--batch", 50);
const IDLE_MS = arg("--idle", 10_000);
const HOLD_MS = 1_500;
const CLI = process.argv.includes("--cli")
  ? (process.argv[process.argv.indexOf("--cli") + 1] as string)
  : `${repo}dist/adapters/cli/main.js`;
const TOKEN = "b".repeat(40);

interface Server {
  readonly child: ChildProcess;
  readonly port: number;
  readonly home: string;
}

async function start(env: Record<string, string>): Promise<Server> {
  const home = mkdtempSync(join(tmpdir(), "evident-bench-http-"));
  const child = spawn(process.execPath, [CLI, "mcp", "--transport", "http"], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      XDG_CONFIG_HOME: home,
      EVIDENT_AUTH_TOKEN: TOKEN,
      EVIDENT_HTTP_PORT: "0",
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      stderr += chunk;
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (match) resolve(Number(match[1]));
    });
    child.once("exit", () => reject(new Error(`server exited: ${stderr}`)));
  });
  return { child, port, home };
}

async function stop(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill("SIGTERM");
  await exited;
  rmSync(server.home, { recursive: true, force: true });
}

function memory(server: Server): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${server.child.pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(kb("VmRSS") / 1024), peakMb: Math.round(kb("VmHWM") / 1024) };
}

/** GET /healthz from 127.0.0.1: its latency in ms, or the failure's code. */
function health(port: number): Promise<number | string> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(
      { host: "127.0.0.1", port, path: "/healthz", agent: false, timeout: 2_000 },
      (res) => {
        res.resume();
        res.on("end", () =>
          resolve(res.statusCode === 200 ? performance.now() - started : `HTTP ${res.statusCode}`),
        );
      },
    );
    req.on("timeout", () => req.destroy(Object.assign(new Error("timeout"), { code: "TIMEOUT" })));
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

/** Probes /healthz every 200 ms until `until` resolves. */
async function probe(
  port: number,
  until: Promise<unknown>,
): Promise<{ ok: number; failed: Record<string, number>; slowestMs: number }> {
  let done = false;
  void until.then(() => {
    done = true;
  });
  const result = { ok: 0, failed: {} as Record<string, number>, slowestMs: 0 };
  while (!done) {
    const [answer] = await Promise.all([health(port), new Promise((resolve) => setTimeout(resolve, 200))]);
    if (typeof answer === "number") {
      result.ok += 1;
      result.slowestMs = Math.max(result.slowestMs, Math.round(answer));
    } else {
      result.failed[answer] = (result.failed[answer] ?? 0) + 1;
    }
  }
  return result;
}

async function flood(): Promise<void> {
  const server = await start({});
  const sockets: Socket[] = [];
  const outcome = { answered503: 0, answered408: 0, closedSilently: 0, open: 0 };
  await Promise.all(
    Array.from(
      { length: FLOOD },
      () =>
        new Promise<void>((resolve) => {
          const socket = connect({ port: server.port, host: "127.0.0.1", localAddress: "127.0.0.2" });
          sockets.push(socket);
          let received = "";
          socket.setEncoding("utf8");
          socket.on("data", (chunk: string) => {
            received += chunk;
          });
          socket.on("error", () => {});
          socket.on("close", () => {
            if (received.startsWith("HTTP/1.1 503")) outcome.answered503 += 1;
            else if (received.startsWith("HTTP/1.1 408")) outcome.answered408 += 1;
            else outcome.closedSilently += 1;
          });
          socket.on("connect", () => {
            socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
            resolve();
          });
          socket.on("close", () => resolve());
        }),
    ),
  );
  // Across the header timeout (10 s), as the flood's sockets would be renewed every 10 s.
  const probed = await probe(server.port, new Promise((resolve) => setTimeout(resolve, 12_000)));
  outcome.open = sockets.filter((socket) => !socket.destroyed).length;
  const peak = memory(server).peakMb;
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const idle = memory(server).rssMb;
  await stop(server);
  console.log(
    JSON.stringify({
      case: "flood",
      flood: FLOOD,
      flooders: outcome,
      healthz: probed,
      peakRssMb: peak,
      idleRssMb: idle,
    }),
  );
}

async function batch(): Promise<void> {
  let open = 0;
  let most = 0;
  const page = `<html><head><title>held</title></head><body>${"<p>held page text</p>".repeat(2_000)}</body></html>`;
  const pages = createServer((_req, res) => {
    open += 1;
    most = Math.max(most, open);
    setTimeout(() => {
      open -= 1;
      res.writeHead(200, { "content-type": "text/html" }).end(page);
    }, HOLD_MS);
  });
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
  const pagePort = (pages.address() as { port: number }).port;
  const server = await start({ EVIDENT_HTTP_MAX_CONCURRENT: "4", EVIDENT_ALLOW_PRIVATE_NETWORK: "true" });
  const read = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "web_read", arguments: { url: `http://127.0.0.1:${pagePort}/p${id}` } },
  });
  const post = (body: unknown) =>
    new Promise<{ status: number; errors: number; results: number }>((resolve) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: server.port,
          path: "/mcp",
          method: "POST",
          agent: false,
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${TOKEN}`,
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            text += chunk;
          });
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              errors: (text.match(/"isError":true/g) ?? []).length,
              results: (text.match(/"result":/g) ?? []).length,
            }),
          );
        },
      );
      req.on("error", () => resolve({ status: 0, errors: 0, results: 0 }));
      req.end(JSON.stringify(body));
    });
  const big = post(Array.from({ length: BATCH }, (_, i) => read(i + 1)));
  const bigProbe = await probe(server.port, big);
  const bigAnswer = await big;
  const mostOfBig = most;
  most = 0;
  const mixed = Promise.all([
    post(Array.from({ length: 4 }, (_, i) => read(100 + i))),
    ...Array.from({ length: 4 }, (_, i) => post(read(200 + i))),
  ]);
  const mixedProbe = await probe(server.port, mixed);
  const mixedAnswers = await mixed;
  const peak = memory(server).peakMb;
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const idle = memory(server).rssMb;
  await stop(server);
  pages.close();
  console.log(
    JSON.stringify({
      case: "batch",
      bound: 4,
      batchOf: BATCH,
      answer: bigAnswer,
      mostCallsAtOnce: mostOfBig,
      healthz: bigProbe,
      batchOf4PlusFourSingles: {
        statuses: mixedAnswers.map((a) => a.status),
        results: mixedAnswers.map((a) => a.results),
        mostCallsAtOnce: most,
        healthz: mixedProbe,
      },
      peakRssMb: peak,
      idleRssMb: idle,
    }),
  );
}

console.log(
  JSON.stringify({ cli: CLI, node: process.version, loadavg: readFileSync("/proc/loadavg", "utf8").trim() }),
);
await flood();
await batch();
