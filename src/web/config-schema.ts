/**
 * The complete config file schema: the config layer's schema with the `mcp` adapter's entry
 * schema plugged in. The loader enforces it; `docs/schema/config.schema.json` is
 * `configJsonSchema()` written out, and test/config/schema.test.ts fails when they differ (its
 * message gives the command that regenerates the file).
 */
import { z } from "zod";
import { createConfigFileSchema } from "../config/schema.js";
import { mcpProviderConfigSchema } from "./providers/mcp/binding.js";

export const configFileSchema = createConfigFileSchema(mcpProviderConfigSchema);

/** The JSON Schema published as docs/schema/config.schema.json. */
export function configJsonSchema(): Record<string, unknown> {
  const json = z.toJSONSchema(configFileSchema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://github.com/evident/evident/docs/schema/config.schema.json",
    title: "evident configuration",
    ...Object.fromEntries(Object.entries(json).filter(([key]) => key !== "$schema")),
  };
}
