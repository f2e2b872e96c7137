#!/usr/bin/env node
// Cold start of `evident mcp` (built dist) to its first tools/list answer, against a bare SDK
// server with one tool, both over stdio, measured alternately in this one run.
// Usage: npm run build && node bench/startup/run.mjs [runs=15]
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const runs = Number(process.argv[2] ?? 15);
const root = fileURLToPath(new URL("../../", import.meta.url));
const commands = {
  evident: [process.execPath, [`${root}dist/adapters/cli/main.js`, "mcp"]],
  "bare SDK server": [process.execPath, [`${root}bench/startup/bare-server.mjs`]],
};

const messages = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
];

function once([command, args]) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"], cwd: root });
    let buffer = "";
    child.stdout.on("data", (chunk) => {
      buffer += chunk;
      for (const line of buffer.split("\n").slice(0, -1)) {
        const message = JSON.parse(line);
        if (message.id === 2) {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          child.kill();
          resolve({ ms, tools: message.result.tools.length });
        }
      }
      buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
    });
    child.on("error", reject);
    for (const message of messages) child.stdin.write(`${JSON.stringify(message)}\n`);
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

const samples = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
let toolCount = 0;
for (let i = 0; i < runs; i += 1) {
  for (const [name, command] of Object.entries(commands)) {
    const { ms, tools } = await once(command);
    samples[name].push(ms);
    if (name === "evident") toolCount = tools;
  }
}
const evident = median(samples.evident);
const bare = median(samples["bare SDK server"]);
console.log(`runs: ${runs} each, alternating; evident lists ${toolCount} tools`);
console.log(`evident mcp      median ${evident.toFixed(1)} ms`);
console.log(`bare SDK server  median ${bare.toFixed(1)} ms`);
console.log(`ratio ${(evident / bare).toFixed(2)}x (target <= 1.5x)`);
