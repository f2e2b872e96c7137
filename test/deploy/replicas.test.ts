/**
 * Two real replicas (`evident mcp --transport http`, the built CLI) sharing one real Redis, behind
 * a real nginx running deploy/nginx.conf (round robin): code_search's paging and web_read's long
 * pages hold whichever replica answers, and code_search's when a replica dies mid-walk. Every
 * process is started and stopped here.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { readFileSync, watch } from "node:fs";
import { createServer } from "node:net";
import { after, before, describe, it } from "node:test";
import { createClient, RESP_TYPES } from "@redis/client";
import { callerOf } from "../../src/adapters/mcp/http-guards.js";
import { JSON_HEADERS, legacyHeaders, messagesOf, raw, toolCall } from "../adapters/http-raw.js";
import { isRunning, treesRemovedAfter } from "../code/helpers.js";
import { missing } from "../fixtures/optional-tools.js";
import { type Loopback, startLoopback } from "../net/loopback.js";
import {
  adaptNginxSite,
  freePort,
  type Nginx,
  own,
  type RedisServer,
  startNginx,
  startRedis,
} from "../servers/services.js";
import {
  CLI,
  IMAGE_NODE_OPTIONS,
  imageMemoryEnv,
  type Replica,
  ROOT,
  replicaEnv,
  startReplica,
} from "./replica.js";

const TOKEN = randomBytes(24).toString("hex");
/** Two clients with tokens of their own (EVIDENT_AUTH_TOKENS): each its own caller. */
const ALICE = randomBytes(24).toString("hex");
const BOB = randomBytes(24).toString("hex");
const CURSOR_KEY = randomBytes(24).toString("hex");
const FILES = 80;
const PER_FILE = 25;
const TOTAL = FILES * PER_FILE;
const PAGE = 100;
/** A page web_read returns in several parts at the default envelope budget (40,000 characters). */
const LONG_PAGE = Array.from(
  { length: 3_000 },
  (_, i) => `line ${String(i).padStart(4, "0")} of a page longer than one answer`,
).join("\n");

/** Every walk needs all three; the refusals to start (below) need none of them. */
const skip = missing("redis-server", "nginx", "jemalloc");
const makeTree = treesRemovedAfter(after);
let tree: string;
let redis: RedisServer;
let replicas: Replica[] = [];
let nginx: Nginx;
let pageServer: Loopback;
const pids: number[] = [];

before(async () => {
  if (skip) return;
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) {
    files[`src/m${String(i).padStart(3, "0")}.ts`] = Array.from(
      { length: PER_FILE },
      (_, j) => `export const needle_${j} = "${randomBytes(12).toString("hex")}";`,
    ).join("\n");
  }
  tree = await makeTree(files);
  pageServer = await startLoopback((req, res) => {
    res.setHeader("content-type", "text/plain; charset=utf-8");
    res.end(req.url === "/long" ? LONG_PAGE : "short");
  });
  redis = await startRedis();
  pids.push(redis.pid);
  // The deployed environment, plus what lets web_read reach the loopback page server (the only
  // variable the deployment does not set; compose.test.ts compares replicaEnv's).
  const env = {
    ...replicaEnv(redis.url, CURSOR_KEY, TOKEN, [ALICE, BOB]),
    ...imageMemoryEnv(),
    EVIDENT_ALLOW_PRIVATE_NETWORK: "true",
  };
  replicas = await Promise.all([startReplica(tree, env), startReplica(tree, env)]);
  pids.push(...replicas.map((r) => r.pid));
  const port = await freePort();
  const site = readFileSync(`${ROOT}/deploy/nginx.conf`, "utf8");
  nginx = await startNginx((dir) =>
    adaptNginxSite(site, {
      upstreams: replicas.map((r) => r.address),
      listen: `127.0.0.1:${port}`,
      accessLog: `${dir}/access.log`,
    }),
  );
  pids.push(nginx.pid);
});

after(async () => {
  await nginx?.stop();
  await Promise.all(replicas.map((replica) => replica.stop()));
  await redis?.stop();
  await pageServer?.close();
  for (const pid of pids) assert.equal(isRunning(pid), false, `process ${pid} left running`);
});

let nextId = 1;
/** Calls sent through nginx so far (its access log catches up with this count). */
let throughNginx = 0;

