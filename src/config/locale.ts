/**
 * The interface locale: the language of what a host shows a person (the Pi extension's session
 * status), never of what a model reads. It lives in the config file as `locale`; no file or no
 * key means English, and any other value is a configuration error naming the key.
 */
import { readFile } from "node:fs/promises";
import { EvidentError } from "../core/errors.js";
import { configPath, type Env } from "./load.js";
import { INTERFACE_LOCALES, type InterfaceLocale } from "./schema.js";

export type { InterfaceLocale } from "./schema.js";

export async function readInterfaceLocale(env: Env): Promise<InterfaceLocale> {
  const { path, explicit } = configPath(env);
  let raw: string;
  try {
    raw = await readFile(path, "utf8");
  } catch (thrown) {
    if ((thrown as { code?: string }).code === "ENOENT" && !explicit) return "en";
    throw new EvidentError(
      "configuration_error",
      `Configuration error: the config file ${path} cannot be read.`,
      {
        details: { key: explicit ? "EVIDENT_CONFIG" : path },
        cause: thrown,
      },
    );
  }
  let file: unknown;
  try {
    file = JSON.parse(raw);
  } catch (thrown) {
    throw new EvidentError(
      "configuration_error",
      `Configuration error in ${path}: the file is not valid JSON.`,
      {
        details: { key: "(file)", file: path },
        cause: thrown,
      },
    );
  }
  if (typeof file !== "object" || file === null || Array.isArray(file)) {
    throw new EvidentError(
      "configuration_error",
      `Configuration error in ${path}: the file is not a JSON object.`,
      {
        details: { key: "(file)", file: path },
      },
    );
  }
  const locale = (file as { locale?: unknown }).locale;
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
