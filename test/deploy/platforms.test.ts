/**
 * Every platform template (docs/DEPLOY.md, "Platforms") parsed and checked offline: each names
 * the repository's Dockerfile (or, on Vercel, the package's web-standard handler), the health
 * check on /healthz, and the token from the platform's secrets; the port each platform gives
 * through PORT is the one the template routes to. Then the image's own start command (its
 * ENTRYPOINT and CMD, with the image's ENV) is run from dist/ under each platform's
 * convention: it listens on PORT on every interface, answers /healthz without a token and
 * refuses /mcp without one. No image is built here (no container engine): the Dockerfile's
 * commands are checked to exist, not run in a container.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { freePort, type OwnedProcess, own, waitForLine } from "../servers/services.js";
import { ROOT } from "./replica.js";

const TOKEN = "t".repeat(40);
const read = (path: string) => readFileSync(resolve(ROOT, path), "utf8");
const deployDoc = read("docs/DEPLOY.md");

/** The image's start command and environment, read from the Dockerfile's last stage. */
function imageRun(): { argv: string[]; env: Record<string, string>; workdirApp: string } {
  const text = read("Dockerfile").replace(/\\\n/g, " ");
  const stages = text.split(/^FROM /m);
  const last = stages[stages.length - 1] as string;
  const jsonOf = (instruction: string) =>
    JSON.parse(new RegExp(`^${instruction} (\\[.*\\])$`, "m").exec(last)?.[1] ?? "null") as string[];
  const env: Record<string, string> = {};
  for (const match of last.matchAll(/^ENV (.*)$/gm)) {
    for (const pair of (match[1] as string).trim().split(/\s+/)) {
      const [key, value] = pair.split("=") as [string, string];
      env[key] = value;
    }
  }
  const copiesDist = /^COPY --from=build \/app\/dist \.\/dist$/m.test(last);
  assert.ok(copiesDist, "the image copies dist/ to /app/dist");
  return { argv: [...jsonOf("ENTRYPOINT"), ...jsonOf("CMD")], env, workdirApp: "/app" };
}

interface Platform {
  readonly name: string;
  /** The port the platform routes to, as it says it in its template or command. */
  readonly port: number;
  /** The PORT value the platform gives the container. */
  readonly portVariable: number;
  readonly healthPath: string;
  /** Secrets the template takes from the platform's store, by variable name. */
  readonly secrets: readonly string[];
}

function fly(): Platform {
  const config = parseToml(read("deploy/fly.toml")) as {
    env: Record<string, string>;
    http_service: { internal_port: number; checks: { path: string }[] };
  };
  return {
    name: "Fly.io",
    port: config.http_service.internal_port,
    portVariable: Number(config.env.PORT),
    healthPath: config.http_service.checks[0]?.path ?? "",
    // fly secrets set, in the file's own instructions
    secrets: /fly secrets set .*EVIDENT_AUTH_TOKEN=/.test(read("deploy/fly.toml"))
      ? ["EVIDENT_AUTH_TOKEN"]
      : [],
  };
}

function render(): Platform {
  const blueprint = parseYaml(read("deploy/render.yaml")) as {
    services: {
      type: string;
      runtime: string;
      dockerfilePath: string;
      healthCheckPath: string;
      envVars: { key: string; generateValue?: boolean }[];
    }[];
  };
  const [service] = blueprint.services;
  assert.ok(service);
  assert.equal(service.type, "web");
  assert.equal(service.runtime, "docker");
  assert.ok(existsSync(resolve(ROOT, service.dockerfilePath)));
  // Render's default PORT for web services.
  return {
    name: "Render",
    port: 10000,
    portVariable: 10000,
    healthPath: service.healthCheckPath,
    secrets: service.envVars.filter((v) => v.generateValue === true).map((v) => v.key),
  };
}

