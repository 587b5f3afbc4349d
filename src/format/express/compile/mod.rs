//! Compiling one Express block into A2UI messages against the active catalogs.
//!
//! The notation means nothing without a catalog: positional arguments follow the property
//! order of the catalog document, a call is a component or a function depending on what the
//! catalog declares, and a property's schema decides whether a name is a child id, an
//! `Event` an action, or a `$path` a binding it admits. This module is that mapping; reading
//! the text is [`super::syntax`]'s and checking the result against the schemas is the
//! [`Validator`](crate::a2ui::Validator)'s.
//!
//! Under [`Dialect::Conformance`] a block compiles as the official compiler
//! (`a2ui-agent-sdk`, `a2ui.inference_formats.express`) compiles it, which the differential
//! test `tests/express_matches_official_sdk.rs` checks program by program; where that compiler
//! is wrong (README.md, "Express and the official SDK") this one refuses instead.
//!
//! The pieces: this file walks the statements into surfaces and their messages,
//! [`component`] compiles a component call and its checks, [`value`] every other value
//! (events, templates, function calls), and [`schema`] reads what a catalog says of a
//! property.

mod called;
mod component;
mod dotted;
mod error;
mod names;
mod orphans;
pub(super) mod schema;
mod value;

pub(crate) use error::CompileError;
pub use names::Redefined;

use serde_json::{Map, Value, json};

use super::Dialect;
use super::tree::{Call, Expr, ExprKind, Statement};
use crate::a2ui::{Catalog, ProtocolVersion, call_key, path_key};
use error::invalid;
use schema::{Slot, keyword_args, set_path, string_arg};

/// The arguments of `surface(..)`, in order (each may also be given by name).
pub(super) const SURFACE_ARGS: [&str; 4] = ["surfaceId", "catalogId", "sendDataModel", "update"];

/// What a block is compiled for.
pub(crate) struct Target<'a> {
    pub(crate) version: ProtocolVersion,
    pub(crate) catalogs: &'a [Catalog],
    pub(crate) dialect: Dialect,
    /// The surface a block without `surface(..)` is about.
    pub(crate) surface_id: &'a str,
    /// How a name defined twice in one surface's part of the block reads.
    pub(crate) redefined: Redefined,
}

/// What a block is made of, in order: surface scopes, deletions and standalone calls each
/// give their messages where they first appear.
enum Unit<'s, 'c> {
    Scope(Scope<'s, 'c>),
    Delete(String),
    Call(&'s Call, Option<usize>),
}

/// Compiles parsed statements into messages.
pub(crate) fn compile(
    target: &Target<'_>,
    statements: &[Statement],
) -> Result<Vec<Value>, CompileError> {
    let Some(version) = target.version.message_version() else {
        return Err(invalid(0, "Express targets A2UI v0.9 and later, not v0.8"));
    };
    let Some(default_catalog) = target.catalogs.first() else {
        return Err(invalid(0, "no catalog is active"));
    };
    // Read as the model meant it: dotted names as their owner's parts, defined names
    // called as names, names defined again apart, unplaced components listed.
    let (dotted, called, separate, placed);
    let statements: &[Statement] = match target.redefined {
        Redefined::Separate => {
            dotted = dotted::read(statements);
            called = called::read(&dotted, target.catalogs);
            separate = names::separate(&called);
            placed = orphans::place(&separate, target.catalogs);
            &placed
        }
        Redefined::Replace => {
            dotted::refuse(statements)?;
            statements
        }
    };
    let mut block = Block {
        target,
        version,
        path_key: path_key(target.version),
        call_key: call_key(target.version),
        calls: 0,
        inline: 0,
        messages: Vec::new(),
    };
    let mut units: Vec<Unit<'_, '_>> = Vec::new();
    // The unit index of the scope statements go to (a block's first assignment opens the
    // default surface's scope when no `surface(..)` line came before it).
    let mut current: Option<usize> = None;
    for statement in statements.iter() {
        match statement {
            Statement::Call(call) if call.name == "surface" => {
                units.push(Unit::Scope(block.open(call, default_catalog)?));
                current = Some(units.len() - 1);
            }
            Statement::Call(call) if call.name == "deleteSurface" => {
                units.push(Unit::Delete(deleted_surface(call)?));
            }
            Statement::Call(call) => units.push(Unit::Call(call, current)),
            Statement::Assign { name, value } => {
                let scope = block.scope_for(&mut units, &mut current, default_catalog);
                scope.symbols.assign(name, value);
            }
            Statement::Data { path, value } => {
                let scope = block.scope_for(&mut units, &mut current, default_catalog);
                scope.data.assign(path, value);
            }
        }
    }
    if units.is_empty() {
        return Err(invalid(0, "no component is named root"));
    }
    block.emit(&units, default_catalog)?;
    Ok(block.messages)
}

/// The id of the surface a `deleteSurface(..)` call deletes.
fn deleted_surface(call: &Call) -> Result<String, CompileError> {
    let args = keyword_args(call, &["surfaceId"])?;
    string_arg(call, args[0], "surfaceId")?.ok_or_else(|| {
        invalid(
            call.at,
            "deleteSurface(..) needs the id of the surface to delete",
        )
    })
}

/// Names in the order first assigned, each with the value assigned last (a later
/// assignment replaces an earlier one in place, as the official compiler's table does).
struct Symbols<'s> {
    entries: Vec<(&'s str, &'s Expr)>,
}

