//! Whose a task is: the caller that created it, within its tenant.
//!
//! Every store call carries an [`Owner`], and a store answers only with the tasks of that
//! owner: another owner's task reads as one that does not exist. Scoping lives in the store
//! (inside its lock, or in its SQL `WHERE`) rather than after a fetch, so no code path can
//! hand one caller's task to another by forgetting a check.

use std::fmt;

/// The owner of a task: an opaque caller id and, optionally, the tenant it acts in.
///
/// Two owners are the same when both their principal and their tenant are. Without any
/// authentication every caller is [`Owner::anonymous`].
///
/// # Example
///
/// ```
/// use a2ui_agent::store::Owner;
///
/// let alice = Owner::new("alice").with_tenant("acme");
/// assert_ne!(alice, Owner::new("alice"));
/// assert!(Owner::anonymous().is_anonymous());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Owner {
    principal: String,
    tenant: Option<String>,
}

impl Owner {
    /// The owner `principal`, in no tenant.
    pub fn new(principal: impl Into<String>) -> Self {
        Self {
            principal: principal.into(),
            tenant: None,
        }
    }

    /// The one owner of every task when no caller is authenticated.
    pub fn anonymous() -> Self {
        Self::default()
    }

    /// This owner within `tenant`.
    #[must_use]
    pub fn with_tenant(mut self, tenant: impl Into<String>) -> Self {
        self.tenant = Some(tenant.into());
        self
    }

    /// The caller's id.
    pub fn principal(&self) -> &str {
        &self.principal
    }

    /// The tenant, if any.
    pub fn tenant(&self) -> Option<&str> {
        self.tenant.as_deref()
    }

    /// Whether this is the anonymous owner.
    pub fn is_anonymous(&self) -> bool {
        self.principal.is_empty() && self.tenant.is_none()
    }

    /// The owner as one string, the form a database keeps: empty for the anonymous owner
    /// (the default of rows written before owners existed), else the tenant and the
    /// principal, each prefixed with its length so that no two owners share a key. The
    /// format is kept in databases: it never changes.
    pub fn key(&self) -> String {
        if self.is_anonymous() {
            return String::new();
        }
        let tenant = self.tenant.as_deref().unwrap_or("");
        let marker = if self.tenant.is_some() { "t" } else { "-" };
        format!(
            "{marker}{}:{tenant}{}:{}",
            tenant.len(),
            self.principal.len(),
            self.principal
        )
    }
}

impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.tenant {
            Some(tenant) => write!(f, "{tenant}/{}", self.principal),
            None if self.principal.is_empty() => f.write_str("anonymous"),
            None => f.write_str(&self.principal),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_tell_every_owner_apart() {
        let owners = [
            Owner::anonymous(),
            Owner::new("a"),
            Owner::new("a").with_tenant(""),
            Owner::new("").with_tenant("a"),
            Owner::new("b:1").with_tenant("x"),
            Owner::new("1").with_tenant("x:b"),
        ];
        let keys: std::collections::HashSet<String> = owners.iter().map(Owner::key).collect();
        assert_eq!(keys.len(), owners.len());
        assert_eq!(Owner::anonymous().key(), "");
    }
}
