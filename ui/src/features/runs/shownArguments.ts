// How a tool call's arguments are shown to the person deciding on it
// (issue "Safe by default, round two"): nothing in them may hide what the
// call does. Characters a screen does not show as themselves — control
// characters, bidi overrides and isolates, zero-width characters — are
// written as visible escapes (`\u{202E}`), the same rule the CLI applies
// (colmena_core::terminal_text); a run of blank space long enough to push
// the rest of a line out of sight is collapsed to a marker with its count;
// and the card says how long the arguments are in full.

/** Mirrors `is_hidden_control` in colmena-core's terminal_text.rs. */
export function isHiddenControl(code: number): boolean {
  if (code === 0x0a || code === 0x09) return false;
  if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return true;
  if (code === 0x061c || code === 0x200e || code === 0x200f) return true;
  if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)) return true;
  if ((code >= 0x200b && code <= 0x200d) || (code >= 0x2060 && code <= 0x2064)) return true;
  return code === 0xfeff || code === 0x00ad || code === 0x2028 || code === 0x2029;
}

/** Blank space that is not a line break: ASCII space, no-break, the
 * Unicode spaces, and the letters that print as nothing (the Hangul and
 * halfwidth fillers, the blank braille cell, the Khmer inherent vowels,
 * the Mongolian vowel separator) — a run of them hides a line's end as
 * well as spaces do. */
const BLANK = /^(?:[ \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u115f\u180e\u2800\u3164\uffa0]|\u1160|\u17b4|\u17b5)$/;
/** Runs of blank space at least this long are collapsed (outside a line's
 * leading indentation, which pretty-printed JSON keeps short). */
const LONG_BLANK = 8;
/** Leading indentation beyond this is collapsed too. */
const LONG_INDENT = 40;

export interface Collapsed {
  kind: "blank";
  count: number;
}

export type Piece = string | Collapsed;

/** Unicode's Default_Ignorable_Code_Point: what renderers draw as nothing. */
const DEFAULT_IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;

/** Characters that print as nothing but are not controls (the combining
 * grapheme joiner, variation selectors, Mongolian free variation
 * selectors, interlinear annotation marks, musical formatting, tag
 * characters, the unassigned default-ignorable ranges). Interleaved with blanks they would break a blank run into
 * short ones that are not collapsed (found in the attacker's re-review),
 * so the card writes them as escapes too. (The CLI leaves them: in chat
 * text a variation selector belongs to an emoji.) */
export function isInvisibleFormat(char: string): boolean {
  // Unicode's whole set (a list kept by hand missed some, found in the
  // third re-review), but not the blank letters, which collapse below;
  // and the interlinear annotation marks, format characters Unicode does
  // not count as ignorable.
  if (BLANK.test(char)) return false;
  const code = char.codePointAt(0) ?? 0;
  return DEFAULT_IGNORABLE.test(char) || (code >= 0xfff9 && code <= 0xfffb);
}


function escapeHidden(text: string): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    out += isHiddenControl(code) || isInvisibleFormat(char) ? `\\u{${code.toString(16).toUpperCase()}}` : char;
  }
  return out;
}

function pretty(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

/** The arguments as shown: text pieces, and collapsed runs of blank space. */
export function shownArguments(args: string): Piece[] {
  return shownText(pretty(args));
}

/** Any text of a call as shown (its command line, a path): hidden
 * characters written out, long runs of blank space collapsed. */
export function shownText(raw: string): Piece[] {
  const text = escapeHidden(raw);
  const pieces: Piece[] = [];
  let plain = "";
  let lineStart = true;
  const chars = [...text];
  const blank = (at: number) => BLANK.test(chars[at] ?? "");
  for (let i = 0; i < chars.length; ) {
    if (blank(i)) {
      let end = i;
      while (end < chars.length && blank(end)) end += 1;
      const count = end - i;
      const limit = lineStart ? LONG_INDENT : LONG_BLANK;
      if (count >= limit) {
        if (plain) pieces.push(plain);
        plain = "";
        pieces.push({ kind: "blank", count });
      } else {
        plain += chars.slice(i, end).join("");
      }
      i = end;
      lineStart = false;
      continue;
    }
    lineStart = chars[i] === "\n";
    plain += chars[i] ?? "";
    i += 1;
  }
  if (plain) pieces.push(plain);
  return pieces;
}
