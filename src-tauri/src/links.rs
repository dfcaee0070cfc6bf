//! `colmena://` links (issue 16): what a link another program hands to the
//! app — a browser, a file manager, a second launch — may open.
//!
//! Why so narrow: a link is text from outside. It only ever becomes a place
//! in the window (the hash route the UI already understands), never a
//! command: a known view, and at most one section made of the characters
//! ids are made of. Anything else is refused with `unsupported_link`.

use colmena_core::{AppError, Result};
use tauri::Url;

/// The scheme the installers register.
pub const SCHEME: &str = "colmena";

/// The views a link may open (the UI's `VIEWS`).
const VIEWS: [&str; 9] = [
    "activity", "canvas", "catalog", "swarms", "chat", "inbox", "cron", "memory", "settings",
];

/// The view the window opens on when it has no place to go back to (the
/// UI's `DEFAULT_VIEW`).
pub const DEFAULT_VIEW: &str = "canvas";

/// Longest section (an id, a role, a settings page) a link may carry.
const MAX_SECTION: usize = 128;

/// The hash route (`#/canvas/<id>`) for a `colmena://` link.
pub fn route_for(link: &str) -> Result<String> {
    let refuse = |why: &str| {
        AppError::invalid_field("link", "unsupported_link", format!("{why}: {link:.200}"))
    };
    if link.len() > 2_000 {
        return Err(refuse("the link is too long"));
    }
    let url = Url::parse(link).map_err(|_| refuse("not a link"))?;
    if url.scheme() != SCHEME {
        return Err(refuse("not a colmena:// link"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(refuse("a link carries no query or fragment"));
    }
    let view = url.host_str().unwrap_or_default();
    if !VIEWS.contains(&view) {
        return Err(refuse("Colmena has no such view"));
    }
    let parts: Vec<&str> = url
        .path_segments()
        .map(|segments| segments.filter(|s| !s.is_empty()).collect())
        .unwrap_or_default();
    match parts.as_slice() {
        [] => Ok(format!("#/{view}")),
        [section] if is_section(section) => Ok(format!("#/{view}/{section}")),
        _ => Err(refuse("a link names a view and at most one item")),
    }
}

/// A route the UI may ask to be remembered or that a link produced.
pub fn is_route(route: &str) -> bool {
    let Some(rest) = route.strip_prefix("#/") else {
        return false;
    };
    let mut parts = rest.splitn(2, '/');
    let view = parts.next().unwrap_or_default();
    VIEWS.contains(&view) && parts.next().is_none_or(is_section)
}

/// The view a route (`#/canvas/<id>`) opens, if it is a route.
pub fn view_of(route: &str) -> Option<&'static str> {
    if !is_route(route) {
        return None;
    }
    let view = route.strip_prefix("#/")?.split('/').next()?;
    VIEWS.iter().copied().find(|v| *v == view)
}

fn is_section(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= MAX_SECTION
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '@' | ':'))
        && text != "."
        && text != ".."
}

/// The first `colmena://` link among a launch's arguments, as a route;
/// a bad link is logged and skipped.
pub fn route_in_args<S: AsRef<str>>(args: &[S]) -> Option<String> {
    args.iter()
        .map(AsRef::as_ref)
        .filter(|arg| arg.starts_with("colmena:"))
        .find_map(|arg| match route_for(arg) {
            Ok(route) => Some(route),
            Err(err) => {
                tracing::warn!("{}", err.message);
                None
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_views_and_the_default_view_are_the_uis() {
        let views_ts = include_str!("../../ui/src/app/views.ts");
        let ids: Vec<&str> = views_ts
            .split("{ id: \"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect();
        assert_eq!(ids, VIEWS, "ui/src/app/views.ts lists other views");
        assert!(
            views_ts.contains(&format!("DEFAULT_VIEW: ViewId = \"{DEFAULT_VIEW}\"")),
            "the UI's DEFAULT_VIEW is not {DEFAULT_VIEW}"
        );
    }

    #[test]
    fn a_route_names_its_view() {
        assert_eq!(view_of("#/canvas/01a2-b3"), Some("canvas"));
        assert_eq!(view_of("#/settings"), Some("settings"));
        assert_eq!(view_of("#/nowhere"), None);
        assert_eq!(view_of("#/canvas/a b"), None);
        assert_eq!(view_of("canvas"), None);
    }

    #[test]
    fn a_canvas_link_opens_that_canvas() {
        assert_eq!(
            route_for("colmena://canvas/01a2-b3").unwrap(),
            "#/canvas/01a2-b3"
        );
        assert_eq!(route_for("colmena://inbox").unwrap(), "#/inbox");
        assert_eq!(
            route_for("colmena://memory/@redactora/").unwrap(),
            "#/memory/@redactora"
        );
    }

    #[test]
    fn links_that_are_not_a_place_in_the_window_are_refused() {
        for bad in [
            "https://canvas/1",
            "colmena://shell/rm",
            "colmena://canvas/a/b",
            "colmena://canvas/%3Cscript%3E",
            "colmena://canvas/a?x=<b>",
            "javascript:alert(1)",
            "colmena:canvas",
        ] {
            let err = route_for(bad).unwrap_err();
            assert_eq!(err.code.as_str(), "validation", "{bad}");
            assert_eq!(err.details.as_ref().unwrap()["reason"], "unsupported_link");
        }
        // A path that climbs is normalised by the URL parser: it stays in the view.
        assert_eq!(
            route_for("colmena://canvas/../../etc").unwrap(),
            "#/canvas/etc"
        );
        let long = format!("colmena://canvas/{}", "a".repeat(200));
        assert!(route_for(&long).is_err());
    }

    #[test]
    fn only_routes_to_a_view_are_remembered() {
        assert!(is_route("#/canvas/abc"));
        assert!(is_route("#/settings"));
        assert!(!is_route("#/canvas/a/b"));
        assert!(!is_route("#/nowhere"));
        assert!(!is_route("javascript:alert(1)"));
        assert!(!is_route("#/canvas/<img>"));
    }

    #[test]
    fn the_first_good_link_among_the_arguments_wins() {
        let args = ["--data-dir", "/x", "colmena://nope", "colmena://canvas/c1"];
        assert_eq!(route_in_args(&args).as_deref(), Some("#/canvas/c1"));
        assert_eq!(route_in_args(&["file.md"]), None);
    }
}
