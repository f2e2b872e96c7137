/**
 * The interface locale: the language of what a host shows a person (the Pi extension's session
 * status), never of what a model reads. It is EVIDENT_LOCALE, or the config's `locale`; neither
 * means English, and any other value is a configuration error naming the variable or the key.
 */
import { EvidentError } from "../core/errors.js";
import { type Env, envValue } from "./env.js";
import type { ConfigLocation } from "./load.js";
import { INTERFACE_LOCALES, type InterfaceLocale } from "./schema.js";
import { readConfigObject } from "./write.js";

export type { InterfaceLocale } from "./schema.js";

/** EVIDENT_LOCALE when set (the same values), else the config's `locale`, else English. */
export async function readInterfaceLocale(
  configFile: ConfigLocation,
  env: Env = {},
): Promise<InterfaceLocale> {
  const fromEnv = envValue(env, "EVIDENT_LOCALE");
  if (fromEnv !== undefined) return supported(fromEnv, "at EVIDENT_LOCALE", { key: "EVIDENT_LOCALE" });
  const { path, file } = await readConfigObject(configFile);
  if (file.locale === undefined) return "en";
  return supported(file.locale, `in ${path} at locale`, { key: "locale", file: path });
}

/** The value as a locale, or the configuration_error naming `where` it was set. */
function supported(value: unknown, where: string, details: Record<string, string>): InterfaceLocale {
  if (typeof value === "string" && (INTERFACE_LOCALES as readonly string[]).includes(value)) {
    return value as InterfaceLocale;
  }
  throw new EvidentError(
    "configuration_error",
    `Configuration error ${where}: ${JSON.stringify(value)} is not a supported locale; use ${INTERFACE_LOCALES.map((l) => `"${l}"`).join(" or ")}.`,
    { details },
  );
}
