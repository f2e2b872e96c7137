/**
 * Whether MCP results carry structured data as well as text (see McpServerOptions.structured).
 * Kept apart from server.ts, which loads the MCP SDK, so the CLI can read it before choosing a
 * transport without paying for that load.
 */
import { EvidentError } from "../../core/errors.js";

/**
 * `EVIDENT_MCP_STRUCTURED`: "true" or "false" (unset or empty: false). Anything else is refused,
 * so a typo never silently changes what every client receives.
 */
export function structuredFromEnv(env: Readonly<Record<string, string | undefined>>): boolean {
  const raw = env.EVIDENT_MCP_STRUCTURED;
  if (raw === undefined || raw === "" || raw === "false") return false;
  if (raw === "true") return true;
  throw new EvidentError(
    "configuration_error",
    `EVIDENT_MCP_STRUCTURED must be true or false, got "${raw}".`,
    { details: { key: "EVIDENT_MCP_STRUCTURED" } },
  );
}