impl<'s> Symbols<'s> {
    fn assign(&mut self, name: &'s str, value: &'s Expr) {
        match self.entries.iter_mut().find(|(n, _)| *n == name) {
            Some(entry) => entry.1 = value,
            None => self.entries.push((name, value)),
        }
    }

    fn get(&self, name: &str) -> Option<&'s Expr> {
        self.entries
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, e)| *e)
    }
}

/// One surface's part of a block: what a `surface(..)` line (or the first assignment)
/// starts.
struct Scope<'s, 'c> {
    surface_id: String,
    catalog: &'c Catalog,
    /// The catalog id the block named (`None`: the default catalog's).
    named_catalog: Option<String>,
    /// `sendDataModel=` of the `surface(..)` line, for `createSurface`.
    send_data_model: Option<bool>,
    /// Whether a `surface(..)` line opened the scope.
    has_directive: bool,
    /// `update=true`: components update the surface even with a root.
    update: bool,
    symbols: Symbols<'s>,
    data: Symbols<'s>,
}

impl<'s, 'c> Scope<'s, 'c> {
    fn new(surface_id: &str, catalog: &'c Catalog, named: Option<String>) -> Self {
        Self {
            surface_id: surface_id.to_owned(),
            catalog,
            named_catalog: named,
            send_data_model: None,
            has_directive: false,
            update: false,
            symbols: Symbols {
                entries: Vec::new(),
            },
            data: Symbols {
                entries: Vec::new(),
            },
        }
    }
}

struct Block<'t> {
    target: &'t Target<'t>,
    version: &'static str,
    /// `path` or `@path`: how this version spells a binding.
    path_key: &'static str,
    /// `call` or `@call`: how this version names the function of a call.
    call_key: &'static str,
    calls: usize,
    inline: usize,
    messages: Vec<Value>,
}

/// What compiling a value needs to know.
struct Cx<'c, 's> {
    catalog: &'c Catalog,
    symbols: &'c Symbols<'s>,
    /// The component being compiled, for inline ids.
    parent: String,
    /// Components written inline in the one being compiled, compiled as they are met and
    /// emitted after it.
    inline: Vec<Value>,
    /// Components made whole while compiling a parent (a template a list holds, wrapped),
    /// emitted right after it.
    made: Vec<Value>,
    /// Inside an action: function calls there are wrapped as `functionCall`s, as the
    /// official compiler wraps them.
    in_action: bool,
    /// The component's own bound `value`, which checks receive.
    own: Option<Value>,
    /// Names being substituted (a cycle is an error, not a hang).
    resolving: Vec<String>,
}

impl<'c, 's> Cx<'c, 's> {
    fn new(catalog: &'c Catalog, symbols: &'c Symbols<'s>, parent: &str) -> Self {
        Self {
            catalog,
            symbols,
            parent: parent.to_owned(),
            inline: Vec::new(),
            made: Vec::new(),
            in_action: false,
            own: None,
            resolving: Vec::new(),
        }
    }
}

impl<'t> Block<'t> {
    fn dialect(&self) -> Dialect {
        self.target.dialect
    }

    /// The messages of `units`, in order: each scope's, each deletion, each standalone call.
    fn emit(&mut self, units: &[Unit<'_, '_>], default: &Catalog) -> Result<(), CompileError> {
        for unit in units {
            match unit {
                Unit::Scope(scope) => self.close(scope)?,
                Unit::Delete(id) => self
                    .messages
                    .push(json!({"version": self.version, "deleteSurface": {"surfaceId": id}})),
                Unit::Call(call, scope) => {
                    let scope = scope.and_then(|i| match &units[i] {
                        Unit::Scope(scope) => Some(scope),
                        _ => None,
                    });
                    self.standalone(scope, default, call)?;
                }
            }
        }
        Ok(())
    }

