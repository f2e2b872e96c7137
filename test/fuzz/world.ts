/**
 * Everything a fuzzed server may reach, on loopback: vendors answering in their documented
 * formats (Tavily, Brave, Jina, DuckDuckGo), failing now and then as vendors do; a site of
 * pages, redirects and odd content; an HTTP proxy every outbound request goes through (so that
 * no URL an agent writes, public address literals included, can leave the machine) which
 * tunnels to the site (https) or answers as the site (http, absolute form) whatever host it is
 * asked for; and the corpus code_search searches, with
 * a FIFO and symbolic links that point out of it and at `.git`.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";
import { listenOnLoopback } from "../net/loopback.js";

export interface FuzzWorld {
  /** The corpus: the server's working directory and project root. */
  readonly corpus: string;
  /** A host name the site answers for, through the proxy (what `{site}` in a case stands for). */
  readonly site: string;
  /** A loopback port no request may ever reach (the guard refuses loopback): `{port}`. */
  readonly canaryPort: number;
  /** Environment of the fuzzed server (vendors, proxy, token, no real config or keys). */
  readonly env: Record<string, string>;
  readonly token: string;
  /** Requests the vendors and the site received. */
  readonly hits: { vendor: number; site: number; tunnels: number; forwarded: number; canary: number };
  close(): Promise<void>;
}

const DDG_HTML = readFileSync(
  fileURLToPath(new URL("../web/providers/fixtures/duckduckgo-results.html", import.meta.url)),
  "utf8",
);

const ARTICLE = `<!doctype html><html><head><title>An article</title></head><body>
<nav><a href="/home">Home</a></nav><article><h1>Heading</h1>
<p>${"The main text of the article, long enough to count as one. ".repeat(40)}</p>
<p>See <a href="/plain">plain</a> and <a href="https://example.org/x">elsewhere</a>.</p>
<table><tr><td>a</td><td>b</td></tr></table><pre>code ${"x".repeat(200)}</pre></article>
<footer>footer</footer></body></html>`;

/** 1 in 8 vendor answers is a failure, chosen by the request itself so a run repeats. */
function misbehaves(body: string, url: string): "status" | "garbage" | undefined {
  const byte = createHash("sha256").update(url).update(body).digest()[0] as number;
  if (byte % 16 === 0) return "status";
  if (byte % 16 === 1) return "garbage";
  return undefined;
}

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string | Buffer;
}

function reply(status: number, type: string, body: string | Buffer): Reply {
  return { status, headers: { "content-type": type }, body };
}

function redirect(location: string): Reply {
  return { status: 302, headers: { location }, body: "" };
}

function vendor(req: IncomingMessage, body: string): Reply {
  const url = new URL(req.url ?? "/", "http://vendor");
  const fault = misbehaves(body, req.url ?? "");
  if (fault === "status") return reply(500, "application/json", '{"detail":"upstream trouble"}');
  if (fault === "garbage") return reply(200, "application/json", '{"results": [ {"url": ');
  let parsed: Record<string, unknown> = {};
  try {
    parsed = body === "" ? {} : (JSON.parse(body) as Record<string, unknown>);
  } catch {
    // GET requests carry no body
  }
  const words = String(parsed.query ?? parsed.q ?? url.searchParams.get("q") ?? "").slice(0, 80);
  const rows = [1, 2, 3].map((n) => ({
    title: `Result ${n} for ${words}`,
    url: `https://example.com/${n}`,
    content: `snippet ${n} ${words}`,
    description: `snippet ${n} ${words}`,
    score: 1 / n,
  }));
  if (url.pathname === "/search" && req.method === "POST") {
    return reply(200, "application/json", JSON.stringify({ answer: `about ${words}`, results: rows }));
  }
  if (url.pathname === "/res/v1/web/search") {
    return reply(200, "application/json", JSON.stringify({ web: { results: rows } }));
  }
  if (url.pathname === "/html/") return reply(200, "text/html; charset=utf-8", DDG_HTML);
  if (url.pathname === "/" && req.method === "POST") {
    if (typeof parsed.url === "string" && typeof parsed.q === "string") {
      return reply(200, "application/json", JSON.stringify({ results: [{ title: "T", snippet: words }] }));
    }
    if (typeof parsed.url === "string") {
      const data = { title: "Read", content: `# Read\n\n${parsed.url.slice(0, 200)}`, links: {} };
      return reply(200, "application/json", JSON.stringify({ data }));
    }
    return reply(200, "application/json", JSON.stringify({ data: rows }));
  }
  return reply(404, "application/json", '{"detail":"no such endpoint"}');
}

function site(req: IncomingMessage): Reply {
  const path = new URL(req.url ?? "/", "http://site").pathname;
  switch (path) {
    case "/":
    case "/article":
      return reply(200, "text/html; charset=utf-8", ARTICLE);
    case "/plain":
      return reply(200, "text/plain", "  plain *text* stays as is\n");
    case "/json":
      return reply(200, "application/json", JSON.stringify({ a: [1, 2, { b: "c" }] }));
    case "/image":
      return reply(200, "image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]));
    case "/binary":
      return reply(200, "application/octet-stream", Buffer.alloc(4_096, 0xff));
    case "/huge":
      return reply(200, "text/plain", "word ".repeat(600_000));
    case "/empty":
      return { status: 204, headers: {}, body: "" };
    case "/redirect-private":
      return redirect("http://169.254.169.254/latest/meta-data/");
    case "/redirect-loop":
      return redirect("/redirect-loop");
    default:
      return reply(404, "text/plain", "not found");
  }
}

function serve(handler: (req: IncomingMessage, body: string) => Reply, count: () => void) {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    count();
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const { status, headers, body } = handler(req, Buffer.concat(chunks).toString("utf8"));
      res.writeHead(
        status,
        status === 204 ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) },
      );
      res.end(body);
    });
    res.on("error", () => {});
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  return { server, sockets };
}

