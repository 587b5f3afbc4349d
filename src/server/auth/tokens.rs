//! Several callers, each with its own token: a table of tokens and the principals they
//! stand for, read from a file with one `PRINCIPAL TOKEN [tenant=T] [scopes=A,B]` line per
//! caller.
//!
//! A token is looked up by comparing it with every token of the table in time that depends
//! only on the offered token's length and the table's size, so timing tells nothing about
//! which token, or how much of one, matched. Tokens never appear in errors or logs: a bad
//! line is named by its number.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::request::Principal;

/// Tokens and the principals they authenticate (`serve --auth-tokens FILE`).
///
/// The file has one caller per line, its fields separated by white space:
///
/// ```text
/// # PRINCIPAL  TOKEN         [tenant=TENANT]  [scopes=SCOPE,SCOPE...]
/// alice        s3cret-a
/// bob          s3cret-b      tenant=acme
/// carol        s3cret-c      tenant=globex    scopes=read,book
/// ```
///
/// `tenant=` puts the caller in a tenant (see
/// [`ServerBuilder::tenants`](crate::server::ServerBuilder::tenants)); `scopes=` grants it
/// scopes, which the agent reads on its [`Request`](crate::request::Request) to authorize
/// its own actions. Either may come first; each at most once. Blank lines and lines
/// starting with `#` are skipped. A line of two fields means what it always did.
///
/// # Example
///
/// ```
/// use a2ui_agent::server::TokenTable;
///
/// let table = TokenTable::parse(
///     "# who   token\nalice  s3cret-a\nbob    s3cret-b  tenant=acme  scopes=read,book\n",
/// )
/// .unwrap();
/// assert_eq!(table.len(), 2);
/// assert!(TokenTable::parse("alice\n").is_err());
/// assert!(TokenTable::parse("alice s3cret tenant=\n").is_err());
/// ```
#[derive(Clone, Default)]
pub struct TokenTable {
    entries: Vec<(Principal, Box<[u8]>)>,
}

/// Why a token file was refused. Never holds a token.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TokenFileError {
    /// The file cannot be read.
    #[error("cannot read the token file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A line is not `PRINCIPAL TOKEN [tenant=T] [scopes=A,B]`.
    #[error("token file line {line}: expected `PRINCIPAL TOKEN [tenant=T] [scopes=A,B]`")]
    Malformed {
        /// The line number, from 1.
        line: usize,
    },
    /// A field after the token is not one `tenant=T` or one `scopes=A,B` with no empty
    /// name (the field is not shown: it may be a mistyped token).
    #[error(
        "token file line {line}, field {field}: expected one `tenant=TENANT` and one \
         `scopes=SCOPE,...`, none empty"
    )]
    BadField {
        /// The line number, from 1.
        line: usize,
        /// The field's place on the line, from 1 (the token is field 2).
        field: usize,
    },
    /// A token is given twice: it could not tell its principals apart.
    #[error("token file line {line}: this token is already given on an earlier line")]
    Duplicate {
        /// The line number, from 1.
        line: usize,
    },
    /// The file gives no token at all: nobody could call the agent.
    #[error("the token file gives no token")]
    Empty,
}

impl fmt::Debug for TokenTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|(principal, _)| principal.id()))
            .finish()
    }
}

impl TokenTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// This table with `token` standing for `principal`.
    #[must_use]
    pub fn with(mut self, principal: Principal, token: impl AsRef<[u8]>) -> Self {
        self.entries.push((principal, token.as_ref().into()));
        self
    }

    /// Reads a table: one `PRINCIPAL TOKEN [tenant=T] [scopes=A,B]` line per caller (see
    /// the [type's docs](Self)), fields separated by white space; blank lines and lines
    /// starting with `#` are skipped.
    ///
    /// # Errors
    ///
    /// [`TokenFileError`] naming the line (never its token) for a line without a principal
    /// and a token, a field after them that is not one `tenant=` or one `scopes=`, a token
    /// given twice, or no token at all.
    pub fn parse(text: &str) -> Result<Self, TokenFileError> {
        let mut table = Self::new();
        for (index, line) in text.lines().enumerate() {
            let line_number = index + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut fields = line.split_whitespace();
            let (Some(principal), Some(token)) = (fields.next(), fields.next()) else {
                return Err(TokenFileError::Malformed { line: line_number });
            };
            let principal = with_fields(Principal::new(principal), fields, line_number)?;
            if table.find(token.as_bytes()).is_some() {
                return Err(TokenFileError::Duplicate { line: line_number });
            }
            table = table.with(principal, token);
        }
        if table.entries.is_empty() {
            return Err(TokenFileError::Empty);
        }
        Ok(table)
    }

    /// Reads the table in file `path` (see [`parse`](Self::parse)).
    ///
    /// # Errors
    ///
    /// [`TokenFileError`] when the file cannot be read or does not parse.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, TokenFileError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| TokenFileError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text)
    }

    /// How many tokens the table holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table holds no token.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The principal `offered` stands for. Every token is compared, whatever matches.
    pub(crate) fn find(&self, offered: &[u8]) -> Option<&Principal> {
        let mut found = None;
        for (principal, token) in &self.entries {
            if same_secret(offered, token) {
                found = Some(principal);
            }
        }
        found
    }
}

