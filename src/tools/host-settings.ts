/**
 * What a host adapter may change of the configuration, for a person rather than a model: the
 * interface locale, and saving a provider key through the config layer's one write path (which
 * providers are configured is doctor's `configView`). Adapters resolve their settings in config/; what
 * they show or change of the config file goes through here.
 */

import type { KeyedAdapter } from "../config/schema.js";
import type { Settings } from "../config/settings.js";
import { saveProviderKey as saveKey } from "../config/write.js";
import { configFileSchema } from "../web/config-schema.js";

export { readInterfaceLocale } from "../config/locale.js";
export type { InterfaceLocale } from "../config/schema.js";
export { KEYED_ADAPTERS, type KeyedAdapter } from "../config/schema.js";

/** Saves one provider's key through the config write path, checked against the loader's schema. */
export function saveProviderKey(
  settings: Settings,
  id: string,
  type: KeyedAdapter,
  apiKey: string,
): Promise<{ path: string }> {
  return saveKey(settings.configFile, id, type, apiKey, configFileSchema);
}