/** One tool call as an agent makes it over MCP HTTP: the model-facing text, or the error. */
async function call(
  url: string,
  args: Record<string, unknown>,
  token = TOKEN,
  tool = "code_search",
): Promise<{ text: string; isError: boolean }> {
  if (url.startsWith(nginx.url)) throughNginx++;
  const response = await raw(url, {
    method: "POST",
    headers: legacyHeaders(token),
    body: toolCall(nextId++, tool, args),
  });
  assert.equal(response.status, 200, response.body);
  const [message] = messagesOf(response.body);
  const result = message?.result as { content: Array<{ text: string }>; isError?: boolean };
  return { text: result.content[0]?.text ?? "", isError: result.isError === true };
}

async function codeSearch(url: string, args: Record<string, unknown>, token = TOKEN): Promise<string> {
  const { text, isError } = await call(url, args, token);
  assert.equal(isError, false, text);
  return text;
}

function summaryCursor(text: string): string {
  const cursor = /Matching lines: call code_search with \{"cursor":"([A-Za-z0-9_-]+)"\}/.exec(text)?.[1];
  assert.ok(cursor, text);
  return cursor;
}

function nextCursor(text: string): string | undefined {
  return /Next page: call code_search with \{"cursor":"([A-Za-z0-9_-]+)"\}/.exec(text)?.[1];
}

function indicesOf(text: string): number[] {
  return [...text.matchAll(/^\[(\d+)\] /gm)].map((m) => Number(m[1]));
}

const everyIndex = Array.from({ length: TOTAL }, (_, i) => i + 1);

/** The access log's lines for POST /mcp: which replica(s) nginx sent each one to, in order. */
function upstreamsOfCalls(): Array<{ upstream: string; status: string }> {
  const log = readFileSync(nginx.accessLog, "utf8");
  return [...log.matchAll(/"POST \/mcp HTTP\/1\.1" (\d+) .* upstream=(.+?) upstream_status=/g)].map((m) => ({
    status: m[1] as string,
    upstream: m[2] as string,
  }));
}

/**
 * The access log once it holds `count` calls: nginx writes a request's line after its response
 * went out, so the client can be a moment ahead of it. Watched before each read, so no write is
 * missed.
 */
async function loggedCalls(count: number): Promise<Array<{ upstream: string; status: string }>> {
  for (;;) {
    const watcher = watch(nginx.accessLog);
    const changed = once(watcher, "change");
    const served = upstreamsOfCalls();
    if (served.length >= count) {
      watcher.close();
      return served;
    }
    await changed;
    watcher.close();
  }
}

describe("the image's memory settings", { skip }, () => {
  it("each replica runs with jemalloc preloaded and the image's NODE_OPTIONS (every walk here runs under them)", () => {
    for (const replica of replicas) {
      const maps = readFileSync(`/proc/${replica.pid}/maps`, "utf8");
      assert.match(maps, /libjemalloc\.so\.2/, "jemalloc mapped into the replica");
      const environ = readFileSync(`/proc/${replica.pid}/environ`, "utf8").split("\0");
      assert.ok(environ.includes(`NODE_OPTIONS=${IMAGE_NODE_OPTIONS}`));
    }
  });
});

describe("callers across replicas", { skip }, () => {
  it("G12: a cursor follows its caller's token to any replica; another client's token gets cursor_not_found", async () => {
    const [one, two] = replicas as [Replica, Replica];
    const summary = await codeSearch(one.url, { pattern: "needle_" }, ALICE);
    const cursor = summaryCursor(summary);
    const stolen = await call(two.url, { cursor, limit: 5 }, BOB);
    assert.equal(stolen.isError, true);
    assert.equal(JSON.parse(stolen.text).error.code, "cursor_not_found");
    const shared = await call(two.url, { cursor, limit: 5 }, TOKEN);
    assert.equal(JSON.parse(shared.text).error.code, "cursor_not_found");
    assert.deepEqual(indicesOf(await codeSearch(two.url, { cursor, limit: 5 }, ALICE)), [1, 2, 3, 4, 5]);
  });
});

// biome-ignore lint/suspicious/noExplicitAny: envelopes are read loosely; their shapes are asserted.
type Envelope = Record<string, any>;

/** One web_read call: its envelope (an error's too). */
async function webRead(url: string, args: Record<string, unknown>, token = TOKEN): Promise<Envelope> {
  return JSON.parse((await call(url, args, token, "web_read")).text) as Envelope;
}

const pageFetches = () => pageServer.requests.filter((request) => request.url === "/long").length;

