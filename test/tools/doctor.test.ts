/**
 * `evident doctor` and `evident config` against loopback fakes of each failure class: a key
 * refused (401), a rate limit (429), a vendor error (5xx), a malformed answer, a refused
 * connection, a name that does not resolve, a TLS failure and a timeout, beside a provider that
 * works; keys are shown masked, never whole. The CLI's commands run in this process
 * (test/adapters/run-evident.ts) where their answer is the subject; the built executable
 * runs where the exit status is.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { resolveSettings } from "../../src/config/settings.js";
import { silentLogger } from "../../src/core/logger.js";
import { createEvident } from "../../src/index.js";
import type { LookupFunction } from "../../src/net/guard.js";
import { type ProbeResult, runDoctor } from "../../src/tools/doctor.js";
import { evidentInProcess, withStatus } from "../adapters/run-evident.js";
import { freePort } from "../net/loopback.js";
import { type FakeVendor, sendJson, sendText, startFakeVendor } from "../web/providers/fake-vendor.js";

const ROOT = resolve(import.meta.dirname, "../..");
const TAVILY_KEY = "tvly-secret-key-0123456789";
const dir = mkdtempSync(join(tmpdir(), "evident-doctor-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** vendor.invalid never resolves; every other name is looked up for real (loopback only here). */
const lookup: LookupFunction = (hostname, options, callback) => {
  if (hostname === "vendor.invalid") {
    callback(Object.assign(new Error("getaddrinfo ENOTFOUND vendor.invalid"), { code: "ENOTFOUND" }), "");
  } else if (options.all) callback(null, [{ address: "127.0.0.1", family: 4 }]);
  else callback(null, "127.0.0.1", 4);
};

