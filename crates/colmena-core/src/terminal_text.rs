//! Text shown on a terminal, made inert (issue "Safe by default, round
//! two"): what a model writes, what a tool returns, what another author
//! sent, an MCP server's answer — all of it may carry bytes a terminal
//! obeys. OSC 52 writes the clipboard, cursor-up and erase-line can hide
//! the approval question printed just before, bidi overrides and
//! zero-width characters make `rm -rf ~` read as something else. Every such
//! character is shown as a visible escape (`\u{1B}`) instead; line breaks
//! and tabs stay. The CLI prints every line through [`clean`], and the
//! approval card in the window applies the same rule.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as is: C0 and C1 controls (but
/// `\n` and `\t`), DEL, bidi embeddings, overrides, isolates and marks, and
/// zero-width characters.
pub fn is_hidden_control(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\u{0}'..='\u{1F}' | '\u{7F}'..='\u{9F}' => true,
        // Bidi: marks, embeddings and overrides, isolates.
        '\u{061C}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}' => true,
        // Zero-width space, non-joiner, joiner, word joiner, invisible
        // operators, BOM; soft hyphen; the line and paragraph separators.
        '\u{200B}'..='\u{200D}'
        | '\u{2060}'..='\u{2064}'
        | '\u{FEFF}'
        | '\u{00AD}'
        | '\u{2028}'
        | '\u{2029}' => true,
        _ => false,
    }
}

/// `text` with every [`is_hidden_control`] character written as `\u{XX}`.
pub fn clean(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_hidden_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_hidden_control(c) {
            out.push_str(&format!("\\u{{{:X}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_bidi_and_zero_width_characters_are_shown_not_obeyed() {
        let attack = "Summary ready.\u{1b}]52;c;Y3VybA==\u{7}\u{1b}[1A\u{1b}[2K";
        assert_eq!(
            clean(attack),
            "Summary ready.\\u{1B}]52;c;Y3VybA==\\u{7}\\u{1B}[1A\\u{1B}[2K"
        );
        assert_eq!(clean("a\u{202E}txt.exe"), "a\\u{202E}txt.exe");
        assert_eq!(clean("rm\u{200B} -rf"), "rm\\u{200B} -rf");
        assert_eq!(clean("over\rwrite"), "over\\u{D}write");
        assert_eq!(clean("\u{9b}31m"), "\\u{9B}31m");
    }

    #[test]
    fn ordinary_text_lines_and_tabs_pass_unchanged() {
        let text = "línea 1\n\tcolumna — ñandú 🐝";
        assert!(matches!(clean(text), Cow::Borrowed(_)));
        assert_eq!(clean(text), text);
    }
}
