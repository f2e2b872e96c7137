/**
 * A refusal of the tool's schema (or of its own checks) in the CLI's words: each issue names the
 * flag as it was typed (`-C`, `--ignorecase`) or the positional (`QUERY`), says what the flag
 * takes in flag language, and the message ends with the command's usage line. Nothing here
 * judges a value: it only rewords the issues the one schema reported, so the code and `field`
 * stay what every surface reports.
 */
import { editDistance } from "../../config/variables.js";
import { EvidentError } from "../../core/errors.js";
import type { ArgumentIssue } from "../../tools/validation.js";
import { type CommandSpec, kebabCase, type ParsedCommand, placeholder, positionalsOf } from "./flags.js";

export interface CommandContext {
  /** The command as typed after `evident` (`grep`). */
  readonly command: string;
  readonly spec: CommandSpec & { readonly usage: string };
  readonly properties: Readonly<Record<string, unknown>>;
  readonly parsed: ParsedCommand;
}

/** A usage error of the command's own form (a flag given twice, an extra word), with its usage line. */
export function usageProblem(context: CommandContext, message: string, field: string, flag?: string) {
  return new EvidentError("invalid_arguments", `${sentence(message)} ${usageLine(context, flag)}`, {
    details: { field, ...(flag === undefined ? {} : { flag }) },
  });
}

/** `invalid_arguments` from the tool, reworded for the command line. */
export function cliArgumentError(error: EvidentError, context: CommandContext): EvidentError {
  const issues = issuesOf(error);
  // An unknown flag explains the rest (it may have taken the next word as its value): alone first.
  const unknown = issues.filter((issue) => issue.code === "unrecognized_keys");
  const shown = unknown.length > 0 ? unknown : issues;
  // One flag refused by two rules of a union reads once.
  const texts = [...new Set(shown.map((issue) => issueText(issue, context)))];
  const first = shown[0];
  const flag = first === undefined ? undefined : flagOf(first, context);
  const message = texts.length > 0 ? texts.join("; ") : error.message;
  return new EvidentError("invalid_arguments", `${sentence(message)} ${usageLine(context, flag, message)}`, {
    details: { ...error.details, ...(flag === undefined ? {} : { flag }) },
  });
}

function issuesOf(error: EvidentError): ArgumentIssue[] {
  const issues = error.details.issues;
  if (Array.isArray(issues) && issues.length > 0) return issues as ArgumentIssue[];
  const field = typeof error.details.field === "string" ? error.details.field : "(arguments)";
  // A tool's own refusal without issues: its message, after "Invalid arguments: field: ".
  const message = error.message.replace(/^Invalid arguments: /, "").replace(`${field}: `, "");
  return [{ field, message, code: "custom" }];
}

