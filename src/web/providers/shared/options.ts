/**
 * Options every vendor factory accepts. The config layer maps environment variables and the
 * config file onto these; factories never read the environment themselves.
 */

export interface VendorProviderOptions {
  /** Provider id as routes and fan-out name it; defaults to the adapter name (`tavily`, ...). */
  readonly id?: string;
  /** Overrides the vendor's documented base URL (proxies, self-hosting, tests). */
  readonly baseUrl?: string;
  /** Per-attempt deadline override, connection included; the router applies it. */
  readonly attemptDeadlineMs?: number;
}

/** The key as given, or undefined when it is absent or blank (a blank key is no key). */
export function presentKey(apiKey: string | undefined): string | undefined {
  return apiKey !== undefined && apiKey.trim().length > 0 ? apiKey.trim() : undefined;
}

/** Spreads `attemptDeadlineMs` into a provider only when it was configured. */
export function deadlineOverride(options: VendorProviderOptions): { attemptDeadlineMs?: number } {
  return options.attemptDeadlineMs === undefined ? {} : { attemptDeadlineMs: options.attemptDeadlineMs };
}
