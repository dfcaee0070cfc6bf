//! Turns the model's token pieces into the text that streams out: whole
//! UTF-8 characters only (a token may end inside one), never any part of a
//! stop sequence (held back until it is clear it is not one), and nothing
//! from a tool call's opening tag on (that part is parsed, not shown).

/// The streamed text of one answer.
pub(crate) struct TextOut {
    stops: Vec<String>,
    /// The tag that opens a tool call, when tools are offered.
    trigger: Option<String>,
    /// Bytes of a character not yet complete.
    partial: Vec<u8>,
    /// Everything written so far (cut at a stop sequence).
    all: String,
    /// How much of `all` has been streamed.
    sent: usize,
    /// Where a tool call began in `all`.
    call_at: Option<usize>,
    stopped: bool,
}

impl TextOut {
    pub(crate) fn new(stops: &[String], trigger: Option<&str>) -> TextOut {
        TextOut {
            stops: stops.iter().filter(|s| !s.is_empty()).cloned().collect(),
            trigger: trigger.map(str::to_owned),
            partial: Vec::new(),
            all: String::new(),
            sent: 0,
            call_at: None,
            stopped: false,
        }
    }

    /// Adds a token's bytes; returns the text that may stream now.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> String {
        if self.stopped {
            return String::new();
        }
        self.partial.extend_from_slice(bytes);
        let complete = match std::str::from_utf8(&self.partial) {
            Ok(_) => self.partial.len(),
            // An invalid sequence (not merely unfinished) is shown as U+FFFD.
            Err(e) if e.error_len().is_some() => self.partial.len(),
            Err(e) => e.valid_up_to(),
        };
        let text = String::from_utf8_lossy(&self.partial[..complete]).into_owned();
        self.partial.drain(..complete);
        let from = self.all.len();
        self.all.push_str(&text);
        self.scan(from);
        self.release(false)
    }

    /// The answer ended: what is left to stream.
    pub(crate) fn finish(&mut self) -> String {
        if !self.partial.is_empty() && !self.stopped {
            let rest = String::from_utf8_lossy(&self.partial).into_owned();
            self.partial.clear();
            let from = self.all.len();
            self.all.push_str(&rest);
            self.scan(from);
        }
        self.release(true)
    }

    /// Whether a stop sequence ended the answer.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }

    /// The text from the tool call's opening tag on, if the model began one.
    pub(crate) fn call_text(&self) -> Option<&str> {
        self.call_at.map(|at| &self.all[at..])
    }

    /// Looks for a stop sequence or the tool tag in what was just added
    /// (and the few bytes before it where one may have begun).
    fn scan(&mut self, added_at: usize) {
        let longest = self
            .stops
            .iter()
            .chain(self.trigger.iter())
            .map(String::len)
            .max()
            .unwrap_or(0);
        let mut from = added_at.saturating_sub(longest);
        while !self.all.is_char_boundary(from) {
            from -= 1;
        }
        if self.call_at.is_none()
            && let Some(tag) = &self.trigger
            && let Some(at) = self.all[from..].find(tag.as_str())
        {
            self.call_at = Some(from + at);
        }
        // Stop sequences end the answer only outside a tool call.
        let text_end = self.call_at.unwrap_or(self.all.len());
        let first_stop = self
            .stops
            .iter()
            .filter_map(|s| self.all[from.min(text_end)..text_end].find(s.as_str()))
            .min();
        if let Some(at) = first_stop {
            self.all.truncate(from.min(text_end) + at);
            self.call_at = None;
            self.stopped = true;
        }
    }

    /// Streams what is certainly text: up to the tool tag, and short of a
    /// tail that may still become a stop sequence or the tag.
    fn release(&mut self, at_end: bool) -> String {
        let limit = self.call_at.unwrap_or(self.all.len());
        let mut safe = limit;
        if !at_end && !self.stopped && self.call_at.is_none() {
            let tail_start = |word: &str| -> Option<usize> {
                // Proper prefixes, cut at character boundaries only.
                word.char_indices()
                    .map(|(i, _)| i)
                    .filter(|&i| i > 0)
                    .rev()
                    .map(|n| &word[..n])
                    .find(|prefix| self.all[..limit].ends_with(prefix))
                    .map(|prefix| limit - prefix.len())
            };
            for word in self.stops.iter().chain(self.trigger.iter()) {
                if let Some(start) = tail_start(word) {
                    safe = safe.min(start);
                }
            }
        }
        while !self.all.is_char_boundary(safe) {
            safe -= 1;
        }
        if safe <= self.sent {
            return String::new();
        }
        let out = self.all[self.sent..safe].to_owned();
        self.sent = safe;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(out: &mut TextOut, pieces: &[&[u8]]) -> String {
        let mut text = String::new();
        for piece in pieces {
            text.push_str(&out.push(piece));
        }
        text.push_str(&out.finish());
        text
    }

    #[test]
    fn a_character_split_across_tokens_streams_whole() {
        let mut out = TextOut::new(&[], None);
        let bytes = "ñu".as_bytes();
        assert_eq!(out.push(&bytes[..1]), "");
        assert_eq!(out.push(&bytes[1..]), "ñu");
    }

    #[test]
    fn a_stop_sequence_ends_the_text_and_is_never_shown() {
        let stops = vec!["END".to_owned()];
        let mut out = TextOut::new(&stops, None);
        assert_eq!(out.push(b"Hello E"), "Hello ");
        assert_eq!(out.push(b"N"), "");
        assert_eq!(out.push(b"D and more"), "");
        assert!(out.stopped());
        assert_eq!(out.finish(), "");

        let mut out = TextOut::new(&stops, None);
        assert_eq!(
            stream(&mut out, &[b"Hello E", b"ND? no: EN", b"Q"]),
            "Hello "
        );
        let mut out = TextOut::new(&stops, None);
        assert_eq!(stream(&mut out, &[b"a E", b"x E"]), "a Ex E");
    }

    #[test]
    fn a_stop_sequence_of_any_script_is_held_back_by_whole_characters() {
        let stops = vec!["\n用户:".to_owned(), "é".to_owned()];
        let mut out = TextOut::new(&stops, None);
        assert_eq!(out.push("Hola \n用".as_bytes()), "Hola ");
        assert_eq!(out.push("户: ignored".as_bytes()), "");
        assert!(out.stopped());
        let mut out = TextOut::new(&stops, None);
        assert_eq!(
            stream(&mut out, &["caf".as_bytes(), "é!".as_bytes()]),
            "caf"
        );
    }

    #[test]
    fn a_tool_call_is_kept_apart_from_the_text() {
        let mut out = TextOut::new(&[], Some("<tool_call>"));
        let text = stream(
            &mut out,
            &[
                b"Let me look. <tool",
                b"_call>{\"name\":\"a\"}",
                b"</tool_call>",
            ],
        );
        assert_eq!(text, "Let me look. ");
        assert_eq!(
            out.call_text(),
            Some("<tool_call>{\"name\":\"a\"}</tool_call>")
        );
        let mut out = TextOut::new(&[], Some("<tool_call>"));
        assert_eq!(stream(&mut out, &[b"a <to", b"ast>"]), "a <toast>");
        assert_eq!(out.call_text(), None);
    }
}
