//! Server-sent events, decoded incrementally: chunks may end anywhere — in
//! the middle of a line, of a `data:` prefix, of a multi-byte character.
//! Bytes are kept until a line is complete; lines are decoded only then, so
//! a character split across chunks is never mangled.

/// One dispatched event: its `event:` name (if any) and its joined `data:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

#[derive(Default)]
pub struct SseDecoder {
    pending: Vec<u8>,
    event: Option<String>,
    data: Vec<String>,
}

impl SseDecoder {
    pub fn new() -> Self {
        SseDecoder::default()
    }

    /// Feeds bytes; returns the events completed by them.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        self.pending.extend_from_slice(chunk);
        // Lines are cut from the buffer in one go at the end, not one by one
        // (which would shift the rest of a large read for every line).
        let pending = std::mem::take(&mut self.pending);
        let mut events = Vec::new();
        let mut start = 0;
        while let Some(offset) = pending[start..].iter().position(|&b| b == b'\n') {
            let end = start + offset;
            let line = pending[start..end]
                .strip_suffix(b"\r")
                .unwrap_or(&pending[start..end]);
            start = end + 1;
            if let Some(event) = self.line(&String::from_utf8_lossy(line)) {
                events.push(event);
            }
        }
        self.pending = pending;
        self.pending.drain(..start);
        events
    }

    /// Ends the stream: a last event without its blank line still counts.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.pending.is_empty() {
            let rest = std::mem::take(&mut self.pending);
            let line = String::from_utf8_lossy(&rest).into_owned();
            if let Some(event) = self.line(line.trim_end_matches('\r')) {
                return Some(event);
            }
        }
        self.dispatch()
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => self.data.push(value.to_owned()),
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        if self.data.is_empty() {
            self.event = None;
            return None;
        }
        Some(SseEvent {
            event: self.event.take(),
            data: std::mem::take(&mut self.data).join("\n"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_chunks(bytes: &[u8], size: usize) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut events: Vec<SseEvent> = bytes.chunks(size).flat_map(|c| decoder.feed(c)).collect();
        events.extend(decoder.finish());
        events
    }

    #[test]
    fn events_survive_any_chunk_boundary() {
        let stream = "event: delta\ndata: {\"text\":\"héllo — ñandú 🐝\"}\n\n: keep-alive\n\ndata: line one\ndata: line two\n\r\ndata: [DONE]\n\n";
        let whole = decode_in_chunks(stream.as_bytes(), stream.len());
        assert_eq!(whole.len(), 3);
        assert_eq!(whole[0].event.as_deref(), Some("delta"));
        assert_eq!(whole[0].data, "{\"text\":\"héllo — ñandú 🐝\"}");
        assert_eq!(whole[1].data, "line one\nline two");
        assert_eq!(whole[2].data, "[DONE]");
        for size in 1..20 {
            assert_eq!(
                decode_in_chunks(stream.as_bytes(), size),
                whole,
                "chunk size {size}"
            );
        }
    }

    #[test]
    fn crlf_line_endings_and_a_missing_final_blank_line() {
        let events = decode_in_chunks(b"data: a\r\n\r\ndata: b", 3);
        assert_eq!(
            events.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
    }
}
