/**
 * What a host adapter may show or change of the configuration, for a person rather than a
 * model: which providers are configured, the interface locale, and saving a provider key
 * through the config layer's one write path. Adapters resolve their settings in config/; what
 * they show or change of the config file goes through here.
 */
import type { Settings } from "../config/settings.js";
import { type KeyedAdapter, saveProviderKey as saveKey } from "../config/write.js";
import { configFileSchema } from "../web/config-schema.js";
import { loadWebConfig } from "../web/service.js";

export { readInterfaceLocale } from "../config/locale.js";
export type { InterfaceLocale } from "../config/schema.js";
export { KEYED_ADAPTERS, type KeyedAdapter } from "../config/write.js";

/** Saves one provider's key through the config write path, checked against the loader's schema. */
export function saveProviderKey(
  settings: Settings,
  id: string,
  type: KeyedAdapter,
  apiKey: string,
): Promise<{ path: string }> {
  return saveKey(settings.configFile, id, type, apiKey, configFileSchema);
}

export interface ProviderLine {
  readonly id: string;
  readonly adapter: string;
  /** environment, config-file or default. */
  readonly source: string;
  /** Why it cannot be used, when it cannot. */
  readonly unavailable?: string;
  readonly keyed: boolean;
}

export type ProviderOverview =
  | {
      readonly ok: true;
      readonly providers: readonly ProviderLine[];
      readonly searchRoute: readonly string[];
      readonly readRoute: readonly string[];
      readonly configPath: string | undefined;
    }
  | { readonly ok: false; readonly message: string };

export async function providerOverview(settings: Settings): Promise<ProviderOverview> {
  const result = await loadWebConfig(settings);
  if (!result.ok) return { ok: false, message: result.error.message };
  const { config } = result;
  return {
    ok: true,
    providers: [...config.providers.values()].map((spec) => ({
      id: spec.id,
      adapter: spec.adapter,
      source: spec.source,
      keyed: spec.options.apiKey !== undefined,
      ...(spec.unavailable === undefined ? {} : { unavailable: spec.unavailable }),
    })),
    searchRoute: config.searchRoute,
    readRoute: config.readRoute,
    configPath: config.configPath,
  };
}