function corpusAt(dir: string): void {
  mkdirSync(join(dir, "src", "nested"), { recursive: true });
  writeFileSync(
    join(dir, "src", "index.ts"),
    `export function main(): void {\n  // TODO: something\n  const secret = "sk_live_${"a".repeat(24)}";\n  console.log(secret);\n}\n`,
  );
  writeFileSync(join(dir, "src", "nested", "util.py"), "def helper(x):\n    return x * 2  # TODO\n");
  writeFileSync(join(dir, "src", "nested", "data.json"), JSON.stringify({ export: "function", n: 1 }));
  writeFileSync(join(dir, "README.md"), "# corpus\n\nexport function in prose; éé Greek αβγ\n");
  writeFileSync(join(dir, ".env"), "AWS_SECRET_ACCESS_KEY=abcdEFGHijklMNOPqrstUVWXyz0123456789abcd\n");
  writeFileSync(join(dir, "long-line.txt"), `${"x".repeat(100_000)} export\n`);
  writeFileSync(join(dir, "binary.bin"), Buffer.from([0, 1, 2, 0, 0x65, 0x78, 0x70, 0x6f, 0x72, 0x74]));
  execFileSync("git", ["init", "-q", dir]);
  const git = (...args: string[]) =>
    execFileSync("git", [
      "-C",
      dir,
      "-c",
      "user.name=fuzz",
      "-c",
      "user.email=fuzz@example.invalid",
      ...args,
    ]);
  git("add", "-A");
  git("commit", "-q", "-m", "one");
  writeFileSync(join(dir, "src", "index.ts"), "export function main(): void {}\nexport const added = 1;\n");
  git("commit", "-q", "-am", "two");
  writeFileSync(join(dir, "src", "nested", "util.py"), "def helper(x):\n    return x  # changed\n");
  // Created after the commits: git tracks neither.
  execFileSync("mkfifo", [join(dir, "fifo")]);
  symlinkSync("/etc", join(dir, "link-out"));
  symlinkSync(".git", join(dir, "link-git"));
}

export async function startFuzzWorld(): Promise<FuzzWorld> {
  const hits = { vendor: 0, site: 0, tunnels: 0, forwarded: 0, canary: 0 };
  const home = mkdtempSync(join(tmpdir(), "evident-fuzz-"));
  const corpus = join(home, "corpus");
  mkdirSync(corpus);
  corpusAt(corpus);
  const vendors = serve(vendor, () => hits.vendor++);
  const pages = serve(site, () => hits.site++);
  const canary = serve(
    () => reply(200, "text/plain", "canary reached"),
    () => {},
  );
  canary.server.on("connection", () => hits.canary++);
  const vendorPort = await listenOnLoopback(vendors.server);
  const canaryPort = await listenOnLoopback(canary.server);
  const sitePort = await listenOnLoopback(pages.server);
  // The proxy tunnels every CONNECT to the site, whatever host:port it names, and answers every
  // request in absolute form (`GET http://host/path`, how http targets reach it) as the site.
  const proxy = serve(
    (req) => {
      if (!(req.url ?? "").startsWith("http://")) return reply(400, "text/plain", "not a proxy request");
      hits.forwarded++;
      return site(req);
    },
    () => {},
  );
  proxy.server.on("connect", (_req: IncomingMessage, client: Socket, head: Buffer) => {
    hits.tunnels++;
    const upstream = connect(sitePort, "127.0.0.1", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    proxy.sockets.add(upstream);
    upstream.once("close", () => proxy.sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  const proxyPort = await listenOnLoopback(proxy.server);
  const vendorUrl = `http://127.0.0.1:${vendorPort}`;
  const token = `${"f".repeat(HTTP_MIN_TOKEN_CHARS)}-fuzz`;
  const env: Record<string, string> = {
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_CACHE_HOME: join(home, "cache"),
    HOME: home,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    TAVILY_API_KEY: "tvly-fuzz",
    EVIDENT_TAVILY_BASE_URL: vendorUrl,
    BRAVE_API_KEY: "brave-fuzz",
    EVIDENT_BRAVE_BASE_URL: vendorUrl,
    JINA_API_KEY: "jina-fuzz",
    EVIDENT_JINA_BASE_URL: vendorUrl,
    EVIDENT_DUCKDUCKGO_BASE_URL: vendorUrl,
    HTTP_PROXY: `http://127.0.0.1:${proxyPort}`,
    HTTPS_PROXY: `http://127.0.0.1:${proxyPort}`,
    // The vendors are reached directly; every other host goes through the proxy.
    NO_PROXY: "127.0.0.1",
    EVIDENT_AUTH_TOKEN: token,
    EVIDENT_HTTP_PORT: "0",
    EVIDENT_LOG_LEVEL: "error",
    // Well under the harness's hang bound: a search of "/" ends with its deadline, not after it.
    EVIDENT_CODE_SEARCH_DEADLINE_MS: "5000",
    EVIDENT_CALL_DEADLINE_MS: "8000",
  };
  return {
    corpus,
    site: "site.fuzz.test",
    canaryPort,
    env,
    token,
    hits,
    async close() {
      for (const { server, sockets } of [vendors, pages, proxy, canary]) {
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}