describe("evident doctor", () => {
  let fake: FakeVendor;
  let refusedPort: number;
  before(async () => {
    fake = await startFakeVendor();
    fake.handle((request, response) => {
      const [, vendor] = request.path.split("/");
      if (vendor === "tavily") sendJson(response, 200, { key: { usage: 3, limit: 1000 }, account: {} });
      else if (vendor === "brave") sendJson(response, 429, { error: "slow down" });
      else if (vendor === "serper") sendJson(response, 401, { message: "bad key" });
      else if (vendor === "exa") sendJson(response, 503, { error: "down" });
      else if (vendor === "searx") sendText(response, 200, "text/html", "<html><body>login</body></html>");
      else if (vendor === "responses")
        response.writeHead(200).write("{"); // never finishes
      else sendJson(response, 404, {});
    });
    refusedPort = await freePort();
  });
  after(() => fake.close());

  it("probes each provider in use in parallel and names each failure's class; keys stay masked", async () => {
    const configFile = join(dir, "doctor.json");
    writeFileSync(
      configFile,
      JSON.stringify({
        providers: {
          "tls-brave": {
            type: "brave",
            apiKey: "brave-key-1",
            baseUrl: fake.baseUrl.replace("http:", "https:"),
          },
          "gone-firecrawl": {
            type: "firecrawl",
            apiKey: "fc-key-2",
            baseUrl: `http://127.0.0.1:${refusedPort}`,
          },
          "nxdomain-serper": {
            type: "serper",
            apiKey: "serper-key-3",
            baseUrl: "http://vendor.invalid:8080",
          },
        },
      }),
    );
    chmodSync(configFile, 0o600);
    const env = {
      EVIDENT_CONFIG: configFile,
      PATH: process.env.PATH,
      TAVILY_API_KEY: TAVILY_KEY,
      EVIDENT_TAVILY_BASE_URL: `${fake.baseUrl}/tavily`,
      BRAVE_API_KEY: "brave-env-key-4",
      EVIDENT_BRAVE_BASE_URL: `${fake.baseUrl}/brave`,
      SERPER_API_KEY: "serper-env-key-5",
      EVIDENT_SERPER_BASE_URL: `${fake.baseUrl}/serper`,
      EXA_API_KEY: "exa-env-key-6",
      EVIDENT_EXA_BASE_URL: `${fake.baseUrl}/exa`,
      SEARXNG_URL: `${fake.baseUrl}/searx`,
      EVIDENT_RESPONSES_BASE_URL: `${fake.baseUrl}/responses`,
      EVIDENT_RESPONSES_MODEL: "m",
      EVIDENT_RESPONSES_DEADLINE_MS: "300",
    };
    const report = await runDoctor(resolveSettings(env), { lookup });
    const byId = Object.fromEntries(report.probes.map((probe) => [probe.id, probe])) as Record<
      string,
      ProbeResult
    >;
    const failed = (id: string) => {
      const probe = byId[id];
      assert.ok(probe !== undefined && probe.status === "failed", `${id}: ${JSON.stringify(probe)}`);
      return probe;
    };
    assert.equal(byId.tavily?.status, "ok");
    assert.equal(byId.tavily?.status === "ok" && byId.tavily.probe, "account usage");
    assert.equal(failed("brave").reason, "rate_limited");
    assert.equal(failed("serper").reason, "auth");
    assert.equal(failed("exa").reason, "server_error");
    assert.equal(failed("searxng").reason, "malformed");
    assert.equal(failed("responses").reason, "timeout");
    assert.equal(failed("responses").message, "responses: timed out after 300 ms");
    assert.equal(failed("tls-brave").reason, "tls");
    assert.equal(failed("gone-firecrawl").reason, "connection_refused");
    assert.equal(failed("nxdomain-serper").reason, "dns");
    assert.equal(failed("nxdomain-serper").message, "nxdomain-serper: DNS lookup failed");
    // A keyless default on no route is not in use: not probed. direct, on the read route, only
    // reads pages agents name: skipped, which does not fail the report by itself.
    assert.equal(byId.duckduckgo, undefined);
    assert.equal(byId.direct?.status, "skipped");
    assert.equal(report.ok, false);
    // The tavily probe asked for its usage, not a search, with the key in the header only.
    assert.ok(
      fake.requests.some(
        (r) => r.path === "/tavily/usage" && r.headers.authorization === `Bearer ${TAVILY_KEY}`,
      ),
    );

    assert.equal(report.config.configFile.mode, "0600");
    const tavily = report.config.providers?.find((provider) => provider.id === "tavily");
    assert.deepEqual([tavily?.source, tavily?.key], ["environment", "****6789"]);
    assert.equal(report.config.providers?.find((p) => p.id === "gone-firecrawl")?.source, "config-file");
    assert.ok(
      report.ripgrep.ok && /ripgrep \d+\.\d+/.test(report.ripgrep.version ?? ""),
      JSON.stringify(report.ripgrep),
    );
    const text = JSON.stringify(report);
    for (const secret of [TAVILY_KEY, "brave-env-key-4", "serper-key-3", "fc-key-2"])
      assert.ok(!text.includes(secret), secret);
  });

  it("everything configured works: ok; a read-only provider on the read route is skipped, not failed", async () => {
    const report = await runDoctor(
      resolveSettings({
        XDG_CONFIG_HOME: join(dir, "none"),
        PATH: process.env.PATH,
        TAVILY_API_KEY: TAVILY_KEY,
        EVIDENT_TAVILY_BASE_URL: `${fake.baseUrl}/tavily`,
      }),
      { lookup },
    );
    assert.deepEqual(
      report.probes.map((probe) => [probe.id, probe.status]),
      [
        ["direct", "skipped"],
        ["tavily", "ok"],
      ],
    );
    assert.equal(report.config.configFile.exists, false);
    assert.equal(report.ok, true);
  });

  it("an invalid config file is reported with the key at fault, and doctor fails", async () => {
    const broken = join(dir, "broken.json");
    writeFileSync(broken, JSON.stringify({ search: { rout: ["duckduckgo"] } }));
    const report = await runDoctor(resolveSettings({ EVIDENT_CONFIG: broken, PATH: process.env.PATH }));
    assert.equal(report.ok, false);
    assert.equal(report.config.ok, false);
    assert.match(report.config.error?.message ?? "", /search\.rout/);
    assert.deepEqual(report.probes, []);
  });
});

