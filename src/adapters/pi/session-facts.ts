/**
 * Session facts: what the evident tools returned in this Pi session, counted from results
 * alone, and the one plain status line a person sees after the first new query.
 *
 * A new query is a call without a cursor: cursor and continuation pages read further into a
 * result already counted, so they never count again. Only returned results are facts; a failed
 * call stays a tool error. The line states counts only: nothing about speed, savings, tokens
 * or whether the task went well, which nothing here could know.
 */
import { counted } from "../../core/plural.js";
import type { InterfaceLocale } from "../../tools/host-settings.js";

export interface Facts {
  /** code_search new queries returned. */
  readonly codeQueries: number;
  /** Of those, the ones whose result says it is complete. */
  readonly codeComplete: number;
  /** Of those, implicit `auto` queries answered with the file summary. */
  readonly codeByFile: number;
  readonly webSearches: number;
  readonly pageReads: number;
}

export const NO_FACTS: Facts = {
  codeQueries: 0,
  codeComplete: 0,
  codeByFile: 0,
  webSearches: 0,
  pageReads: 0,
};

/** Facts after one returned result; the same facts when the call was no new query. */
export function recordResult(facts: Facts, tool: string, args: unknown, data: unknown): Facts {
  const input = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
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

export function hasFacts(facts: Facts): boolean {
  return facts.codeQueries + facts.webSearches + facts.pageReads > 0;
}

/** One line of counts in the interface locale. */
export function statusLine(facts: Facts, locale: InterfaceLocale): string {
  if (locale === "zh-CN") {
    return (
      `evident 本次会话：代码搜索 ${facts.codeQueries} 次` +
      `（结果完整 ${facts.codeComplete} 次，按文件汇总 ${facts.codeByFile} 次），` +
      `网页搜索 ${facts.webSearches} 次，读取网页 ${facts.pageReads} 次`
    );
  }
  return (
    `evident this session: ${counted(facts.codeQueries, "code search", "code searches")} ` +
    `(${facts.codeComplete} complete, ${facts.codeByFile} summarized by file), ` +
    `${counted(facts.webSearches, "web search", "web searches")}, ${counted(facts.pageReads, "page read", "pages read")}`
  );
}
