//! A block as read: its statements and their expressions, each with the byte offset it
//! starts at, so that an error found while compiling can point at what the model wrote.
//!
//! The grammar (`syntax`) builds it; the compiler's passes (`compile`) walk and rewrite it
//! before turning it into messages. [`Expr::each_child`] is the one place that knows which
//! kinds of expression hold others.

/// One statement of a block.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Statement {
    /// `name = expr`: a component, or a value substituted where `name` is used. A component
    /// whose id is not a name says so: `header_1 = Text("Hi", id="header-1")`.
    Assign { name: String, value: Expr },
    /// `$/path = expr`: a data model value.
    Data { path: String, value: Expr },
    /// A call on its own: `surface(..)`, `deleteSurface(..)` or a renderer function.
    Call(Call),
}

impl Statement {
    /// Calls `f` on each expression the statement holds: an assignment's value, a call's
    /// arguments.
    pub(crate) fn each_value<'s>(&'s self, mut f: impl FnMut(&'s Expr)) {
        match self {
            Statement::Assign { value, .. } | Statement::Data { value, .. } => f(value),
            Statement::Call(call) => call.args.iter().for_each(|arg| f(&arg.value)),
        }
    }

    /// [`each_value`](Self::each_value), mutably.
    pub(crate) fn each_value_mut(&mut self, mut f: impl FnMut(&mut Expr)) {
        match self {
            Statement::Assign { value, .. } | Statement::Data { value, .. } => f(value),
            Statement::Call(call) => call.args.iter_mut().for_each(|arg| f(&mut arg.value)),
        }
    }
}

/// An expression with the offset (in the block) it starts at.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Expr {
    pub(crate) at: usize,
    pub(crate) kind: ExprKind,
}

impl Expr {
    /// Calls `f` on each expression directly inside this one, saying whether it is an item
    /// of a list: the one place that knows which kinds hold others, for the walks over a
    /// block's expressions.
    pub(crate) fn each_child<'e>(&'e self, mut f: impl FnMut(&'e Expr, bool)) {
        match &self.kind {
            ExprKind::Array(items) => items.iter().for_each(|item| f(item, true)),
            ExprKind::Map(entries) => entries.iter().for_each(|(_, value)| f(value, false)),
            ExprKind::Call(call) | ExprKind::Check(call) => {
                call.args.iter().for_each(|arg| f(&arg.value, false));
            }
            _ => {}
        }
    }

    /// [`each_child`](Self::each_child), mutably.
    pub(crate) fn each_child_mut(&mut self, mut f: impl FnMut(&mut Expr, bool)) {
        match &mut self.kind {
            ExprKind::Array(items) => items.iter_mut().for_each(|item| f(item, true)),
            ExprKind::Map(entries) => entries.iter_mut().for_each(|(_, value)| f(value, false)),
            ExprKind::Call(call) | ExprKind::Check(call) => {
                call.args
                    .iter_mut()
                    .for_each(|arg| f(&mut arg.value, false));
            }
            _ => {}
        }
    }

    /// Whether this is a reference to `name`.
    pub(crate) fn is_name(&self, name: &str) -> bool {
        matches!(&self.kind, ExprKind::Name(n) if n == name)
    }
}

/// What an expression is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ExprKind {
    Str(String),
    Number(serde_json::Number),
    Bool(bool),
    Null,
    /// `_`: an argument left out.
    Skip,
    /// `$...`: the text after the `$`.
    Path(String),
    Name(String),
    Array(Vec<Expr>),
    Map(Vec<(String, Expr)>),
    Call(Call),
    /// `?name` or `?name(args)`.
    Check(Call),
}

/// `name(args)`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Call {
    pub(crate) at: usize,
    pub(crate) name: String,
    pub(crate) args: Vec<Arg>,
}

/// A positional (`name` `None`) or keyword argument.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Arg {
    pub(crate) name: Option<String>,
    pub(crate) value: Expr,
}
