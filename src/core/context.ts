/**
 * Facts about the caller's situation that tools may take into account, shared by the tools
 * layer and the services below it.
 */

export interface ProgressUpdate {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/**
 * How full the host's context window is, as the host reports it (an embedding host can; MCP
 * and the CLI do not, and then the default budget applies).
 */
export interface ContextUsage {
  readonly usedTokens: number;
  readonly contextWindowTokens: number;
}
