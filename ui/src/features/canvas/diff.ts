// The Rounds view's compare. A word-level diff of two texts (the longest
// common subsequence of words; runs of whitespace are tokens of their own
// that match any other run — with a line break, any other with one — so a
// changed word never drags a line break into its strike-through), then grouped into phrases: two changes a word or two
// apart read as one change ("hacen miel dulce" → "fabrican miel"), not as
// confetti of single struck-out words. And what else differs between two
// rounds: the prompt, the style and the model (or a person) that wrote it.

import type { Round } from "../../api";

export type DiffPart = { kind: "same" | "added" | "removed"; text: string };

/** Words and the whitespace between them, so joining them gives the text back. */
export function words(text: string): string[] {
  return text.match(/\s+|\S+/g) ?? [];
}

/** The parts that turn `before` into `after`: same, removed, added. */
export function diffWords(before: string, after: string): DiffPart[] {
  const a = words(before);
  const b = words(after);
  // Whitespace matches whitespace, but a line break only a line break: a
  // paragraph's end never pairs with a space inside a changed sentence.
  const key = (w: string) => (w.trim() !== "" ? w : w.includes("\n") ? "\n" : " ");
  // LCS lengths, from the end.
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = key(a[i]!) === key(b[j]!) ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const parts: DiffPart[] = [];
  const push = (kind: DiffPart["kind"], text: string) => {
    const last = parts[parts.length - 1];
    if (last && last.kind === kind) last.text += text;
    else parts.push({ kind, text });
  };
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (key(a[i]!) === key(b[j]!)) {
      push("same", b[j]!);
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) {
      push("removed", a[i++]!);
    } else {
      push("added", b[j++]!);
    }
  }
  while (i < a.length) push("removed", a[i++]!);
  while (j < b.length) push("added", b[j++]!);
  return parts;
}

/** How many words of unchanged text between two changes still join them
 * into one phrase. */
export const PHRASE_GLUE = 2;

type Segment = { kind: "same"; text: string } | { kind: "change"; removed: string; added: string };

/** Whether an unchanged run is short enough to join the changes around it:
 * a word or two, within one line and one sentence. */
function glues(text: string, glue: number): boolean {
  if (/\n/.test(text) || /[.!?;:](\s|$)/.test(text)) return false;
  return text.split(/\s+/).filter(Boolean).length <= glue;
}

/** The parts that turn `before` into `after`, changes grouped into phrases. */
export function diffPhrases(before: string, after: string, glue = PHRASE_GLUE): DiffPart[] {
  const segments: Segment[] = [];
  for (const part of diffWords(before, after)) {
    const last = segments[segments.length - 1];
    if (part.kind === "same") {
      segments.push({ kind: "same", text: part.text });
      continue;
    }
    const change = last?.kind === "change" ? last : { kind: "change" as const, removed: "", added: "" };
    if (change !== last) segments.push(change);
    if (part.kind === "removed") change.removed += part.text;
    else change.added += part.text;
    // Two changes a short unchanged run apart become one phrase.
    const [a, gap, b] = segments.slice(-3);
    if (segments.length >= 3 && a?.kind === "change" && gap?.kind === "same" && b === change && glues(gap.text, glue)) {
      segments.splice(-3, 3, { kind: "change", removed: a.removed + gap.text + b.removed, added: a.added + gap.text + b.added });
    }
  }
  const parts: DiffPart[] = [];
  for (const s of segments) {
    if (s.kind === "same") parts.push({ kind: "same", text: s.text });
    else {
      if (s.removed) parts.push({ kind: "removed", text: s.removed });
      if (s.added) parts.push({ kind: "added", text: s.added });
    }
  }
  return parts;
}

/** One setting that differs between two rounds. */
export interface SettingChange {
  field: "prompt" | "style" | "model";
  before: string;
  after: string;
}

/** Who wrote a round: a model, the person by hand, or another client
 * (an AI client that wrote the text itself: no model, not by hand). */
export type RoundAuthor = { kind: "model"; model: string } | { kind: "hand" } | { kind: "client"; client: string };

export function roundAuthor(round: Round): RoundAuthor {
  if (round.byHand) return { kind: "hand" };
  if (!round.model) return { kind: "client", client: round.client };
  return { kind: "model", model: `${round.provider}/${round.model}` };
}

function authorKey(author: RoundAuthor): string {
  return author.kind === "model" ? author.model : author.kind === "client" ? `client:${author.client}` : "";
}

/** What was different when the two rounds were made: the prompt, the style,
 * and who wrote it (compared by [`roundAuthor`]; show each side with it). */
export function settingChanges(a: Round, b: Round): SettingChange[] {
  const changes: SettingChange[] = [];
  if (a.promptSnapshot !== b.promptSnapshot) changes.push({ field: "prompt", before: a.promptSnapshot, after: b.promptSnapshot });
  if (a.styleSnapshot !== b.styleSnapshot) changes.push({ field: "style", before: a.styleSnapshot, after: b.styleSnapshot });
  const [was, now] = [authorKey(roundAuthor(a)), authorKey(roundAuthor(b))];
  if (was !== now) changes.push({ field: "model", before: was, after: now });
  return changes;
}

/** Markdown as it reads once rendered: the marks that only format it —
 * heading hashes, quote marks, emphasis, inline code ticks, link and image
 * targets — taken out, the words and line breaks kept; list items start
 * with "• ". What the rounds dialog compares unless "Markdown" is chosen
 * (review item 15: the diff showed `## Bees` and `**pollinate**` under
 * panes that were rendered). An underscore inside a word is a letter, as
 * Markdown reads it (`notify_user`). */
export function readableText(markdown: string): string {
  return markdown
    .split("\n")
    .map((line) =>
      line
        .replace(/^\s{0,3}#{1,6}\s+/, "")
        .replace(/^\s{0,3}>\s?/, "")
        .replace(/^(\s*)[-*+]\s+/, "$1• "),
    )
    .join("\n")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/\*\*(?=\S)([^*]*?\S)\*\*/g, "$1")
    .replace(/\*(?=\S)([^*\n]*?\S)\*/g, "$1")
    .replace(/(^|[^\p{L}\p{N}_])__(?=\S)([^_]*?\S)__(?![\p{L}\p{N}_])/gu, "$1$2")
    .replace(/(^|[^\p{L}\p{N}_])_(?=\S)([^_\n]*?\S)_(?![\p{L}\p{N}_])/gu, "$1$2")
    .replace(/`([^`\n]+)`/g, "$1");
}
