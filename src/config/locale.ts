/**
 * The interface locale: the language of what a host shows a person (the Pi extension's session
 * status), never of what a model reads. It lives in the config file as `locale`; no file or no
 * key means English, and any other value is a configuration error naming the key.
 */
import { EvidentError } from "../core/errors.js";
import type { ConfigLocation } from "./load.js";
import { INTERFACE_LOCALES, type InterfaceLocale } from "./schema.js";
import { readConfigObject } from "./write.js";

export type { InterfaceLocale } from "./schema.js";

export async function readInterfaceLocale(configFile: ConfigLocation): Promise<InterfaceLocale> {
  const { path, file } = await readConfigObject(configFile);
  const locale = file.locale;
  if (locale === undefined) return "en";
  if (typeof locale === "string" && (INTERFACE_LOCALES as readonly string[]).includes(locale)) {
    return locale as InterfaceLocale;
  }
  throw new EvidentError(
    "configuration_error",
    `Configuration error in ${path} at locale: ${JSON.stringify(locale)} is not a supported locale; use ${INTERFACE_LOCALES.map((l) => `"${l}"`).join(" or ")}.`,
    { details: { key: "locale", file: path } },
  );
}