/** Reads the long page's parts, each call sent where `route` says; asserts they add up to the page. */
async function readWhole(route: (part: number) => string, token = TOKEN): Promise<Envelope[]> {
  const fetched = pageFetches();
  const parts = [await webRead(route(0), { url: `${pageServer.url}/long` }, token)];
  while (parts.at(-1)?.cursor !== undefined) {
    assert.ok(parts.length < 20, "the cursors never end");
    const part = await webRead(route(parts.length), { cursor: parts.at(-1)?.cursor }, token);
    assert.equal(part.error, undefined, JSON.stringify(part.error));
    parts.push(part);
  }
  assert.ok(parts.length >= 3, `expected several parts, got ${parts.length}`);
  const text = parts
    .map((part) => part.content.map((piece: { text: string }) => piece.text).join(""))
    .join("");
  assert.equal(text, LONG_PAGE);
  // Every later part came from what was kept in Redis: the page was fetched once.
  assert.equal(pageFetches() - fetched, 1);
  return parts;
}

describe("web_read's long pages across replicas", { skip }, () => {
  it("G06, A02: a long page read on one replica is continued on the other, part after part, fetched once; another client's token gets cursor_not_found", async () => {
    const [one, two] = replicas as [Replica, Replica];
    const parts = await readWhole((part) => (part % 2 === 0 ? one.url : two.url), ALICE);
    const cursor = parts[0]?.cursor as string;
    assert.equal((await webRead(two.url, { cursor }, BOB)).error?.code, "cursor_not_found");
    assert.equal((await webRead(one.url, { cursor }, TOKEN)).error?.code, "cursor_not_found");
    // The owner can still go back to a part on either replica.
    assert.deepEqual(await webRead(two.url, { cursor }, ALICE), parts[1]);
  });

  it("G06, A02: through nginx, the read and its parts alternate between the replicas", async () => {
    const before = throughNginx;
    const parts = await readWhole(() => `${nginx.url}/mcp`);
    const served = (await loggedCalls(throughNginx)).slice(before);
    assert.equal(served.length, parts.length);
    for (let i = 1; i < served.length; i++)
      assert.notEqual(served[i]?.upstream, served[i - 1]?.upstream, `call ${i}`);
  });
});

describe("two replicas, one Redis, nginx in front", { skip }, () => {
  it("G01, A02: a search on one replica, every page on the other: nothing lost or repeated", async () => {
    const [one, two] = replicas as [Replica, Replica];
    const summary = await codeSearch(one.url, { pattern: "needle_" });
    assert.match(summary, new RegExp(`${TOTAL} matching lines`));
    const seen: number[] = [];
    let cursor: string | undefined = summaryCursor(summary);
    while (cursor !== undefined) {
      const page = await codeSearch(two.url, { cursor, limit: PAGE });
      seen.push(...indicesOf(page));
      cursor = nextCursor(page);
    }
    assert.deepEqual(seen, everyIndex);
  });

  it("G01, A02: through nginx, consecutive calls alternate between the replicas and the walk sees every match once", async () => {
    const before = throughNginx;
    const summary = await codeSearch(`${nginx.url}/mcp`, { pattern: "needle_" });
    const seen: number[] = [];
    let cursor: string | undefined = summaryCursor(summary);
    let calls = 1;
    while (cursor !== undefined) {
      const page = await codeSearch(`${nginx.url}/mcp`, { cursor, limit: PAGE });
      calls++;
      seen.push(...indicesOf(page));
      cursor = nextCursor(page);
    }
    assert.deepEqual(seen, everyIndex);
    const served = (await loggedCalls(throughNginx)).slice(before);
    assert.equal(served.length, calls);
    const addresses = replicas.map((r) => r.address);
    for (let i = 0; i < served.length; i++) {
      assert.ok(addresses.includes(served[i]?.upstream as string), served[i]?.upstream);
      // Round robin: the search on one replica, the next page on the other, and so on.
      if (i > 0) assert.notEqual(served[i]?.upstream, served[i - 1]?.upstream, `call ${i}`);
    }
  });

  it("G01, G06, A02: a replica killed mid-walk: both walks (code_search's pages, web_read's parts) finish on the other", async () => {
    const url = `${nginx.url}/mcp`;
    const before = throughNginx;
    const summary = await codeSearch(url, { pattern: "needle_" });
    const seen: number[] = [];
    let cursor: string | undefined = summaryCursor(summary);
    let calls = 1;
    for (let i = 0; i < 4 && cursor !== undefined; i++) {
      const page = await codeSearch(url, { cursor, limit: PAGE });
      calls++;
      seen.push(...indicesOf(page));
      cursor = nextCursor(page);
    }
    const fetched = pageFetches();
    const parts = [await webRead(url, { url: `${pageServer.url}/long` })];
    parts.push(await webRead(url, { cursor: parts[0]?.cursor }));
    calls += 2;
    assert.notEqual(parts.at(-1)?.cursor, undefined, "the page has a part left after the kill");
    const beforeKill = calls;
    const [victim, survivor] = replicas as [Replica, Replica];
    await victim.stop("SIGKILL");
    while (cursor !== undefined) {
      const page = await codeSearch(url, { cursor, limit: PAGE });
      calls++;
      seen.push(...indicesOf(page));
      cursor = nextCursor(page);
    }
    while (parts.at(-1)?.cursor !== undefined) {
      const part = await webRead(url, { cursor: parts.at(-1)?.cursor });
      calls++;
      assert.equal(part.error, undefined, JSON.stringify(part.error));
      parts.push(part);
    }
    assert.deepEqual(seen, everyIndex);
    const text = parts
      .map((part) => part.content.map((piece: { text: string }) => piece.text).join(""))
      .join("");
    assert.equal(text, LONG_PAGE);
    assert.equal(pageFetches() - fetched, 1, "the parts after the kill came from Redis, not a new fetch");
    const served = (await loggedCalls(throughNginx)).slice(before);
    assert.equal(served.length, calls);
    const afterKill = served.slice(beforeKill);
    assert.ok(afterKill.length > 5);
    for (const call of afterKill) {
      assert.equal(call.status, "200");
      // Each call ends on the survivor; one that nginx first tried on the dead replica says so.
      assert.ok(call.upstream.endsWith(survivor.address), call.upstream);
    }
    assert.ok(
      afterKill.some((call) => call.upstream === `${victim.address}, ${survivor.address}`),
      "nginx tried the killed replica once and moved on",
    );
  });
});

