/**
 * No container engine runs here, so the deployment files are checked against what the
 * two-replica test runs: compose.yaml's replicas get the variables `replicaEnv` sets, point at its
 * Redis service, and are the upstream servers of deploy/nginx.conf (the file replicas.test.ts
 * runs); the Dockerfile is multi-stage, unprivileged, health-checked on /healthz, and takes
 * ripgrep from the npm package. `.ci/run` builds the image only where an engine answers.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { HTTP_DEFAULT_PORT } from "../../src/core/limits.js";
import { readNginxSite } from "../servers/services.js";
import { IMAGE_JEMALLOC, IMAGE_NODE_OPTIONS, ROOT, replicaEnv } from "./replica.js";

interface Service {
  readonly image?: string;
  readonly build?: { readonly context: string; readonly dockerfile: string };
  readonly environment?: Record<string, string>;
  readonly volumes?: readonly string[];
  readonly ports?: readonly string[];
  readonly depends_on?: Record<string, { condition: string }>;
  readonly healthcheck?: { test: readonly string[] };
}

const DEPLOY = resolve(ROOT, "deploy");
const compose = parse(readFileSync(resolve(DEPLOY, "compose.yaml"), "utf8")) as {
  services: Record<string, Service>;
};
const services = compose.services;
const replicas = Object.entries(services).filter(([, s]) => s.build !== undefined);
const dockerfile = readFileSync(resolve(ROOT, "Dockerfile"), "utf8");
const site = readNginxSite(readFileSync(resolve(DEPLOY, "nginx.conf"), "utf8"));

describe("deploy/: compose, nginx and the Dockerfile match the two-replica test", () => {
  it("compose runs two replicas built from the Dockerfile, Redis and nginx, and nothing else", () => {
    assert.deepEqual(Object.keys(services).sort(), ["evident-1", "evident-2", "nginx", "redis"]);
    assert.deepEqual(replicas.map(([name]) => name).sort(), ["evident-1", "evident-2"]);
    for (const [name, replica] of replicas) {
      assert.equal(resolve(DEPLOY, replica.build?.context ?? ""), ROOT, name);
      assert.ok(existsSync(resolve(ROOT, replica.build?.dockerfile ?? "")), name);
      assert.equal(replica.depends_on?.redis?.condition, "service_healthy", name);
    }
  });

  it("each replica gets exactly the variables the test's replicas get, the store pointing at the redis service", () => {
    const tested = Object.keys(replicaEnv("redis://x", "k", "t")).sort();
    for (const [name, replica] of replicas) {
      const env = replica.environment ?? {};
      assert.deepEqual(Object.keys(env).sort(), tested, name);
      assert.equal(env.EVIDENT_SNAPSHOT_STORE, "redis://redis:6379", name);
      assert.equal(env.EVIDENT_HTTP_HOST, "0.0.0.0", name);
      // Secrets come from the operator, never from the file.
      assert.match(env.EVIDENT_AUTH_TOKEN ?? "", /^\$\{EVIDENT_AUTH_TOKEN:\?/, name);
      assert.match(env.EVIDENT_CURSOR_KEY ?? "", /^\$\{EVIDENT_CURSOR_KEY:\?/, name);
      assert.match(env.EVIDENT_AUTH_TOKENS ?? "", /^\$\{EVIDENT_AUTH_TOKENS:-\}$/, name);
      assert.ok(
        replica.volumes?.some((v) => /:\/workspace:ro$/.test(v)),
        name,
      );
    }
    assert.ok(services.redis?.healthcheck?.test.includes("ping"));
    assert.match(services.redis?.image ?? "", /^redis:/);
  });

  it("nginx mounts deploy/nginx.conf, whose upstreams are the replicas and whose listen port is published", () => {
    const nginx = services.nginx as Service;
    assert.ok(nginx.volumes?.includes("./nginx.conf:/etc/nginx/conf.d/default.conf:ro"));
    const upstreams = replicas.map(([name, s]) => `${name}:${s.environment?.EVIDENT_HTTP_PORT}`);
    assert.deepEqual([...site.upstreams].sort(), upstreams.sort());
    const published = (nginx.ports ?? []).map((p) => p.split(":").at(-1));
    assert.deepEqual(published, [site.listen]);
    for (const name of ["evident-1", "evident-2"])
      assert.equal(nginx.depends_on?.[name]?.condition, "service_healthy");
  });

  it("the Dockerfile builds in stages, runs unprivileged, checks /healthz and serves HTTP on the compose port", () => {
    const stages = dockerfile.match(/^FROM\s/gm) ?? [];
    assert.ok(stages.length >= 2, "multi-stage");
    const final = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    const user = /^USER\s+(\S+)/m.exec(final)?.[1];
    assert.ok(user !== undefined && user !== "root" && user !== "0", `USER ${user}`);
    assert.match(final, /^HEALTHCHECK[\s\S]*\/healthz/m);
    // The image leaves the port to EVIDENT_HTTP_PORT, then PORT, then the default compose uses.
    const port = replicas[0]?.[1].environment?.EVIDENT_HTTP_PORT;
    assert.equal(port, String(HTTP_DEFAULT_PORT));
    assert.match(final, new RegExp(`^EXPOSE ${port}$`, "m"));
    assert.match(final, /EVIDENT_HTTP_HOST=0\.0\.0\.0/);
    assert.match(final, /^ENTRYPOINT \["node", "\/app\/dist\/adapters\/cli\/main\.js"\]$/m);
    assert.match(final, /^CMD \["mcp", "--transport", "http"\]$/m);
    // ripgrep is the npm platform package (a production dependency), not a system package: the
    // one system package is the allocator, linked where LD_PRELOAD names it.
    assert.doesNotMatch(dockerfile, /apk add|curl|wget/);
    const packages = [...dockerfile.matchAll(/apt-get install ([^\n\\&]*)/g)].flatMap((m) =>
      (m[1] ?? "").split(/\s+/).filter((word) => word !== "" && !word.startsWith("-")),
    );
    assert.deepEqual(packages, ["libjemalloc2"]);
    assert.match(final, new RegExp(`^\\s*LD_PRELOAD=${IMAGE_JEMALLOC.replaceAll(".", "\\.")}`, "m"));
    assert.match(final, new RegExp(`^\\s*NODE_OPTIONS=${IMAGE_NODE_OPTIONS}$`, "m"));
    assert.match(
      final,
      new RegExp(`ln -s [^\\n]*libjemalloc\\.so\\.2[^\\n]* ${IMAGE_JEMALLOC.replaceAll(".", "\\.")}$`, "m"),
    );
    const pkg = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8"));
    assert.ok(pkg.dependencies["@vscode/ripgrep"]);
    const ignore = readFileSync(resolve(ROOT, ".dockerignore"), "utf8");
    for (const needed of ["!package-lock.json", "!src"])
      assert.ok(ignore.split("\n").includes(needed), needed);
  });
});