function railway(): Platform {
  const config = JSON.parse(read("deploy/railway.json")) as {
    build: { builder: string; dockerfilePath: string };
    deploy: { healthcheckPath: string };
  };
  assert.equal(config.build.builder, "DOCKERFILE");
  assert.ok(existsSync(resolve(ROOT, config.build.dockerfilePath)));
  // Railway assigns PORT and routes to it; the token is a service variable set in its dashboard.
  return {
    name: "Railway",
    port: 0,
    portVariable: 0,
    healthPath: config.deploy.healthcheckPath,
    secrets: ["EVIDENT_AUTH_TOKEN"],
  };
}

function cloudRun(): Platform {
  const service = parseYaml(read("deploy/cloudrun.yaml")) as {
    apiVersion: string;
    kind: string;
    spec: {
      template: {
        spec: {
          containers: {
            ports: { containerPort: number }[];
            env: { name: string; valueFrom?: { secretKeyRef?: unknown } }[];
            startupProbe: { httpGet: { path: string } };
            livenessProbe: { httpGet: { path: string } };
          }[];
        };
      };
    };
  };
  assert.equal(service.apiVersion, "serving.knative.dev/v1");
  assert.equal(service.kind, "Service");
  const [container] = service.spec.template.spec.containers;
  assert.ok(container);
  assert.equal(container.livenessProbe.httpGet.path, container.startupProbe.httpGet.path);
  const port = container.ports[0]?.containerPort ?? 0;
  // Cloud Run sets PORT to the container port.
  return {
    name: "Cloud Run",
    port,
    portVariable: port,
    healthPath: container.startupProbe.httpGet.path,
    secrets: container.env.filter((v) => v.valueFrom?.secretKeyRef !== undefined).map((v) => v.name),
  };
}

/** A platform with no file of its own: its one documented command in DEPLOY.md. */
function documentedCommand(name: string, command: RegExp): { name: string; line: string } {
  const line = command.exec(deployDoc)?.[0];
  assert.ok(line, `DEPLOY.md documents the ${name} command`);
  return { name, line };
}

function koyeb(): Platform {
  const { line } = documentedCommand("Koyeb", /koyeb deploy [^\n]*(?:\\\n[^\n]*)*/);
  const port = Number(/--ports (\d+):http/.exec(line)?.[1]);
  assert.match(line, new RegExp(`--routes /:${port}\\b`));
  assert.match(line, /--archive-builder docker/);
  return {
    name: "Koyeb",
    port,
    portVariable: Number(/--env PORT=(\d+)/.exec(line)?.[1]),
    healthPath: new RegExp(`--checks ${port}:http:(\\S+)`).exec(line)?.[1] ?? "",
    secrets: /--env .EVIDENT_AUTH_TOKEN=\{\{secret\.[\w-]+\}\}./.test(line) ? ["EVIDENT_AUTH_TOKEN"] : [],
  };
}

function zeabur(): Platform {
  documentedCommand("Zeabur", /npx zeabur@latest deploy[^\n]*/);
  // Zeabur builds the root Dockerfile and gives PORT; health is the platform's TCP check.
  return {
    name: "Zeabur",
    port: 0,
    portVariable: 0,
    healthPath: "/healthz",
    secrets: ["EVIDENT_AUTH_TOKEN"],
  };
}

function docker(): Platform {
  const { line } = documentedCommand("Docker", /docker run [^\n]*(?:\\\n[^\n]*)*/);
  const port = Number(/-p (\d+):\d+/.exec(line)?.[1]);
  return {
    name: "Docker",
    port,
    portVariable: Number(/-p \d+:(\d+)/.exec(line)?.[1]),
    healthPath: /HEALTHCHECK[^\n]*\n[^\n]*\/healthz/.test(read("Dockerfile")) ? "/healthz" : "",
    secrets: /-e EVIDENT_AUTH_TOKEN=/.test(line) ? ["EVIDENT_AUTH_TOKEN"] : [],
  };
}

const platforms = [fly(), render(), railway(), cloudRun(), koyeb(), zeabur(), docker()];
const image = imageRun();
const running: OwnedProcess[] = [];
after(async () => {
  await Promise.all(running.map((server) => server.stop()));
});