/// `principal` with the `tenant=` and `scopes=` fields after the token of line `line`.
fn with_fields<'a>(
    mut principal: Principal,
    fields: impl Iterator<Item = &'a str>,
    line: usize,
) -> Result<Principal, TokenFileError> {
    let (mut tenant, mut scopes) = (false, false);
    for (index, field) in fields.enumerate() {
        let bad = TokenFileError::BadField {
            line,
            field: index + 3,
        };
        match field.split_once('=') {
            Some(("tenant", name)) if !tenant && !name.is_empty() => {
                tenant = true;
                principal = principal.with_tenant(name);
            }
            Some(("scopes", list)) if !scopes && list.split(',').all(|s| !s.is_empty()) => {
                scopes = true;
                principal = principal.with_scopes(list.split(','));
            }
            _ => return Err(bad),
        }
    }
    Ok(principal)
}

/// Whether `offered` is `secret`, in time that depends only on `offered`'s length (neither
/// where the first difference is, nor the secret's length).
pub(super) fn same_secret(offered: &[u8], secret: &[u8]) -> bool {
    if secret.is_empty() {
        return false;
    }
    let mut diff = offered.len() ^ secret.len();
    for (index, byte) in offered.iter().enumerate() {
        diff |= usize::from(byte ^ secret[index % secret.len()]);
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_match_only_when_equal() {
        assert!(same_secret(b"s3cret", b"s3cret"));
        assert!(!same_secret(b"s3creT", b"s3cret"));
        assert!(!same_secret(b"s3cre", b"s3cret"));
        assert!(!same_secret(b"s3crets3cret", b"s3cret"));
        assert!(!same_secret(b"", b"s3cret"));
        assert!(!same_secret(b"", b""));
    }

    #[test]
    fn a_token_file_maps_each_token_to_its_principal() {
        let table = TokenTable::parse("alice a-token\n\n  # comment\nbob\tb-token\n").unwrap();
        assert_eq!(table.find(b"a-token").map(Principal::id), Some("alice"));
        assert_eq!(table.find(b"b-token").map(Principal::id), Some("bob"));
        assert!(table.find(b"c-token").is_none());
        assert!(!format!("{table:?}").contains("token"), "{table:?}");
    }

    #[test]
    fn a_line_may_give_its_callers_tenant_and_scopes_in_either_order() {
        let table = TokenTable::parse(
            "alice a-token tenant=acme scopes=read,book\nbob b-token scopes=read tenant=globex\n\
             carol c-token\n",
        )
        .unwrap();
        let alice = table.find(b"a-token").unwrap();
        assert_eq!(
            (alice.id(), alice.tenant(), alice.scopes()),
            (
                "alice",
                Some("acme"),
                &["read".to_owned(), "book".to_owned()][..]
            )
        );
        let bob = table.find(b"b-token").unwrap();
        assert_eq!(
            (bob.tenant(), bob.scopes()),
            (Some("globex"), &["read".to_owned()][..])
        );
        let carol = table.find(b"c-token").unwrap();
        assert_eq!((carol.tenant(), carol.scopes()), (None, &[][..]));
    }

    #[test]
    fn bad_fields_are_refused_by_line_and_place_without_showing_them() {
        for (text, field) in [
            ("a x tenant=\n", 3),
            ("a x scopes=\n", 3),
            ("a x scopes=read,,book\n", 3),
            ("a x tenant=t tenant=u\n", 4),
            ("a x scopes=a scopes=b\n", 4),
            ("a x tenant=t secret-looking-thing\n", 4),
            ("a x role=admin\n", 3),
        ] {
            let error = TokenTable::parse(&format!("# callers\n{text}")).unwrap_err();
            assert!(
                matches!(error, TokenFileError::BadField { line: 2, field: f } if f == field),
                "{text:?}: {error:?}"
            );
            let message = error.to_string();
            assert!(message.contains("line 2"), "{message}");
            assert!(!message.contains("secret-looking"), "{message}");
            assert!(!message.contains(" x "), "{message}");
        }
    }

    #[test]
    fn bad_token_files_are_refused_by_line_without_showing_the_token() {
        let error = TokenFileError::BadField { line: 2, field: 3 };
        assert!(
            matches!(TokenTable::parse("a x\nb y z\n"), Err(e) if e.to_string() == error.to_string())
        );
        assert!(matches!(
            TokenTable::parse("a x\nb\n"),
            Err(TokenFileError::Malformed { line: 2 })
        ));
        let duplicate = TokenTable::parse("a same\nb same\n").unwrap_err();
        assert!(matches!(duplicate, TokenFileError::Duplicate { line: 2 }));
        assert!(!duplicate.to_string().contains("same"));
        assert!(matches!(
            TokenTable::parse("# none\n"),
            Err(TokenFileError::Empty)
        ));
    }
}
