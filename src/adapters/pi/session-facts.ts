/**
 * Session facts: what the evident tools were asked and returned in this Pi session, and the one
 * plain status line a person sees after the first new query.
 *
 * A new query is a call without a cursor: cursor and continuation pages read further into a
 * result already counted, so they never count again. Every new query counts as an attempt; one
 * that ended in a tool error also counts as failed, and never as a result (a search that failed
 * is not "0 web searches", nor a complete one). A call the person cancelled counts as neither.
 * The line states counts only: nothing about speed, savings, tokens or whether the task went
 * well, which nothing here could know.
 */
import { counted } from "../../core/plural.js";
import type { InterfaceLocale } from "../../tools/host-settings.js";

export interface Facts {
  /** code_search new queries, answered or failed. */
  readonly codeQueries: number;
  /** Of those, the ones whose result says it is complete. */
  readonly codeComplete: number;
  /** Of those, implicit `auto` queries answered with the file summary. */
  readonly codeByFile: number;
  /** Of those, the ones that ended in a tool error. */
  readonly codeFailed: number;
  /** web_search calls, answered or failed, and the failed ones. */
  readonly webSearches: number;
  readonly webSearchesFailed: number;
  /** web_read new reads (not continuations), answered or failed, and the failed ones. */
  readonly pageReads: number;
  readonly pageReadsFailed: number;
}

export const NO_FACTS: Facts = {
  codeQueries: 0,
  codeComplete: 0,
  codeByFile: 0,
  codeFailed: 0,
  webSearches: 0,
  webSearchesFailed: 0,
  pageReads: 0,
  pageReadsFailed: 0,
};

/** Facts after one returned result; the same facts when the call was no new query. */
export function recordResult(facts: Facts, tool: string, args: unknown, data: unknown): Facts {
  const input = inputOf(args);
  // The guide is no query.
  if (input.cursor !== undefined || input.guide === true) return facts;
  const result = (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>;
  switch (tool) {
    case "code_search": {
      const implicitAuto = (input.mode === undefined || input.mode === "auto") && input.limit === undefined;
      return {
        ...facts,
        codeQueries: facts.codeQueries + 1,
        codeComplete: facts.codeComplete + (result.status === "complete" ? 1 : 0),
        codeByFile: facts.codeByFile + (implicitAuto && result.view === "summary" ? 1 : 0),
      };
    }
    case "web_search":
      return { ...facts, webSearches: facts.webSearches + 1 };
    case "web_read":
      return { ...facts, pageReads: facts.pageReads + 1 };
    default:
      return facts;
  }
}

/**
 * Facts after one call that ended in a tool error (`code` from its payload); the same facts when
 * it was no new query or the person cancelled it.
 */
export function recordFailure(facts: Facts, tool: string, args: unknown, code: string | undefined): Facts {
  if (inputOf(args).cursor !== undefined || code === "cancelled") return facts;
  switch (tool) {
    case "code_search":
      return { ...facts, codeQueries: facts.codeQueries + 1, codeFailed: facts.codeFailed + 1 };
    case "web_search":
      return { ...facts, webSearches: facts.webSearches + 1, webSearchesFailed: facts.webSearchesFailed + 1 };
    case "web_read":
      return { ...facts, pageReads: facts.pageReads + 1, pageReadsFailed: facts.pageReadsFailed + 1 };
    default:
      return facts;
  }
}

function inputOf(args: unknown): Record<string, unknown> {
  return (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
}

export function hasFacts(facts: Facts): boolean {
  return facts.codeQueries + facts.webSearches + facts.pageReads > 0;
}

/** One line of counts in the interface locale. */
export function statusLine(facts: Facts, locale: InterfaceLocale): string {
  if (locale === "zh-CN") {
    const failed = (n: number) => (n === 0 ? "" : `失败 ${n} 次`);
    const codeFailed = facts.codeFailed === 0 ? "" : `，${failed(facts.codeFailed)}`;
    const aside = (n: number) => (n === 0 ? "" : `（${failed(n)}）`);
    return (
      `evident 本次会话：代码搜索 ${facts.codeQueries} 次` +
      `（结果完整 ${facts.codeComplete} 次，按文件汇总 ${facts.codeByFile} 次${codeFailed}），` +
      `网页搜索 ${facts.webSearches} 次${aside(facts.webSearchesFailed)}，` +
      `读取网页 ${facts.pageReads} 次${aside(facts.pageReadsFailed)}`
    );
  }
  const codeFailed = facts.codeFailed === 0 ? "" : `, ${facts.codeFailed} failed`;
  const aside = (n: number) => (n === 0 ? "" : ` (${n} failed)`);
  return (
    `evident this session: ${counted(facts.codeQueries, "code search", "code searches")} ` +
    `(${facts.codeComplete} complete, ${facts.codeByFile} summarized by file${codeFailed}), ` +
    `${counted(facts.webSearches, "web search", "web searches")}${aside(facts.webSearchesFailed)}, ` +
    `${counted(facts.pageReads, "page read", "pages read")}${aside(facts.pageReadsFailed)}`
  );
}