/** Starts the image's command from this checkout, with the image's ENV and the platform's PORT. */
async function startAsImage(port: number): Promise<string> {
  const [node, script, ...args] = image.argv;
  assert.equal(node, "node");
  assert.ok(script?.startsWith(`${image.workdirApp}/`));
  const local = resolve(ROOT, (script as string).slice(image.workdirApp.length + 1));
  assert.ok(existsSync(local), `${script} exists in the built package (${local})`);
  const { LD_PRELOAD: _preload, NODE_OPTIONS: _options, ...env } = image.env;
  const child = spawn(process.execPath, [local, ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      ...env,
      PORT: String(port),
      EVIDENT_AUTH_TOKEN: TOKEN,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(own(child));
  const line = await waitForLine(child, (text) => /listening on http:\/\/\S+\/mcp/.test(text));
  child.stdout?.resume();
  child.stderr?.resume();
  return line;
}

describe("deploy templates: one per platform, all the same HTTP server", () => {
  for (const platform of platforms) {
    it(`A02/A03: ${platform.name} routes to the port it gives as PORT, checks /healthz, takes the token from a secret`, () => {
      assert.equal(platform.port, platform.portVariable);
      assert.equal(platform.healthPath, "/healthz");
      assert.deepEqual(platform.secrets, ["EVIDENT_AUTH_TOKEN"]);
      const steps = new RegExp(`^- \\*\\*${platform.name}\\*\\*[^]*?(?=^- |^$)`, "m").exec(deployDoc)?.[0];
      assert.ok(steps, `DEPLOY.md gives ${platform.name}'s steps`);
      assert.match(steps, /EVIDENT_AUTH_TOKEN/);
    });

    it(`A03/A05: the image's start command under ${platform.name}'s PORT listens there, /healthz is public, /mcp needs the token`, async () => {
      const port = await freePort();
      const line = await startAsImage(port);
      assert.match(line, new RegExp(`listening on http://0\\.0\\.0\\.0:${port}/mcp`));
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(health.status, 200);
      const denied = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      assert.equal(denied.status, 401);
    });
  }
});

describe("deploy templates: Vercel runs the web-standard handler as a function", () => {
  const config = JSON.parse(read("vercel.json")) as {
    buildCommand: string;
    functions: Record<string, unknown>;
    rewrites: { source: string; destination: string }[];
  };
  const list = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
  const post = (url: string, headers: Record<string, string>) =>
    new Request(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: list,
    });

  it("vercel.json builds dist/ and rewrites /mcp and /healthz to a function file that exists", () => {
    assert.equal(config.buildCommand, "npm run build");
    const sources = config.rewrites.map((r) => r.source).sort();
    assert.deepEqual(sources, ["/healthz", "/mcp"]);
    for (const { destination } of config.rewrites) {
      const file = `${destination.slice(1)}.js`;
      assert.ok(existsSync(resolve(ROOT, file)), `${file} exists`);
      assert.ok(file in config.functions, `${file} is configured as a function`);
    }
  });

  it("A03/A05: the function, called with a Request on a public host, answers /healthz, refuses /mcp without the token, serves it with one", async () => {
    process.env.EVIDENT_AUTH_TOKEN = TOKEN;
    const entry = resolve(ROOT, `${config.rewrites[0]?.destination.slice(1)}.js`);
    const fn = (
      (await import(pathToFileURL(entry).href)) as { default: { fetch(r: Request): Promise<Response> } }
    ).default;
    const host = "https://evident-team.vercel.app";
    const health = await fn.fetch(new Request(`${host}/healthz`));
    assert.equal(health.status, 200);
    assert.equal((await fn.fetch(post(`${host}/mcp`, {}))).status, 401);
    const ok = await fn.fetch(
      post(`${host}/mcp`, { authorization: `Bearer ${TOKEN}`, "mcp-protocol-version": "2025-11-25" }),
    );
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /"name":"code_search"/);
  });
});
