/**
 * The operator's commands: `evident config path|show` and `evident doctor`. They print for a
 * person (or `--json` for machines) and call the same checks the SDK could; nothing here
 * decides what is configured or how a probe is made.
 */

import type { Settings } from "../../config/settings.js";
import { configView, type DoctorReport, runDoctor } from "../../tools/doctor.js";
import type { CliIo } from "./cli.js";
import { EXIT_FAILED, EXIT_OK, fail, usageError } from "./errors.js";

export async function runConfigCommand(
  args: readonly string[],
  io: CliIo,
  settings: Settings,
): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "path" && rest.length === 0) {
    io.stdout.write(`${settings.configFile.path}\n`);
    return EXIT_OK;
  }
  if (sub === "show" && rest.length === 0) {
    const view = await configView(settings);
    io.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
    return view.ok ? EXIT_OK : EXIT_FAILED;
  }
  if (sub === "--help" || sub === "-h") {
    io.stdout.write(CONFIG_HELP);
    return EXIT_OK;
  }
  const unknown = sub === "path" || sub === "show" ? rest[0] : sub;
  const what =
    unknown === undefined
      ? "evident config needs path or show."
      : `Unknown argument "${unknown}" for evident config.`;
  return fail(io, usageError(`${what} Usage: evident config path | show.`, unknown ?? "(arguments)"));
}

const CONFIG_HELP = [
  "Usage: evident config path | show",
  "",
  "path  the config file evident reads ($EVIDENT_CONFIG, else $XDG_CONFIG_HOME/evident/config.json)",
  "show  the effective configuration as JSON: providers (keys masked to their last 4 characters)",
  "      and where each came from (environment, config-file, default), routes, network settings",
  "",
].join("\n");

export async function runDoctorCommand(
  args: readonly string[],
  io: CliIo,
  settings: Settings,
): Promise<number> {
  const json = args.includes("--json");
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout.write(DOCTOR_HELP);
    return EXIT_OK;
  }
  const unknown = args.find((arg) => arg !== "--json");
  if (unknown !== undefined) {
    return fail(
      io,
      usageError(`Unknown option "${unknown}" for evident doctor. Usage: evident doctor [--json].`, unknown),
    );
  }
  const report = await runDoctor(settings);
  io.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : renderDoctor(report));
  return report.ok ? EXIT_OK : EXIT_FAILED;
}

const DOCTOR_HELP = [
  "Usage: evident doctor [--json]",
  "",
  "Shows what is configured and probes each provider in use with the smallest request its API",
  "documents (in parallel, each within its attempt deadline). Exit 0 when everything configured",
  "works, 1 otherwise. --json prints the report as JSON.",
  "",
].join("\n");

function renderDoctor(report: DoctorReport): string {
  const { config } = report;
  const lines: string[] = [];
  const file = config.configFile;
  lines.push(
    file.variable === undefined
      ? `config file  ${file.path} (${file.exists ? `mode ${file.mode}` : "not present: environment and defaults only"})`
      : `config       ${file.variable} (the configuration as JSON; ${file.exists ? `the file ${file.path} is not read` : "no file"})`,
  );
  for (const variable of config.variables ?? []) lines.push(`  NOTICE ${variable.message}`);
  if (!config.ok) lines.push(`  ERROR  ${config.error?.message ?? "the configuration cannot be used"}`);
  for (const notice of config.notices ?? []) lines.push(`  NOTICE ${notice}`);
  for (const provider of config.providers ?? []) {
    const extra = [
      provider.key === undefined ? undefined : `key ${provider.key}`,
      provider.baseUrl === undefined ? undefined : `at ${provider.baseUrl}`,
    ].filter((part) => part !== undefined);
    lines.push(
      `provider     ${provider.id} (${provider.adapter}, from ${provider.source}${extra.length > 0 ? `, ${extra.join(", ")}` : ""})`,
    );
  }
  if (config.routes !== undefined) {
    lines.push(`search route ${config.routes.search.ids.join(" -> ")} (${config.routes.search.source})`);
    for (const [intent, ids] of Object.entries(config.routes.intents))
      lines.push(`  intent ${intent}: ${ids.join(" -> ")}`);
    lines.push(`read route   ${config.routes.read.ids.join(" -> ")} (${config.routes.read.source})`);
  }
  if (config.network !== undefined) {
    const { network } = config;
    lines.push(
      `guard        private network ${network.allowPrivateNetwork ? "ALLOWED" : "refused"} (${network.allowPrivateNetworkSource})`,
    );
    const proxies = [
      network.proxy.https === undefined ? undefined : `https via ${network.proxy.https}`,
      network.proxy.http === undefined ? undefined : `http via ${network.proxy.http}`,
      network.proxy.noProxy === undefined ? undefined : `no proxy for ${network.proxy.noProxy}`,
    ].filter((part) => part !== undefined);
    lines.push(
      `proxy        ${proxies.length === 0 ? "none" : `${proxies.join("; ")}; agent URLs ${network.agentUrlsViaProxy ? "checked, then proxied" : "refused"}`}`,
    );
  }
  lines.push(
    `http token   ${config.http.tokens > 0 ? `${config.http.tokens} set` : config.http.anonymous ? "none (EVIDENT_ALLOW_ANONYMOUS=true)" : "not set (evident mcp --transport http will refuse to start)"}`,
  );
  const rg = report.ripgrep;
  lines.push(
    rg.ok ? `ripgrep      ${rg.version} at ${rg.path} (${rg.source})` : `ripgrep      FAILED: ${rg.error}`,
  );
  for (const probe of report.probes) {
    if (probe.status === "ok")
      lines.push(`probe        ${probe.id}: ok in ${probe.latencyMs} ms (${probe.probe})`);
    else if (probe.status === "skipped") lines.push(`probe        ${probe.id}: skipped: ${probe.message}`);
    else lines.push(`probe        ${probe.id}: FAILED (${probe.reason}): ${probe.message}`);
  }
  lines.push(report.ok ? "everything configured works" : "something configured does not work (see above)");
  return `${lines.join("\n")}\n`;
}
