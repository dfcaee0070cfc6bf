//! `doc_outline` and `doc_stats`: reading a text's structure and length.

/// The heading outline of a markdown document, indented by level.
pub fn outline(markdown: &str) -> String {
    let mut lines = Vec::new();
    let mut in_code = false;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let level = trimmed.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&level) && trimmed[level..].starts_with(' ') {
            lines.push(format!(
                "{}- {}",
                "  ".repeat(level - 1),
                trimmed[level..].trim()
            ));
        }
    }
    if lines.is_empty() {
        "(no headings)".to_owned()
    } else {
        lines.join("\n")
    }
}

/// Words, sentences, reading time, and the sentences longer than 30 words.
pub fn stats(text: &str) -> String {
    let words = text.split_whitespace().count();
    let sentences: Vec<&str> = text
        .split(['.', '!', '?', '\n'])
        .map(str::trim)
        .filter(|s| s.split_whitespace().count() > 0)
        .collect();
    let long: Vec<String> = sentences
        .iter()
        .filter(|s| s.split_whitespace().count() > 30)
        .map(|s| s.chars().take(80).collect::<String>())
        .collect();
    let minutes = (words as f64 / 230.0).ceil() as usize;
    let mut out = format!(
        "words: {words}\nsentences: {}\nreading time: {} min",
        sentences.len(),
        minutes.max(usize::from(words > 0))
    );
    if !long.is_empty() {
        out.push_str(&format!("\nlong sentences ({}):", long.len()));
        for s in long {
            out.push_str(&format!("\n- {s}…"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outline_follows_headings_and_skips_code() {
        let md = "# Title\ntext\n## Part\n```\n# not a heading\n```\n### Detail\n#nospace";
        assert_eq!(outline(md), "- Title\n  - Part\n    - Detail");
    }

    #[test]
    fn stats_count_words_and_flag_long_sentences() {
        let long = vec!["word"; 35].join(" ");
        let out = stats(&format!("Short one. {long}."));
        assert!(
            out.starts_with("words: 37\nsentences: 2\nreading time: 1 min"),
            "{out}"
        );
        assert!(out.contains("long sentences (1)"));
    }
}
