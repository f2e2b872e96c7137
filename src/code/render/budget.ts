/**
 * The context budget of a first answer. A host that reports how full its context window is (the
 * Pi extension) gets a smaller answer when little room is left; everyone else gets the default.
 * Only an implicit `auto` request adapts: an explicit limit, `matches`, or a cursor page always
 * gets the default page budget, so what the caller asked for is never shrunk behind its back.
 */
import {
  BUDGET_CRITICAL_BELOW_REMAINING,
  BUDGET_CRITICAL_TOKENS,
  BUDGET_FULL_TOKENS,
  BUDGET_TIGHT_BELOW_REMAINING,
  BUDGET_TIGHT_TOKENS,
  CHARS_PER_TOKEN,
} from "../../core/limits.js";

/**
 * How full the host's context window is, as the host reports it. The same shape as the tool
 * layer's `ContextUsage`, declared here because code/ does not import from tools/.
 */
export interface ContextUsage {
  readonly usedTokens: number;
  readonly contextWindowTokens: number;
}

export type BudgetTier = "default" | "full" | "tight" | "critical";

export interface ContextBudget {
  /** `default`: no usable host report, so nothing was decided from it. */
  readonly tier: BudgetTier;
  readonly targetTokens: number;
  readonly targetChars: number;
  /** The host's report made the answer smaller than the default. */
  readonly adjusted: boolean;
}

export const DEFAULT_BUDGET: ContextBudget = {
  tier: "default",
  targetTokens: BUDGET_FULL_TOKENS,
  targetChars: BUDGET_FULL_TOKENS * CHARS_PER_TOKEN,
  adjusted: false,
};

export function resolveBudget(usage: ContextUsage | undefined): ContextBudget {
  if (usage === undefined || usage === null) return DEFAULT_BUDGET;
  const { usedTokens, contextWindowTokens } = usage;
  if (
    !Number.isFinite(usedTokens) ||
    !Number.isFinite(contextWindowTokens) ||
    contextWindowTokens <= 0 ||
    usedTokens < 0 ||
    usedTokens > contextWindowTokens
  ) {
    return DEFAULT_BUDGET;
  }
  const remaining = 1 - usedTokens / contextWindowTokens;
  const tier: BudgetTier =
    remaining < BUDGET_CRITICAL_BELOW_REMAINING
      ? "critical"
      : remaining <= BUDGET_TIGHT_BELOW_REMAINING
        ? "tight"
        : "full";
  const targetTokens =
    tier === "critical"
      ? BUDGET_CRITICAL_TOKENS
      : tier === "tight"
        ? BUDGET_TIGHT_TOKENS
        : BUDGET_FULL_TOKENS;
  return { tier, targetTokens, targetChars: targetTokens * CHARS_PER_TOKEN, adjusted: tier !== "full" };
}
