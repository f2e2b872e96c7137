/**
 * S22: the public-URL guard. Every hostile form must be refused before any byte reaches the
 * loopback canary; the canary counts connections and the suite fails if it saw one.
 *
 * Safety of the test itself: forms whose target is not loopback are first asserted to be refused
 * by the static check (which `request` runs before connecting), so a broken guard fails the test
 * before any packet could leave the machine. Names resolve through a test lookup that only ever
 * answers loopback addresses, or through the guard's lookup alone without connecting.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EvidentError } from "../../src/core/errors.js";
import { createHttpClient } from "../../src/net/client.js";
import { addressRefusal, checkAgentUrl, guardedLookup, type LookupFunction } from "../../src/net/guard.js";
import { isPublicUrl } from "../../src/net/public-url.js";
import {
  hostileLookup,
  hostileUrls,
  loopbackForms,
  privateForms,
  schemeForms,
  tableLookup,
} from "./hostile-urls.js";
import { type Loopback, startLoopback } from "./loopback.js";

const isRefusal = (error: unknown) => error instanceof EvidentError && error.code === "url_not_allowed";
const signal = () => new AbortController().signal;

describe("S22: public-URL guard", () => {
  let canary: Loopback;
  let port: number;
  const client = createHttpClient({ lookup: hostileLookup });

  before(async () => {
    canary = await startLoopback((_req, res) => res.end("canary reached"));
    port = canary.port;
  });
  after(async () => {
    await client.close();
    assert.equal(canary.connections, 0, "the canary saw a connection");
    await canary.close();
  });

  it("S22: at least 40 hostile forms, each refused by request() before any connection", async () => {
    // Counted from what the guard did, not from the list: a form it lets through fails here.
    let refused = 0;
    const forms = hostileUrls(port);
    for (const url of forms) {
      const outcome = await client.request({ method: "GET", url, trust: "agent", signal: signal() }).then(
        () => "answered",
        (error: unknown) => (isRefusal(error) ? "refused" : String(error)),
      );
      assert.equal(outcome, "refused", url);
      refused += 1;
    }
    assert.ok(refused >= 40, `${refused} forms refused`);
    assert.equal(canary.connections, 0);
  });

  it("S22: private, link-local, metadata, CGNAT and reserved literals fail the static check", () => {
    for (const url of privateForms.filter((form) => !form.includes(".test/"))) {
      assert.throws(() => checkAgentUrl(url, { allowPrivateNetwork: false }), isRefusal, url);
    }
  });

  it("S22: the same literals are refused by request() with no connection", async () => {
    for (const url of privateForms) {
      await assert.rejects(
        client.request({ method: "GET", url, trust: "agent", signal: signal() }),
        isRefusal,
        url,
      );
    }
    assert.equal(canary.connections, 0);
  });

  it("S22: loopback in every notation, and names resolving to loopback, never reach the canary", async () => {
    for (const url of loopbackForms(port)) {
      await assert.rejects(
        client.request({ method: "GET", url, trust: "agent", signal: signal() }),
        isRefusal,
        url,
      );
      assert.equal(canary.connections, 0, url);
    }
  });

  it("S22: non-http schemes and non-URLs are refused", async () => {
    for (const url of schemeForms(port)) {
      await assert.rejects(
        client.request({ method: "GET", url, trust: "agent", signal: signal() }),
        isRefusal,
        url,
      );
    }
    assert.equal(canary.connections, 0);
  });

  it("S22: the connect-time lookup refuses names that resolve to private addresses", async () => {
    const hostile = tableLookup({
      "metadata.test": [{ address: "169.254.169.254", family: 4 }],
      "intranet.test": [{ address: "10.1.2.3", family: 4 }],
      "cgnat.test": [{ address: "100.64.1.1", family: 4 }],
      "ula.test": [{ address: "fd12:3456::1", family: 6 }],
      "nat64.test": [{ address: "64:ff9b::a00:1", family: 6 }],
      "public.test": [{ address: "93.184.216.34", family: 4 }],
    });
    const guarded = guardedLookup(hostile);
    const resolve = (name: string) =>
      new Promise<string>((done, fail) =>
        guarded(name, { all: false }, (error, address) => (error ? fail(error) : done(address as string))),
      );
    for (const name of ["metadata.test", "intranet.test", "cgnat.test", "ula.test", "nat64.test"]) {
      await assert.rejects(resolve(name), (error: Error) => error.name === "GuardRefusal", name);
    }
    assert.equal(await resolve("public.test"), "93.184.216.34");
  });

  it("S22: public unicast addresses pass the address check", () => {
    for (const address of ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:93.184.216.34"]) {
      assert.equal(addressRefusal(address), undefined, address);
    }
  });

  it("S19: the sources index keeps public-looking URLs only", () => {
    assert.equal(isPublicUrl("https://example.com/a"), true);
    for (const url of [
      "http://localhost/",
      "http://intranet/",
      "http://printer.local/",
      "http://10.0.0.1/",
      "ftp://example.com/",
    ]) {
      assert.equal(isPublicUrl(url), false, url);
    }
  });

  it("S22: control: with the explicit allowPrivateNetwork option the canary is reachable (so the count above means something)", async () => {
    const control = await startLoopback((_req, res) => res.end("ok"));
    const open = createHttpClient({ allowPrivateNetwork: true });
    try {
      const response = await open.request({
        method: "GET",
        url: `${control.url}/`,
        trust: "agent",
        signal: signal(),
      });
      assert.equal(response.text(), "ok");
      assert.equal(control.connections, 1);
    } finally {
      await open.close();
      await control.close();
    }
  });
});

describe("S22: redirects and rebinding, with a loopback server standing in for a public site", () => {
  let canary: Loopback;
  let site: Loopback;

  before(async () => {
    // The canary listens on 127.0.0.2: the client treats 127.0.0.1 (the site) as public, not it.
    canary = await startLoopback((_req, res) => res.end("canary reached"), "127.0.0.2");
    site = await startLoopback((req, res) => {
      const targets: Record<string, string> = {
        "/to-canary": `http://127.0.0.2:${canary.port}/`,
        "/to-canary-decimal": `http://2130706434:${canary.port}/`,
        "/to-metadata": "http://169.254.169.254/latest/meta-data/",
        "/to-file": "file:///etc/passwd",
        "/to-name": `http://rebind.test:${canary.port}/`,
      };
      const target = targets[req.url ?? ""];
      if (target !== undefined) {
        res.statusCode = 302;
        res.setHeader("location", target);
        res.end();
      } else if (req.url?.startsWith("/loop")) {
        // A chain of new URLs (/loop, /loop/1, /loop/2...): a URL asked again would be a loop.
        const n = Number(req.url.slice("/loop/".length) || "0");
        res.statusCode = 301;
        res.setHeader("location", `/loop/${n + 1}`);
        res.end();
      } else res.end("public page");
    });
  });
  after(async () => {
    assert.equal(canary.connections, 0, "the canary saw a connection");
    await site.close();
    await canary.close();
  });

  it("S22: every redirect hop is checked: private targets are refused before connecting", async () => {
    const client = createHttpClient({
      treatAsPublic: ["127.0.0.1"],
      lookup: tableLookup({ "rebind.test": [{ address: "127.0.0.2", family: 4 }] }),
    });
    try {
      const ok = await client.request({
        method: "GET",
        url: `${site.url}/page`,
        trust: "agent",
        signal: signal(),
      });
      assert.equal(ok.text(), "public page");
      for (const path of ["/to-canary", "/to-canary-decimal", "/to-metadata", "/to-file", "/to-name"]) {
        await assert.rejects(
          client.request({ method: "GET", url: `${site.url}${path}`, trust: "agent", signal: signal() }),
          isRefusal,
          path,
        );
      }
      assert.equal(canary.connections, 0);
    } finally {
      await client.close();
    }
  });

  it("S22: at most 5 redirects are followed", async () => {
    const client = createHttpClient({ treatAsPublic: ["127.0.0.1"] });
    try {
      await assert.rejects(
        client.request({ method: "GET", url: `${site.url}/loop`, trust: "agent", signal: signal() }),
        (error: Error) => error.name === "HttpClientError" && /redirects/.test(error.message),
      );
      const before = site.requests.filter((r) => r.url.startsWith("/loop")).length;
      assert.ok(before <= 6);
    } finally {
      await client.close();
    }
  });

  it("S22: DNS rebinding: the address is checked on each connection, not once per name", async () => {
    // First answer: the "public" site; later answers: the canary's loopback address.
    let answers = 0;
    const rebinding: LookupFunction = (_hostname, options, callback) => {
      const address = answers++ === 0 ? "127.0.0.1" : "127.0.0.2";
      if (options.all) callback(null, [{ address, family: 4 }]);
      else callback(null, address, 4);
    };
    const client = createHttpClient({ treatAsPublic: ["127.0.0.1"], lookup: rebinding });
    try {
      const first = await client.request({
        method: "GET",
        url: `http://rebinding.test:${site.port}/page`,
        headers: { connection: "close" },
        trust: "agent",
        signal: signal(),
      });
      assert.equal(first.text(), "public page");
      await assert.rejects(
        client.request({
          method: "GET",
          url: `http://rebinding.test:${canary.port}/`,
          trust: "agent",
          signal: signal(),
        }),
        isRefusal,
      );
      assert.equal(canary.connections, 0);
    } finally {
      await client.close();
    }
  });

  it("S22: operator URLs are trusted, but a redirect to another origin is guarded", async () => {
    const client = createHttpClient();
    try {
      const same = await client.request({
        method: "GET",
        url: `${site.url}/page`,
        trust: "operator",
        signal: signal(),
      });
      assert.equal(same.text(), "public page");
      await assert.rejects(
        client.request({
          method: "GET",
          url: `${site.url}/to-canary`,
          trust: "operator",
          followRedirects: true,
          signal: signal(),
        }),
        isRefusal,
      );
      assert.equal(canary.connections, 0);
    } finally {
      await client.close();
    }
  });
});