    /// The scope statements go to, opening the default surface's when there is none.
    fn scope_for<'u, 's, 'c>(
        &self,
        units: &'u mut Vec<Unit<'s, 'c>>,
        current: &mut Option<usize>,
        default: &'c Catalog,
    ) -> &'u mut Scope<'s, 'c> {
        let at = match *current {
            Some(at) => at,
            None => {
                units.push(Unit::Scope(Scope::new(
                    self.target.surface_id,
                    default,
                    None,
                )));
                units.len() - 1
            }
        };
        *current = Some(at);
        match &mut units[at] {
            Unit::Scope(scope) => scope,
            // `current` only ever holds the index of a scope.
            _ => unreachable!("the current unit is a scope"),
        }
    }

    /// `surface(id, catalogId)`: starts a scope.
    fn open<'s, 'c>(&self, call: &Call, default: &'c Catalog) -> Result<Scope<'s, 'c>, CompileError>
    where
        't: 'c,
    {
        let args = keyword_args(call, &SURFACE_ARGS)?;
        let id = match string_arg(call, args[0], "surfaceId")? {
            Some(id) => id,
            None if self.dialect() == Dialect::Conformance => self.target.surface_id.to_owned(),
            None => return Err(invalid(call.at, "surface(..) needs a surface id")),
        };
        let flag = |arg: Option<&Expr>, what: &str| match arg.map(|e| &e.kind) {
            None => Ok(None),
            Some(ExprKind::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(invalid(
                call.at,
                format!("surface(..): {what} is true or false"),
            )),
        };
        let send_data_model = flag(args[2], "sendDataModel")?;
        let update = flag(args[3], "update")?.unwrap_or(false);
        let mut scope = match string_arg(call, args[1], "catalogId")? {
            None => Scope::new(&id, default, None),
            Some(catalog_id) => match self
                .target
                .catalogs
                .iter()
                .find(|c| c.answers_to(&catalog_id))
            {
                Some(catalog) => Scope::new(&id, catalog, Some(catalog_id)),
                None if self.dialect() == Dialect::Proposal => {
                    Scope::new(&id, default, Some(catalog_id))
                }
                None => {
                    return Err(invalid(
                        call.at,
                        format!("catalog '{catalog_id}' is not one of the active catalogs"),
                    ));
                }
            },
        };
        scope.send_data_model = send_data_model;
        scope.has_directive = true;
        scope.update = update;
        Ok(scope)
    }

    /// Compiles a scope's components and data into its messages.
    fn close(&mut self, scope: &Scope<'_, '_>) -> Result<(), CompileError> {
        let mut components = Vec::new();
        for (name, value) in &scope.symbols.entries {
            if let ExprKind::Call(call) = &value.kind
                && self.is_component(scope.catalog, &call.name)
            {
                let mut cx = Cx::new(scope.catalog, &scope.symbols, name);
                let id = component::explicit_id(call)?.unwrap_or_else(|| (*name).to_owned());
                self.component(&mut cx, &id, call, &mut components)?;
            }
        }
        if self.dialect() == Dialect::Proposal
            && let Some(at) = components.iter().position(|c| c["id"] == "root")
        {
            let root = components.remove(at);
            components.insert(0, root);
        }
        let data = self.data(scope)?;
        self.surface_messages(scope, components, data)
    }

    /// The scope's data: the model its assignments build, and the one `updateDataModel`
    /// they send (a lone assignment below the root updates its own path).
    fn data(&mut self, scope: &Scope<'_, '_>) -> Result<Option<(Value, Value)>, CompileError> {
        if scope.data.entries.is_empty() {
            return Ok(None);
        }
        let mut model = json!({});
        let mut compiled = Vec::new();
        for (path, value) in &scope.data.entries {
            let mut cx = Cx::new(scope.catalog, &scope.symbols, "");
            let value = self.value(&mut cx, value, Slot::Other, "", None)?;
            let pointer = pointer(path);
            if pointer == "/" {
                if let (Value::Object(into), Value::Object(from)) = (&mut model, &value) {
                    into.extend(from.clone());
                }
            } else {
                set_path(&mut model, &pointer, value.clone());
            }
            compiled.push((pointer, value));
        }
        let update = match compiled.as_slice() {
            [(pointer, value)]
                if self.dialect() == Dialect::Conformance
                    && (pointer == "/" || pointer.matches('/').count() > 1) =>
            {
                (pointer.clone(), value.clone())
            }
            _ => ("/".to_owned(), model.clone()),
        };
        let message = json!({"version": self.version, "updateDataModel":
            {"surfaceId": scope.surface_id, "path": update.0, "value": update.1}});
        Ok(Some((model, message)))
    }

    fn surface_messages(
        &mut self,
        scope: &Scope<'_, '_>,
        components: Vec<Value>,
        data: Option<(Value, Value)>,
    ) -> Result<(), CompileError> {
        let version = self.version;
        let surface_id = scope.surface_id.as_str();
        let has_root = components.iter().any(|c| c["id"] == "root");
        let first_at = scope.symbols.entries.first().map_or(0, |(_, e)| e.at);
        let model_has_data = data
            .as_ref()
            .is_some_and(|(model, _)| model.as_object().is_none_or(|m| !m.is_empty()));
        if self.dialect() == Dialect::Conformance && (scope.update || !has_root) {
            if components.is_empty() {
                return match data {
                    Some((_, update)) => {
                        self.messages.push(update);
                        Ok(())
                    }
                    None => Err(invalid(first_at, "no component is named root")),
                };
            }
            if !scope.has_directive {
                return Err(invalid(first_at, "no component is named root"));
            }
            self.messages
                .push(json!({"version": version, "updateComponents":
                    {"surfaceId": surface_id, "components": components}}));
            if let (true, Some((_, update))) = (model_has_data, data) {
                self.messages.push(update);
            }
            return Ok(());
        }
        if !components.is_empty() && !has_root {
            return Err(invalid(first_at, "no component is named root"));
        }
        let catalog_id = match (&scope.named_catalog, self.dialect()) {
            (Some(named), _) => Some(named.clone()),
            (None, Dialect::Proposal) if self.target.version == ProtocolVersion::V1_0 => None,
            (None, _) => Some(scope.catalog.id().to_owned()),
        };
        let mut create = Map::new();
        create.insert("surfaceId".into(), json!(surface_id));
        if (has_root || self.target.version == ProtocolVersion::V1_0)
            && let Some(id) = &catalog_id
        {
            create.insert("catalogId".into(), json!(id));
        }
        if let Some(send) = scope.send_data_model {
            create.insert("sendDataModel".into(), json!(send));
        }
        if has_root && self.target.version == ProtocolVersion::V1_0 {
            create.insert("components".into(), Value::Array(components));
            if let (true, Some((model, _))) = (model_has_data, data) {
                create.insert("dataModel".into(), model);
            }
            self.messages
                .push(json!({"version": version, "createSurface": create}));
            return Ok(());
        }
        if has_root {
            self.messages
                .push(json!({"version": version, "createSurface": create}));
            self.messages
                .push(json!({"version": version, "updateComponents":
                    {"surfaceId": surface_id, "components": components}}));
        }
        match data {
            Some((_, update)) if model_has_data || !has_root => self.messages.push(update),
            _ => {}
        }
        Ok(())
    }

    /// A renderer function call on its own.
    fn standalone(
        &mut self,
        scope: Option<&Scope<'_, '_>>,
        default: &Catalog,
        call: &Call,
    ) -> Result<(), CompileError> {
        let version = self.version;
        if self.target.version != ProtocolVersion::V1_0 {
            return Err(invalid(
                call.at,
                format!(
                    "Standalone function calls are not supported in A2UI {}",
                    self.target.version.schema_family()
                ),
            ));
        }
        let empty = Symbols {
            entries: Vec::new(),
        };
        let (catalog, symbols) = match scope {
            Some(scope) => (scope.catalog, &scope.symbols),
            None => (default, &empty),
        };
        let mut cx = Cx::new(catalog, symbols, "");
        let mut call_id = None;
        let mut call = call.clone();
        if self.dialect() == Dialect::Conformance
            && let Some(at) = call
                .args
                .iter()
                .position(|a| a.name.as_deref() == Some("functionCallId"))
        {
            let arg = call.args.remove(at);
            match arg.value.kind {
                ExprKind::Str(id) if !id.is_empty() => call_id = Some(id),
                _ => {
                    return Err(invalid(
                        arg.value.at,
                        "functionCallId must be a non-empty string",
                    ));
                }
            }
        }
        let function = self.function(&mut cx, &call)?;
        if self.dialect() == Dialect::Proposal {
            self.messages
                .push(json!({"version": version, "callFunction": function}));
            return Ok(());
        }
        self.calls += 1;
        let mut function = function;
        if let Some(map) = function.as_object_mut() {
            map.insert("catalogId".into(), json!(catalog.id()));
        }
        let call_id = call_id.unwrap_or_else(|| format!("call_{}", self.calls));
        self.messages
            .push(json!({"version": version, "callRendererFunction": {
                "functionCallId": call_id,
                "callFunction": function,
            }}));
        Ok(())
    }
}

/// `$/a/b`, `$a/b`, `$/` or `$` as a JSON pointer: `/a/b`, `/a/b`, `/`, `/`.
fn pointer(path: &str) -> String {
    format!("/{}", path.strip_prefix('/').unwrap_or(path))
}
