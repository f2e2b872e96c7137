/**
 * One-off calls against a fresh loopback fake, for vendor-specific cases beside the contract.
 */
import { silentLogger } from "../../../src/core/logger.js";
import { createHttpClient } from "../../../src/net/client.js";
import type { ProviderContext } from "../../../src/web/provider.js";
import { type FakeVendor, startFakeVendor } from "./fake-vendor.js";

export async function withFake<T>(
  run: (fake: FakeVendor, context: ProviderContext) => Promise<T>,
): Promise<T> {
  const fake = await startFakeVendor();
  const http = createHttpClient();
  try {
    return await run(fake, { signal: new AbortController().signal, http, logger: silentLogger });
  } finally {
    await http.close();
    await fake.close();
  }
}

/** The rejection of a promise that must fail. */
export async function rejection(promise: Promise<unknown> | undefined): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}
