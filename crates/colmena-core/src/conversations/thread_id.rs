//! Conversation ids (SPEC H39): `{user}/{channel}/{peer}` — one thread per
//! user, channel and contact. Segments are sanitised so that a `/` or `:`
//! inside a peer (an email, a URL, a `tg:123` handle) can never change how
//! the id parses. A legacy thread's id is the bare user id; it is not
//! structured but stays readable.

const SEPARATOR: char = '/';
const MAX_SEGMENT: usize = 128;

/// Makes a value safe as one segment: `/`, `:`, whitespace and control
/// characters become `_`; empty becomes `_`; long values are cut.
pub fn sanitize_segment(value: &str) -> String {
    let cleaned: String = value
        .trim()
        .chars()
        .map(|c| {
            if c == '/' || c == ':' || c.is_whitespace() || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .take(MAX_SEGMENT)
        .collect();
    if cleaned.is_empty() {
        "_".to_owned()
    } else {
        cleaned
    }
}

pub fn make_thread_id(user: &str, channel: &str, peer: &str) -> String {
    format!(
        "{}{SEPARATOR}{}{SEPARATOR}{}",
        sanitize_segment(user),
        sanitize_segment(channel),
        sanitize_segment(peer)
    )
}

/// The three parts of a structured id, or `None` when it is not one.
pub fn parse_thread_id(id: &str) -> Option<(String, String, String)> {
    let mut parts = id.split(SEPARATOR);
    let (user, channel, peer) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let valid = |s: &str| !s.is_empty() && sanitize_segment(s) == s;
    (valid(user) && valid(channel) && valid(peer))
        .then(|| (user.to_owned(), channel.to_owned(), peer.to_owned()))
}

pub fn is_structured_thread_id(id: &str) -> bool {
    parse_thread_id(id).is_some()
}

/// A new conversation in the web (desktop) channel.
pub fn new_web_conversation_id(user: &str) -> String {
    make_thread_id(user, "web", &format!("c-{}", uuid::Uuid::now_v7().simple()))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn h39_a_colon_or_slash_in_a_peer_does_not_break_parsing() {
        let id = make_thread_id("ana", "email", "ana@example.com/inbox:1");
        assert_eq!(id, "ana/email/ana@example.com_inbox_1");
        assert_eq!(
            parse_thread_id(&id),
            Some((
                "ana".into(),
                "email".into(),
                "ana@example.com_inbox_1".into()
            ))
        );
    }

    #[test]
    fn h39_legacy_and_malformed_ids_are_not_structured() {
        assert!(!is_structured_thread_id("ana"));
        assert!(!is_structured_thread_id("ana/web"));
        assert!(!is_structured_thread_id("a/b/c/d"));
        assert!(!is_structured_thread_id("a//c"));
        assert!(!is_structured_thread_id("a/b c/d"));
        assert!(is_structured_thread_id(&new_web_conversation_id("ana")));
    }

    proptest! {
        #[test]
        fn h39_make_then_parse_round_trips(user in ".{0,40}", channel in ".{0,20}", peer in ".{0,60}") {
            let id = make_thread_id(&user, &channel, &peer);
            let parsed = parse_thread_id(&id);
            prop_assert_eq!(parsed, Some((sanitize_segment(&user), sanitize_segment(&channel), sanitize_segment(&peer))));
        }

        #[test]
        fn h39_sanitized_segments_never_hold_a_separator(value in ".{0,200}") {
            let segment = sanitize_segment(&value);
            prop_assert!(!segment.contains('/') && !segment.contains(':'));
            prop_assert!(!segment.is_empty());
            prop_assert_eq!(sanitize_segment(&segment), segment.clone());
        }

        #[test]
        fn h39_parsing_anything_never_panics(id in ".{0,100}") {
            let _ = parse_thread_id(&id);
        }
    }
}
