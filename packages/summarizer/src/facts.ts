/**
 * Key facts of raw tool outputs: what a later turn most likely needs verbatim and what a summary
 * must not lose. Per call: the paths it touched or printed, its error lines and exit code, failing
 * test names, URLs, and identifiers the assistant later referred to. Each kind is bounded per call
 * (the first occurrences win), so a 2,000-line file listing yields a handful of facts, not 2,000:
 * the guard that keeps them must stay far smaller than the output it replaces.
 */
import type { CapturedToolCall } from "@condense/core";

export type FactKind = "error" | "exit" | "test" | "path" | "url" | "identifier";

export interface Fact {
  kind: FactKind;
  /** The text that must appear in the summary (for `exit`, the code). */
  value: string;
  /** Position of the call in the batch (0-based). */
  call: number;
}

/** Per-call limits; the order of FACT_PRIORITY is also the order the guard restores missing facts in. */
export const FACT_LIMITS: Readonly<Record<FactKind, number>> = {
  error: 3,
  exit: 1,
  test: 4,
  path: 6,
  url: 3,
  identifier: 5,
};
export const FACT_PRIORITY: readonly FactKind[] = ["error", "exit", "test", "path", "url", "identifier"];
export const FACT_LINE_MAX = 160;

// Lines that report a failure, not lines of code that merely mention errors.
const ERROR_LINE =
  /^\s*(?:[\w./-]+:\d+(?::\d+)?:?\s*)?(?:error\b|ERROR\b|Error:|fatal\b|FATAL\b|panic:|Traceback\b|Exception\b|[A-Z]\w*(?:Error|Exception):|npm ERR!|E[A-Z]{3,}\b:|error\[|✖)|\berror TS\d+\b|\bCommand (?:exited|failed) with code [1-9]|\b(?:No such file or directory|Permission denied|command not found|not found:|Cannot find module|Segmentation fault)\b/;
const EXIT_CODE = /\b(?:exit(?:ed)?(?: with)?(?: code| status)|exit code|status code)[:=\s]+(-?\d+)\b/i;
const FAILING_TEST = /^\s*(?:FAIL(?:ED)?|✗|×|✕|not ok \d+(?: -)?)\s+(.{3,})$/;
const PATH = /(?:~|\.{1,2})?\/?(?:[\w@.+-]+\/)+[\w@+-][\w@.+-]*\.[A-Za-z][A-Za-z0-9]{0,7}\b/g;
const URL = /https?:\/\/[^\s"'`<>()[\]{}]+/g;
const WORD = /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/g;
const ARG_PATH_KEYS = ["path", "file_path", "filePath", "file", "paths", "cwd"];

/** Identifier-shaped: snake_case, camelCase, dotted member access or letters with digits. */
function codeLike(word: string): boolean {
  return (
    word.length >= 5 &&
    (/_/.test(word.slice(1)) ||
      /[a-z][A-Z]/.test(word) ||
      /[A-Za-z]\.[A-Za-z]/.test(word) ||
      (/\d/.test(word) && /[A-Za-z]{2}/.test(word)))
  );
}

export function cutLine(line: string, max = FACT_LINE_MAX): string {
  const t = line.trim().replace(/\s+/g, " ");
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

function trimUrl(u: string): string {
  return u.replace(/[.,;:!?'"]+$/, "");
}

function argPaths(args: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const k of ARG_PATH_KEYS) {
    const v = args[k];
    if (typeof v === "string" && v.trim() && v.length <= 300) out.push(v.trim());
    else if (Array.isArray(v)) for (const x of v) if (typeof x === "string" && x.length <= 300) out.push(x);
  }
  return out;
}

export interface CallFacts {
  errors: string[];
  exitCode?: string;
  failingTests: string[];
  paths: string[];
  urls: string[];
}

/** The bounded, ordered facts of one output; shared by the deterministic summarizer and the guard. */
export function callFacts(call: CapturedToolCall): CallFacts {
  const lines = call.resultText.split("\n");
  const errors: string[] = [];
  const tests: string[] = [];
  for (const line of lines) {
    if (errors.length < FACT_LIMITS.error && ERROR_LINE.test(line)) {
      const c = cutLine(line);
      if (c && !errors.includes(c)) errors.push(c);
    }
    const t = FAILING_TEST.exec(line);
    if (t && tests.length < FACT_LIMITS.test) {
      const name = cutLine(t[1] ?? "", 120);
      if (!tests.includes(name)) tests.push(name);
    }
    if (errors.length >= FACT_LIMITS.error && tests.length >= FACT_LIMITS.test) break;
  }
  const exit = EXIT_CODE.exec(call.resultText)?.[1];
  const paths: string[] = [];
  for (const p of [...argPaths(call.args), ...(call.resultText.match(PATH) ?? [])]) {
    if (paths.length >= FACT_LIMITS.path) break;
    if (!paths.includes(p)) paths.push(p);
  }
  const urls: string[] = [];
  for (const u of call.resultText.match(URL) ?? []) {
    if (urls.length >= FACT_LIMITS.url) break;
    const t = trimUrl(u);
    if (t.length > 10 && t.length <= 300 && !urls.includes(t)) urls.push(t);
  }
  return { errors, failingTests: tests, paths, urls, ...(exit !== undefined ? { exitCode: exit } : {}) };
}

/** Identifiers of the output that the assistant's later text also uses (it relied on them). */
export function laterReferencedIdentifiers(
  call: CapturedToolCall,
  laterWords: ReadonlySet<string>,
  exclude: ReadonlySet<string>,
): string[] {
  const out: string[] = [];
  if (laterWords.size === 0) return out;
  for (const w of call.resultText.match(WORD) ?? []) {
    if (out.length >= FACT_LIMITS.identifier) break;
    if (codeLike(w) && laterWords.has(w) && !exclude.has(w) && !out.includes(w)) out.push(w);
  }
  return out;
}

export function wordsOf(text: string | undefined): Set<string> {
  return new Set(text ? (text.match(WORD) ?? []) : []);
}

export function extractFacts(calls: readonly CapturedToolCall[], laterText?: string): Fact[] {
  const later = wordsOf(laterText);
  const facts: Fact[] = [];
  calls.forEach((call, i) => {
    const f = callFacts(call);
    for (const e of f.errors) facts.push({ kind: "error", value: e, call: i });
    if (f.exitCode !== undefined) facts.push({ kind: "exit", value: f.exitCode, call: i });
    for (const t of f.failingTests) facts.push({ kind: "test", value: t, call: i });
    for (const p of f.paths) facts.push({ kind: "path", value: p, call: i });
    for (const u of f.urls) facts.push({ kind: "url", value: u, call: i });
    const seen = new Set<string>([...f.paths, ...f.urls]);
    for (const id of laterReferencedIdentifiers(call, later, seen))
      facts.push({ kind: "identifier", value: id, call: i });
  });
  return facts;
}

const squash = (s: string) => s.replace(/\s+/g, " ");

/** Verbatim presence (whitespace-insensitive); an exit code counts when stated as an exit code. */
export function factPresent(fact: Fact, summary: string, squashed = squash(summary)): boolean {
  if (fact.kind === "exit") {
    return new RegExp(
      `\\bexit(?:ed)?(?: with)?(?: code| status)?[:=\\s]*${fact.value.replace("-", "\\-")}\\b`,
      "i",
    ).test(summary);
  }
  // A cut line is present when its kept part is (the summary need not copy the ellipsis).
  const value = fact.value.endsWith("…") ? fact.value.slice(0, -1) : fact.value;
  return summary.includes(value) || squashed.includes(squash(value));
}
