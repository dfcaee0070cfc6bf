// A word-level diff of two texts (the Rounds view's compare): the longest
// common subsequence of words. Runs of whitespace are tokens of their own
// that match any other run, so a changed word never drags a line break
// into its strike-through.

export type DiffPart = { kind: "same" | "added" | "removed"; text: string };

/** Words and the whitespace between them, so joining them gives the text back. */
export function words(text: string): string[] {
  return text.match(/\s+|\S+/g) ?? [];
}

/** The parts that turn `before` into `after`: same, removed, added. */
export function diffWords(before: string, after: string): DiffPart[] {
  const a = words(before);
  const b = words(after);
  const key = (w: string) => (w.trim() === "" ? " " : w);
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