describe("the CLI's operator commands", async () => {
  /** `evident ARGS` in this process. */
  const cli = (args: string[], env: Record<string, string>) =>
    withStatus(
      evidentInProcess(args, { env: { PATH: process.env.PATH ?? "", HOME: dir, ...env }, cwd: dir }),
    );
  /** `evident ARGS` as a process of the built executable. */
  const cliProcess = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, [join(ROOT, "dist/adapters/cli/main.js"), ...args], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: dir, ...env },
      timeout: 60_000,
    });

  it("config path and config show: the file, and the effective configuration with masked keys", async () => {
    const home = join(dir, "xdg");
    mkdirSync(join(home, "evident"), { recursive: true });
    writeFileSync(
      join(home, "evident", "config.json"),
      JSON.stringify({ providers: { tav: { type: "tavily", apiKey: "tvly-file-secret-abcd" } } }),
      { mode: 0o600 },
    );
    const path = await cli(["config", "path"], { XDG_CONFIG_HOME: home });
    assert.equal(path.status, 0, path.stderr);
    assert.equal(path.stdout, `${join(home, "evident", "config.json")}\n`);
    const show = await cli(["config", "show"], { XDG_CONFIG_HOME: home, BRAVE_API_KEY: "brave-secret-wxyz" });
    assert.equal(show.status, 0, show.stderr);
    assert.ok(!show.stdout.includes("tvly-file-secret") && !show.stdout.includes("brave-secret"));
    const view = JSON.parse(show.stdout);
    const providers = Object.fromEntries(view.providers.map((p: { id: string }) => [p.id, p]));
    assert.deepEqual([providers.tav.key, providers.tav.source], ["****abcd", "config-file"]);
    assert.deepEqual([providers.brave.key, providers.brave.source], ["****wxyz", "environment"]);
    assert.deepEqual(view.routes.search, { ids: ["tav"], source: "default" });
    assert.equal((await cli(["config", "nonsense"], {})).status, 2);
  });

  it("bad arguments of doctor and config are the shared error payload, --json or not", async () => {
    // The executable's exit status and streams for one; the rest in this process.
    const bad = cliProcess(["doctor", "--bogus"], { XDG_CONFIG_HOME: join(dir, "none") });
    assert.equal(bad.status, 2, bad.stderr);
    assert.equal(bad.stdout, "");
    assert.equal(JSON.parse(bad.stderr).error.code, "invalid_arguments");
    for (const args of [
      ["doctor", "--json", "--bogus"],
      ["doctor", "--bogus"],
      ["config", "nonsense"],
      ["config", "show", "extra"],
      ["config"],
    ]) {
      const run = await cli(args, { XDG_CONFIG_HOME: join(dir, "none") });
      assert.equal(run.status, 2, args.join(" "));
      assert.equal(run.stdout, "");
      const { error } = JSON.parse(run.stderr);
      assert.equal(error.code, "invalid_arguments", args.join(" "));
      assert.match(error.message, /Usage: evident (doctor|config)/);
    }
    const doctor = JSON.parse((await cli(["doctor", "--json", "--bogus"], {})).stderr).error;
    assert.deepEqual(
      [doctor.field, doctor.message],
      ["--bogus", 'Unknown option "--bogus" for evident doctor. Usage: evident doctor [--json].'],
    );
  });

  it("a config file holding saved keys that others can read is named by doctor and config show", async () => {
    const home = join(dir, "xdg-open");
    mkdirSync(join(home, "evident"), { recursive: true });
    const file = join(home, "evident", "config.json");
    const content = {
      providers: { tav: { type: "tavily", apiKey: "tvly-open-secret-abcd" } },
      read: { route: ["direct"] },
    };
    writeFileSync(file, JSON.stringify(content));
    chmodSync(file, 0o644);
    const doctor = await cli(["doctor"], {
      XDG_CONFIG_HOME: home,
      EVIDENT_TAVILY_BASE_URL: "http://127.0.0.1:9",
    });
    assert.match(
      doctor.stdout,
      /NOTICE the config file .* holds saved credentials \(providers\.tav\.apiKey\) and is readable by other users \(mode 644\); run: chmod 600/,
    );
    const show = JSON.parse((await cli(["config", "show"], { XDG_CONFIG_HOME: home })).stdout);
    assert.match(show.notices[0], /readable by other users/);
    chmodSync(file, 0o600);
    assert.equal(
      JSON.parse((await cli(["config", "show"], { XDG_CONFIG_HOME: home })).stdout).notices,
      undefined,
    );
  });

  it("a hand-written intent name with a control character is refused, naming it", async () => {
    const home = join(dir, "xdg-intent");
    mkdirSync(join(home, "evident"), { recursive: true });
    const file = join(home, "evident", "config.json");
    writeFileSync(file, JSON.stringify({ search: { intents: { "n\u001bws": ["duckduckgo"] } } }), {
      mode: 0o600,
    });
    const show = JSON.parse((await cli(["config", "show"], { XDG_CONFIG_HOME: home })).stdout);
    assert.equal(show.ok, false);
    assert.match(show.error.message, /an intent name has no control characters/);
  });

  it("credentials written literally into an mcp binding's headers or env draw the notice too", async () => {
    const home = join(dir, "xdg-literal");
    mkdirSync(join(home, "evident"), { recursive: true, mode: 0o700 });
    const file = join(home, "evident", "config.json");
    const binding = (connection: object) => ({
      type: "mcp",
      connection,
      search: { tool: "s", arguments: { q: "$query" } },
    });
    writeFileSync(
      file,
      JSON.stringify({
        providers: {
          up: binding({ command: "/bin/true", env: { UP_TOKEN: "up-literal-secret", FROM: { env: "X" } } }),
          web: binding({ url: "https://mcp.example/mcp", headers: { Authorization: "Bearer web-literal" } }),
        },
        read: { route: ["direct"] },
      }),
    );
    chmodSync(file, 0o644);
    const show = JSON.parse((await cli(["config", "show"], { XDG_CONFIG_HOME: home })).stdout);
    assert.deepEqual(show.notices, [
      `the config file ${file} holds saved credentials (providers.up.connection.env.UP_TOKEN, providers.web.connection.headers.Authorization) and is readable by other users (mode 644); run: chmod 600 ${file}`,
    ]);
    assert.ok(
      !JSON.stringify(show).includes("literal-secret") && !JSON.stringify(show).includes("web-literal"),
    );
  });

  it("a config file its group can write draws a notice; one everyone can write is not used", async () => {
    const home = join(dir, "xdg-writable");
    const folder = join(home, "evident");
    mkdirSync(folder, { recursive: true });
    chmodSync(folder, 0o700);
    const file = join(folder, "config.json");
    const marker = join(dir, "writable-command-ran");
    const command = join(dir, "writable-command.sh");
    writeFileSync(command, `#!/bin/sh\necho ran >> '${marker}'\n`);
    chmodSync(command, 0o755);
    writeFileSync(
      file,
      JSON.stringify({
        providers: {
          up: { type: "mcp", connection: { command }, search: { tool: "s", arguments: { q: "$query" } } },
        },
        search: { route: ["up"] },
      }),
    );
    const env = { XDG_CONFIG_HOME: home };
    const show = async () => JSON.parse((await cli(["config", "show"], env)).stdout);
    chmodSync(file, 0o600);
    assert.equal((await show()).notices, undefined);
    chmodSync(file, 0o664);
    assert.deepEqual((await show()).notices, [
      `the config file ${file} is writable by its group (mode 0664): other users could make evident run a command of theirs; run: chmod g-w ${file}`,
    ]);
    chmodSync(file, 0o600);
    chmodSync(folder, 0o770);
    assert.match(
      (await show()).notices[0],
      /the config file's directory .* is writable by its group \(mode 0770\)/,
    );
    for (const [fileMode, folderMode, target] of [
      [0o666, 0o700, file],
      [0o600, 0o777, folder],
    ] as const) {
      chmodSync(file, fileMode);
      chmodSync(folder, folderMode);
      const refused = await show();
      assert.equal(refused.ok, false);
      assert.match(
        refused.error.message,
        /is writable by everyone \(mode 0(666|777)\): any user could make evident run a command of theirs, so it is not used; run: chmod o-w /,
      );
      assert.ok(refused.error.message.endsWith(`chmod o-w ${target}`), refused.error.message);
      const search = await cli(["search", "q"], env);
      assert.equal(search.status, 1, search.stderr);
      // The operator's log line comes first; the error payload is the last line.
      const payload = JSON.parse(search.stderr.trim().split("\n").pop() ?? "");
      assert.equal(payload.error.code, "configuration_error");
      assert.equal(
        await readFile(marker, "utf8").catch(() => ""),
        "",
        "the command of a world-writable file ran",
      );
    }
    // A running server takes the chmod the message asks for at its next call (same content).
    chmodSync(folder, 0o700);
    chmodSync(file, 0o666);
    const evident = createEvident({
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", ...env },
      logger: silentLogger,
    });
    try {
      const refused = await evident.webSearch({ query: "q" }).catch((error: { code?: string }) => error.code);
      assert.equal(refused, "configuration_error");
      chmodSync(file, 0o600);
      const outcome = await evident
        .webSearch({ query: "q" })
        .catch((error: { code?: string; message?: string }) => `${error.code}: ${error.message}`);
      assert.doesNotMatch(String(outcome), /writable by everyone/);
    } finally {
      await evident.close();
    }
    assert.equal(await readFile(marker, "utf8").catch(() => ""), "ran\n", "the private file's command runs");
    // A link to a file in a directory everyone can write: the target can be replaced there.
    const shared = join(dir, "shared-writable");
    mkdirSync(shared, { recursive: true });
    chmodSync(shared, 0o777);
    const linked = join(dir, "xdg-linked");
    mkdirSync(join(linked, "evident"), { recursive: true, mode: 0o700 });
    writeFileSync(join(shared, "config.json"), JSON.stringify({ read: { route: ["direct"] } }), {
      mode: 0o600,
    });
    symlinkSync(join(shared, "config.json"), join(linked, "evident", "config.json"));
    const throughLink = JSON.parse((await cli(["config", "show"], { XDG_CONFIG_HOME: linked })).stdout);
    assert.equal(throughLink.ok, false);
    assert.ok(throughLink.error.message.endsWith(`chmod o-w ${shared}`), throughLink.error.message);
    // In a sticky directory (as /tmp) others cannot replace the file: used as usual.
    chmodSync(file, 0o600);
    chmodSync(folder, 0o1777);
    assert.equal((await show()).ok, true);
  });

  it("doctor exits 1 when a configured provider fails and prints its class; --json is the report", async () => {
    const env = {
      XDG_CONFIG_HOME: join(dir, "none"),
      TAVILY_API_KEY: "tvly-cli-key-9876",
      EVIDENT_TAVILY_BASE_URL: "http://127.0.0.1:9",
    };
    // The executable's exit status.
    const text = cliProcess(["doctor"], env);
    assert.equal(text.status, 1, text.stderr);
    assert.match(text.stdout, /tavily: FAILED \(connection_refused\): tavily: connection refused/);
    assert.match(text.stdout, /key \*\*\*\*9876/);
    const json = await cli(["doctor", "--json"], env);
    assert.equal(json.status, 1);
    const report = JSON.parse(json.stdout);
    assert.equal(report.probes.find((p: { id: string }) => p.id === "tavily").reason, "connection_refused");
    assert.ok(!json.stdout.includes("tvly-cli-key-9876"));
  });

  it("S08: a key set but empty or an obvious placeholder fails doctor, naming the variable, with no request sent", async () => {
    const vendor = await startFakeVendor();
    try {
      const env = {
        XDG_CONFIG_HOME: join(dir, "none"),
        TAVILY_API_KEY: "tvly-...",
        EVIDENT_TAVILY_BASE_URL: vendor.baseUrl,
        BRAVE_SEARCH_API_KEY: "",
        EVIDENT_BRAVE_BASE_URL: vendor.baseUrl,
        // An upstream MCP preset's key: a variable the client never expanded.
        EVIDENT_MCP_PRESETS: "exa",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the text a client left unexpanded
        EXA_API_KEY: "${EXA_API_KEY}",
      };
      const text = await cli(["doctor"], env);
      assert.equal(text.status, 1, text.stderr);
      assert.match(
        text.stdout,
        /tavily: FAILED \(configuration\): tavily is not usable: the environment variable TAVILY_API_KEY holds a placeholder, not a key/,
      );
      assert.match(
        text.stdout,
        /brave: FAILED \(configuration\): brave is not usable: the environment variable BRAVE_SEARCH_API_KEY is set but empty/,
      );
      const report = await runDoctor(resolveSettings(env));
      const exa = report.probes.find((probe) => probe.id === "mcp-exa");
      assert.ok(exa?.status === "failed", JSON.stringify(exa));
      assert.equal(exa.reason, "configuration");
      assert.match(
        exa.message,
        /EXA_API_KEY holds a placeholder, not a key \(it is a variable reference that was never expanded\)/,
      );
      assert.equal(vendor.requests.length, 0, "no placeholder was sent to the vendor");
    } finally {
      await vendor.close();
    }
  });
});
