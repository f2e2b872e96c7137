/**
 * Which language a file is, by its name, and which provider parses it. ast-grep parses the
 * languages listed here (JavaScript, TypeScript and TSX built in; Python, Go, Rust and Java from
 * their language packages); any other file may still get a symbol range from Universal Ctags.
 */
import { extname } from "node:path";

/** Languages ast-grep parses; the value is the name ast-grep knows it by. */
export const AST_GREP_LANGUAGES = {
  javascript: "JavaScript",
  typescript: "TypeScript",
  tsx: "Tsx",
  python: "python",
  go: "go",
  rust: "rust",
  java: "java",
} as const;

export type AstGrepLanguage = keyof typeof AST_GREP_LANGUAGES;

/** Languages ast-grep has without a language package. */
export const BUILT_IN_LANGUAGES: readonly AstGrepLanguage[] = ["javascript", "typescript", "tsx"];

const BY_EXTENSION: Readonly<Record<string, AstGrepLanguage>> = {
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascript",
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "tsx",
  ".py": "python",
  ".pyi": "python",
  ".go": "go",
  ".rs": "rust",
  ".java": "java",
};

/** The ast-grep language of a path, or undefined for files only ctags may know. */
export function astGrepLanguageOf(path: string): AstGrepLanguage | undefined {
  return BY_EXTENSION[extname(path).toLowerCase()];
}