describe("a replica whose shared store is unusable refuses to start", () => {
  async function refusal(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
    const child = spawn(process.execPath, [CLI, "mcp", "--transport", "http"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const owned = own(child);
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.stdout?.resume();
    await owned.exited;
    return { code: child.exitCode, stderr };
  }

  it("Redis unreachable: exit 1 with store_unavailable naming EVIDENT_SNAPSHOT_STORE", async () => {
    // A port nothing listens on: bound, then closed.
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const password = randomBytes(8).toString("hex");
    const { code, stderr } = await refusal(
      replicaEnv(`redis://evident:${password}@127.0.0.1:${closed}`, CURSOR_KEY, TOKEN),
    );
    assert.equal(code, 1);
    const error = JSON.parse(stderr.trim().split("\n").at(-1) as string).error;
    assert.equal(error.code, "store_unavailable");
    assert.equal(error.key, "EVIDENT_SNAPSHOT_STORE");
    assert.equal(stderr.includes(password), false);
  });

  it("no EVIDENT_CURSOR_KEY: exit 1 with configuration_error naming it", async () => {
    // Refused before any connection: no Redis needs to run.
    const env = replicaEnv("redis://127.0.0.1:1", "", TOKEN);
    const { code, stderr } = await refusal(env);
    assert.equal(code, 1);
    const error = JSON.parse(stderr.trim().split("\n").at(-1) as string).error;
    assert.equal(error.code, "configuration_error");
    assert.equal(error.key, "EVIDENT_CURSOR_KEY");
  });
});

describe("after the walks", { skip }, () => {
  it("A03: the health check needs no token, through nginx too", async () => {
    const health = await raw(`${nginx.url}/healthz`, { headers: JSON_HEADERS });
    assert.equal(health.status, 200);
    assert.equal(JSON.parse(health.body).status, "ok");
  });

  it("Redis holds no token, nor the caller keys derived from them", async () => {
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const names = await client.keys("evident:*");
      assert.ok(names.length > 0);
      const everything: Buffer[] = [];
      const binary = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
      for (const name of names) {
        everything.push(Buffer.from(name));
        const type = await client.type(name);
        if (type === "hash")
          for (const [f, v] of Object.entries(await binary.hGetAll(name))) everything.push(Buffer.from(f), v);
        if (type === "zset") everything.push(...(await binary.zRange(name, 0, -1)));
        if (type === "string") everything.push((await binary.get(name)) ?? Buffer.alloc(0));
      }
      const all = Buffer.concat(everything);
      for (const token of [TOKEN, ALICE, BOB]) {
        assert.equal(all.includes(token), false);
        // The HTTP caller key is a digest of the token; it is not stored either.
        const caller = callerOf(token);
        assert.equal(all.includes(caller), false);
        assert.equal(all.includes(caller.slice(5)), false);
      }
    } finally {
      await client.close();
    }
  });
});
