/**
 * The HTTP transport's settings, as the adapters and tests have always imported them; they are
 * resolved in config/ (src/config/http.ts) with every other setting (`Settings.http`).
 */
export { BEARER_TOKEN, type HttpSettings, isLoopbackHost, resolveHttpSettings } from "../../config/http.js";
