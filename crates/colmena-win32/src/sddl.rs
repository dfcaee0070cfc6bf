//! The access lists Colmena sets, as SDDL text (Windows' security
//! descriptor language), made here so they can be read and tested on any
//! OS. Each is protected (`P`: nothing inherited from the parent) and has
//! one entry: full access for this user's SID. Nobody else — other users,
//! the administrators' group, SYSTEM, a sandboxed program's restricted
//! token — is granted anything.

use crate::Object;

/// A SID in its text form (`S-1-5-21-…`), checked so that nothing else can
/// be spliced into an access list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sid(String);

/// Text that is not a SID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotASid(pub String);

impl std::fmt::Display for NotASid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "'{}' is not a SID (S-1-…)", self.0)
    }
}

impl std::error::Error for NotASid {}

impl Sid {
    /// `S-1-` followed by dash-separated decimal numbers: the form
    /// `ConvertSidToStringSidW` writes.
    pub fn parse(text: &str) -> Result<Sid, NotASid> {
        let rest = text
            .strip_prefix("S-1-")
            .ok_or_else(|| NotASid(text.to_owned()))?;
        let numbers_only = rest.split('-').all(|part| {
            !part.is_empty() && part.len() <= 10 && part.bytes().all(|b| b.is_ascii_digit())
        });
        let parts = rest.split('-').count();
        if numbers_only && (1..=16).contains(&parts) {
            Ok(Sid(text.to_owned()))
        } else {
            Err(NotASid(text.to_owned()))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The access list of a private file or folder of `owner`: `FA` (all file
/// access); for a folder, inherited by the files (`OI`) and folders (`CI`)
/// made in it.
pub fn owner_only(owner: &Sid, object: Object) -> String {
    let inherit = match object {
        Object::File => "",
        Object::Folder => "OICI",
    };
    format!("D:P(A;{inherit};FA;;;{})", owner.as_str())
}

/// The access list of the single-instance pipe of `owner`: `GA` (all
/// access), so the app's other launches, run by the same user, can connect
/// and nobody else can.
pub fn owner_only_pipe(owner: &Sid) -> String {
    format!("D:P(A;;GA;;;{})", owner.as_str())
}

/// The entries of an SDDL access list (`A;OICI;FA;;;S-1-…` for each
/// `(…)`), for reading one back.
pub fn entries(list: &str) -> Vec<&str> {
    list.split('(')
        .skip(1)
        .map(|entry| entry.trim_end_matches(')'))
        .collect()
}

/// True when the list inherits nothing from the parent (`D:P…`).
pub fn is_protected(list: &str) -> bool {
    list.strip_prefix("D:")
        .is_some_and(|flags| flags.split('(').next().is_some_and(|f| f.contains('P')))
}

#[cfg(test)]
mod tests {
    use super::*;

    const USER: &str = "S-1-5-21-3623811015-3361044348-30300820-1013";

    #[test]
    fn a_folder_grants_its_owner_everything_and_its_children_inherit_it() {
        let sid = Sid::parse(USER).unwrap();
        assert_eq!(
            owner_only(&sid, Object::Folder),
            format!("D:P(A;OICI;FA;;;{USER})")
        );
    }

    #[test]
    fn a_file_grants_its_owner_everything_and_nothing_is_inherited() {
        let sid = Sid::parse(USER).unwrap();
        assert_eq!(
            owner_only(&sid, Object::File),
            format!("D:P(A;;FA;;;{USER})")
        );
    }

    #[test]
    fn the_pipe_grants_its_owner_alone() {
        let sid = Sid::parse(USER).unwrap();
        let pipe = owner_only_pipe(&sid);
        assert_eq!(pipe, format!("D:P(A;;GA;;;{USER})"));
        // One entry, protected, and none for the well-known groups.
        assert_eq!(pipe.matches("(A;").count(), 1);
        for other in ["WD", "BA", "SY", "AU", "BU", "S-1-1-0"] {
            assert!(!pipe.contains(other), "{other} in {pipe}");
        }
    }

    #[test]
    fn a_list_read_back_is_split_into_its_entries() {
        let list = format!("D:PAI(A;OICI;FA;;;{USER})(A;;0x1200a9;;;WD)");
        assert_eq!(
            entries(&list),
            [format!("A;OICI;FA;;;{USER}").as_str(), "A;;0x1200a9;;;WD"]
        );
        assert!(is_protected(&list));
        assert!(is_protected(&format!("D:P(A;;FA;;;{USER})")));
        assert!(!is_protected(&format!("D:AI(A;ID;FA;;;{USER})")));
        assert!(!is_protected("D:(A;;FA;;;SY)"));
        assert!(entries("D:").is_empty());
    }

    #[test]
    fn only_a_sid_can_be_put_in_a_list() {
        for sid in ["S-1-5-18", USER, "S-1-5-21-1-2-3-500"] {
            assert!(Sid::parse(sid).is_ok(), "{sid}");
        }
        for not in [
            "",
            "S-1-",
            "S-1-5-",
            "s-1-5-18",
            "S-1-5-18)(A;;FA;;;WD",
            "S-1-5-x",
            "BA",
            "S-1-5--18",
            "S-1-5-12345678901",
        ] {
            assert_eq!(Sid::parse(not), Err(NotASid(not.to_owned())), "{not}");
        }
    }
}
