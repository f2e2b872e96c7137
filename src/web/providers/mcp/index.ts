/**
 * The `mcp` adapter's public surface: the config schema the loader imports, the factory, and the
 * presets for the official vendor servers.
 */
export {
  BINDING_PLACEHOLDERS,
  type BindingPlaceholder,
  type CredentialReference,
  MCP_PRESET_IDS,
  type McpConnection,
  type McpPresetId,
  type McpProviderConfig,
  mcpProviderConfigSchema,
  OUTPUT_FORMATS,
  type OutputFormat,
  type ToolBinding,
} from "./binding.js";
export {
  KEYLESS_DEFAULT_SEARCH_PRESETS,
  MCP_PRESETS,
  MCP_PRESETS_ENV,
  type McpPreset,
  type PresetEntry,
  presetEntries,
  presetProviderId,
} from "./presets.js";
export { createMcpProvider, type McpProvider, type McpProviderDeps, resolveBinding } from "./provider.js";