/** The property an issue is about: `targets` for `targets[0].line`. */
function propertyOf(field: string): string {
  return field.split(/[.[]/)[0] ?? field;
}

/** The flag as the user typed it, else how the command names the property. */
function flagOf(issue: ArgumentIssue, context: CommandContext): string | undefined {
  if (issue.field === "(arguments)") return undefined;
  if (issue.code === "unrecognized_keys") {
    const key = issue.values?.[0] ?? issue.field;
    return context.parsed.spellings[key] ?? `--${kebabCase(key)}`;
  }
  const key = propertyOf(issue.field);
  const typed = context.parsed.spellings[key];
  if (typed !== undefined) return typed;
  if (positionalsOf(context.spec, context.parsed.args).includes(key)) {
    return placeholder(context.spec, key, context.properties[key]);
  }
  const alias = Object.entries(context.spec.aliases ?? {}).find(([, field]) => field === key)?.[0];
  return alias ?? `--${kebabCase(key)}`;
}

function issueText(issue: ArgumentIssue, context: CommandContext): string {
  const { parsed, command } = context;
  if (issue.code === "unrecognized_keys") {
    return (issue.values ?? [issue.field])
      .map((key) => {
        const typed = parsed.spellings[key] ?? `--${kebabCase(key)}`;
        const near = suggestion(typed, context);
        return `unknown option ${typed} for evident ${command}${near === undefined ? "" : `; did you mean ${near}?`}`;
      })
      .join("; ");
  }
  const flag = flagOf(issue, context) ?? "the arguments";
  const key = propertyOf(issue.field);
  const schema = context.properties[key];
  const given =
    Object.hasOwn(parsed.raw, key) || parsed.valueless.has(key) || parsed.spellings[key] !== undefined;
  const raw = parsed.raw[key];
  const got = raw === undefined ? "" : `, got ${/^-?\d+(\.\d+)?$/.test(raw) ? raw : JSON.stringify(raw)}`;
  const takes = placeholder(context.spec, key, schema);
  if (parsed.valueless.has(key)) return `${flag} needs a value (${flag} ${takes})`;
  const positional = positionalsOf(context.spec, parsed.args).includes(key);
  switch (issue.code) {
    case "invalid_type":
      if (!given) return positional ? `evident ${command} needs ${flag}` : `${flag} is required`;
      if (issue.expected === "number" || issue.expected === "int") {
        const whole =
          issue.expected === "int" || (schema as { type?: unknown } | undefined)?.type === "integer";
        return `${flag} takes a ${whole ? "whole " : ""}number${got}`;
      }
      if (issue.expected === "boolean") {
        const name = `--${kebabCase(key)}`;
        return `${flag} is a switch: ${name}, --no-${kebabCase(key)} or ${name}=true|false${got}`;
      }
      return `${flag} takes ${takes}${got}`;
    case "too_small":
      if (issue.origin === "string") return raw === "" ? `${flag} is empty` : `${flag} is too short${got}`;
      if (issue.origin === "array") return `${flag} is needed at least ${issue.minimum} times`;
      return `${flag} must be at least ${issue.minimum}${got}`;
    case "too_big":
      if (issue.origin === "string") return `${flag} is longer than ${issue.maximum} characters`;
      if (issue.origin === "array") return `${flag} may be given at most ${issue.maximum} times`;
      return `${flag} must be at most ${issue.maximum}${got}`;
    case "invalid_value":
      return `${flag} takes one of ${(issue.values ?? []).join(", ")}${got}`;
    default: {
      // The tool's own words, already phrased for the CLI where they name other flags.
      const text = issue.message;
      if (positional && !given) return `evident ${command} needs ${flag}: ${text}`;
      return text.includes(flag) || text.includes(`--${kebabCase(key)}`) ? text : `${flag}: ${text}`;
    }
  }
}

/** The command's flag nearest to an unknown one: same letters ignoring case and dashes, else one or two edits away. */
function suggestion(typed: string, context: CommandContext): string | undefined {
  const names = (context.spec.options ?? Object.keys(context.properties)).map(
    (name) => `--${kebabCase(name)}`,
  );
  const plain = (flag: string) => flag.toLowerCase().replace(/[^a-z0-9]/g, "");
  const wanted = plain(typed);
  const same = names.find((name) => plain(name) === wanted);
  if (same !== undefined) return same;
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(plain(name), wanted);
    if (distance <= 2 && distance < wanted.length / 2 && (best === undefined || distance < best.distance)) {
      best = { name, distance };
    }
  }
  return best?.name;
}

/**
 * The usage line that shows `flag` (grep has one per form), else one showing another flag the
 * message names (`--pattern cannot go with --any-of`), else the command's first.
 */
function usageLine(context: CommandContext, flag: string | undefined, message = ""): string {
  const lines = context.spec.usage.split("\n").map((line) => line.trim());
  const words = (text: string) => text.split(/[\s[\]()|:;,.]+/);
  const shows = (wanted: string) => lines.find((line) => words(line).includes(wanted));
  const named = words(message).filter((word) => word.startsWith("-"));
  const line =
    (flag === undefined ? undefined : shows(flag)) ??
    named.map(shows).find((found) => found !== undefined) ??
    lines[0] ??
    "";
  const more = lines.length > 1 ? `; all forms: evident ${context.command} --help` : "";
  return `Usage: ${line}${more}`;
}

function sentence(text: string): string {
  return /[.?!]$/.test(text) ? text : `${text}.`;
}
