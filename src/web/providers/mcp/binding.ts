/**
 * The operator-controlled binding of an upstream MCP server as a web provider: how to reach it
 * (a stdio child or a Streamable HTTP endpoint), which of its tools serve `web_search` and
 * `web_read`, and how our inputs map into that tool's arguments.
 *
 * The config loader imports `mcpProviderConfigSchema` for every provider entry of type `"mcp"`,
 * so this shape is a public contract: add optional keys, never rename. Strict objects everywhere
 * so that a typo in a config file is an error naming the key, not a silently ignored setting.
 */
import { z } from "zod";

/** A credential reference resolved from the environment at connect time, never stored in the file. */
export const credentialReferenceSchema = z.strictObject({
  env: z.string().min(1).describe("Name of the environment variable that holds the value."),
  /** Text put before the value, e.g. `"Bearer "` for an Authorization header. */
  prefix: z.string().optional(),
});

/** A literal string, or a reference to an environment variable holding it. */
export const secretValueSchema = z.union([z.string(), credentialReferenceSchema]);
export type SecretValue = z.infer<typeof secretValueSchema>;

/**
 * The placeholders a binding may use. An argument value that is exactly one of these strings is
 * replaced by our input; when that input is absent (no `timeRange`, no `focus`) the key or array
 * element is left out rather than sent empty.
 */
export const BINDING_PLACEHOLDERS = ["$query", "$maxResults", "$timeRange", "$url", "$focus"] as const;
export type BindingPlaceholder = (typeof BINDING_PLACEHOLDERS)[number];

export function isBindingPlaceholder(value: unknown): value is BindingPlaceholder {
  return typeof value === "string" && (BINDING_PLACEHOLDERS as readonly string[]).includes(value);
}

/**
 * Any JSON value. Strings that look like a placeholder (`$word`) must be a known one: a typo such
 * as `$querry` would otherwise be sent upstream as a literal and fail far from its cause.
 */
export type ArgumentValue =
  | string
  | number
  | boolean
  | null
  | ArgumentValue[]
  | { [key: string]: ArgumentValue };

const PLACEHOLDER_SHAPE = /^\$[A-Za-z_]+$/;

export const argumentValueSchema: z.ZodType<ArgumentValue> = z.lazy(() =>
  z.union([
    z.string().refine((value) => !PLACEHOLDER_SHAPE.test(value) || isBindingPlaceholder(value), {
      message: `unknown placeholder; use one of ${BINDING_PLACEHOLDERS.join(", ")}`,
    }),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(argumentValueSchema),
    z.record(z.string(), argumentValueSchema),
  ]),
);

/**
 * How an upstream tool's output becomes search rows. The native content is always kept; this only
 * says which documented layout to read rows from (`none`: keep native content, no rows).
 */
export const OUTPUT_FORMATS = ["exa", "tavily", "firecrawl", "jina", "json", "none"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const toolBindingSchema = z.strictObject({
  /** The upstream tool's name, exactly as its `tools/list` reports it. */
  tool: z.string().min(1),
  /** The upstream tool's arguments: constants and placeholders. */
  arguments: z.record(z.string(), argumentValueSchema).default({}),
  /** The documented layout of the tool's output (presets set it). */
  format: z.enum(OUTPUT_FORMATS).optional(),
});
export type ToolBinding = z.infer<typeof toolBindingSchema>;

export const stdioConnectionSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  /** Added to a minimal inherited environment (the SDK's default set: PATH, HOME, ...). */
  env: z.record(z.string(), secretValueSchema).optional(),
  cwd: z.string().min(1).optional(),
});
export type StdioConnection = z.infer<typeof stdioConnectionSchema>;

export const httpConnectionSchema = z.strictObject({
  url: z
    .string()
    .url()
    .refine((value) => /^https?:\/\//i.test(value), { message: "must be an http(s) URL" }),
  headers: z.record(z.string(), secretValueSchema).optional(),
});

export const connectionSchema = z.union([stdioConnectionSchema, httpConnectionSchema]);
export type McpConnection = z.infer<typeof connectionSchema>;

export function isStdioConnection(connection: McpConnection): connection is StdioConnection {
  return "command" in connection;
}

/** Preset ids (see `presets.ts` for what each one binds, and docs/CONFIG.md for their sources). */
export const MCP_PRESET_IDS = ["exa-hosted", "exa", "tavily", "firecrawl", "jina"] as const;
export type McpPresetId = (typeof MCP_PRESET_IDS)[number];

/**
 * One provider entry of type `"mcp"`. With a `preset`, every other key is optional and overrides
 * the preset's value as a whole (a `search` binding given here replaces the preset's, it is not
 * merged key by key). Without one, `connection` and at least one of `search` / `read` are needed.
 */
export const mcpProviderConfigSchema = z
  .strictObject({
    type: z.literal("mcp"),
    preset: z.enum(MCP_PRESET_IDS).optional(),
    connection: connectionSchema.optional(),
    search: toolBindingSchema.optional(),
    read: toolBindingSchema.optional(),
    /**
     * The operator states that this upstream is used without any credential of theirs (a keyless
     * hosted tier). Responses then name the provider as anonymous. Never inferred from a missing key.
     */
    anonymous: z.boolean().optional(),
    /** Per-attempt deadline for this provider, connection included. */
    attemptDeadlineMs: z.number().int().positive().max(600_000).optional(),
  })
  .superRefine((entry, context) => {
    if (entry.preset !== undefined) return;
    if (entry.connection === undefined) {
      context.addIssue({
        code: "custom",
        path: ["connection"],
        message: "required when no preset is given",
      });
    }
    if (entry.search === undefined && entry.read === undefined) {
      context.addIssue({
        code: "custom",
        path: ["search"],
        message: "a search or read binding is required when no preset is given",
      });
    }
  });
export type McpProviderConfig = z.infer<typeof mcpProviderConfigSchema>;
