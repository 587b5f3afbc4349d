//! Compiling one Express block into A2UI messages against the active catalogs.
//!
//! The notation means nothing without a catalog: positional arguments follow the property
//! order of the catalog document, a call is a component or a function depending on what the
//! catalog declares, and a property's schema decides whether a name is a child id, an
//! `Event` an action, or a `$path` a binding it admits. This module is that mapping; reading
//! the text is [`super::syntax`]'s and checking the result against the schemas is the
//! [`Validator`](crate::a2ui::Validator)'s.

use serde_json::{Map, Value, json};

use super::Dialect;
use super::syntax::{Arg, Call, Expr, ExprKind, Statement};
use crate::a2ui::{Catalog, ProtocolVersion, call_key, path_key};

/// Why a block does not compile, at a byte offset of the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CompileError {
    /// `true`: the text cannot be read (a parse error); `false`: it reads but names what the
    /// catalog does not declare (a validation error).
    pub(crate) syntax: bool,
    pub(crate) message: String,
    pub(crate) at: usize,
}

fn invalid(at: usize, message: impl Into<String>) -> CompileError {
    CompileError {
        syntax: false,
        message: message.into(),
        at,
    }
}

/// What a block is compiled for.
pub(crate) struct Target<'a> {
    pub(crate) version: ProtocolVersion,
    pub(crate) catalogs: &'a [Catalog],
    pub(crate) dialect: Dialect,
    /// The surface a block without `surface(..)` is about.
    pub(crate) surface_id: &'a str,
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
    let mut block = Block {
        target,
        version,
        path_key: path_key(target.version),
        call_key: call_key(target.version),
        calls: 0,
        inline: 0,
        messages: Vec::new(),
    };
    let mut scope = Scope::new(target.surface_id, default_catalog, None);
    for statement in statements {
        match statement {
            Statement::Call(call) if call.name == "surface" => {
                block.close(std::mem::take(&mut scope.statements), &scope)?;
                scope = block.open(call, default_catalog)?;
            }
            other => scope.statements.push(other.clone()),
        }
    }
    block.close(std::mem::take(&mut scope.statements), &scope)?;
    Ok(block.messages)
}

/// One surface's part of a block: what a `surface(..)` line starts.
struct Scope<'a> {
    surface_id: String,
    catalog: &'a Catalog,
    /// The catalog id the block named (`None`: the default catalog's).
    named_catalog: Option<String>,
    /// `sendDataModel=` of the `surface(..)` line, for `createSurface`.
    send_data_model: Option<bool>,
    statements: Vec<Statement>,
}

impl<'a> Scope<'a> {
    fn new(surface_id: &str, catalog: &'a Catalog, named: Option<String>) -> Self {
        Self {
            surface_id: surface_id.to_owned(),
            catalog,
            named_catalog: named,
            send_data_model: None,
            statements: Vec::new(),
        }
    }
}

/// The names a scope assigns: components (by id) and values (substituted where named).
struct Names<'s> {
    components: Vec<(&'s str, &'s Call)>,
    values: Vec<(&'s str, &'s Expr)>,
}

impl<'s> Names<'s> {
    fn value(&self, name: &str) -> Option<&'s Expr> {
        self.values
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, e)| *e)
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

/// Where a value goes, which decides how it compiles.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Slot {
    Child,
    ChildList,
    Action,
    Dynamic,
    /// A plain typed property (`string`, `number`, ..): no binding admitted.
    Static,
    Other,
}

/// What compiling a component property needs to know.
struct Cx<'c, 's> {
    catalog: &'c Catalog,
    names: &'c Names<'s>,
    /// The component being compiled, for inline ids.
    parent: &'c str,
    /// Inline components waiting to be emitted after their parent.
    pending: Vec<(String, &'s Call)>,
    /// The component's own bound value, which checks receive.
    own: Option<Value>,
    /// Names being substituted (a cycle is an error, not a hang).
    resolving: Vec<String>,
}

impl<'t> Block<'t> {
    fn dialect(&self) -> Dialect {
        self.target.dialect
    }

    /// `surface(id, catalogId)`: starts a scope.
    fn open<'c>(&self, call: &Call, default: &'c Catalog) -> Result<Scope<'c>, CompileError>
    where
        't: 'c,
    {
        let args = keyword_args(call, &["surfaceId", "catalogId", "sendDataModel"])?;
        let id = string_arg(call, args[0], "surfaceId")?
            .ok_or_else(|| invalid(call.at, "surface(..) needs a surface id"))?;
        let send_data_model = match args[2].map(|e| &e.kind) {
            None => None,
            Some(ExprKind::Bool(b)) => Some(*b),
            Some(_) => {
                return Err(invalid(
                    call.at,
                    "surface(..): sendDataModel is true or false",
                ));
            }
        };
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
        Ok(scope)
    }

    /// Compiles a scope's statements into its messages.
    fn close(&mut self, statements: Vec<Statement>, scope: &Scope<'_>) -> Result<(), CompileError> {
        let mut names = Names {
            components: Vec::new(),
            values: Vec::new(),
        };
        for statement in &statements {
            if let Statement::Assign { name, value } = statement {
                match &value.kind {
                    ExprKind::Call(call) if is_component(scope.catalog, &call.name) => {
                        names.components.push((name, call));
                    }
                    _ => names.values.push((name, value)),
                }
            }
        }
        let mut components = Vec::new();
        for (id, call) in &names.components {
            self.component(scope.catalog, &names, id, call, &mut components)?;
        }
        if let Some(at) = components.iter().position(|c| c["id"] == "root") {
            let root = components.remove(at);
            components.insert(0, root);
        }
        let mut data: Option<Value> = None;
        for statement in &statements {
            if let Statement::Data { path, value } = statement {
                let mut cx = Cx::new(scope.catalog, &names, "");
                let compiled = self.value(&mut cx, value, Slot::Other, "", None)?;
                set_path(data.get_or_insert_with(|| json!({})), path, compiled);
            }
        }
        self.surface_messages(scope, components, data, &statements)?;
        for statement in &statements {
            if let Statement::Call(call) = statement {
                self.standalone(scope, &names, call)?;
            }
        }
        Ok(())
    }

    fn surface_messages(
        &mut self,
        scope: &Scope<'_>,
        components: Vec<Value>,
        data: Option<Value>,
        statements: &[Statement],
    ) -> Result<(), CompileError> {
        let version = self.version;
        let surface_id = scope.surface_id.as_str();
        let has_root = components.first().is_some_and(|c| c["id"] == "root");
        if !components.is_empty() && !has_root && self.dialect() == Dialect::Proposal {
            let at = statements
                .iter()
                .find_map(|s| match s {
                    Statement::Assign { value, .. } => Some(value.at),
                    _ => None,
                })
                .unwrap_or(0);
            return Err(invalid(at, "no component is named root"));
        }
        let catalog_id = match (&scope.named_catalog, self.dialect()) {
            (Some(named), _) => Some(named.clone()),
            (None, Dialect::Proposal) if self.target.version == ProtocolVersion::V1_0 => None,
            (None, _) => Some(scope.catalog.id().to_owned()),
        };
        let data_update = |value: Value| {
            json!({"version": version, "updateDataModel":
                {"surfaceId": surface_id, "path": "/", "value": value}})
        };
        if has_root && self.target.version == ProtocolVersion::V1_0 {
            let mut create = Map::new();
            create.insert("surfaceId".into(), json!(surface_id));
            if let Some(id) = catalog_id {
                create.insert("catalogId".into(), json!(id));
            }
            if let Some(send) = scope.send_data_model {
                create.insert("sendDataModel".into(), json!(send));
            }
            create.insert("components".into(), Value::Array(components));
            if let Some(data) = data {
                create.insert("dataModel".into(), data);
            }
            self.messages
                .push(json!({"version": version, "createSurface": create}));
            return Ok(());
        }
        if has_root {
            let mut create = Map::new();
            create.insert("surfaceId".into(), json!(surface_id));
            create.insert(
                "catalogId".into(),
                json!(catalog_id.unwrap_or_else(|| scope.catalog.id().to_owned())),
            );
            if let Some(send) = scope.send_data_model {
                create.insert("sendDataModel".into(), json!(send));
            }
            self.messages
                .push(json!({"version": version, "createSurface": create}));
        }
        if !components.is_empty() {
            self.messages
                .push(json!({"version": version, "updateComponents":
                {"surfaceId": surface_id, "components": components}}));
        }
        if let Some(data) = data {
            self.messages.push(data_update(data));
        }
        Ok(())
    }

    /// `deleteSurface(..)` or a renderer function call on its own.
    fn standalone(
        &mut self,
        scope: &Scope<'_>,
        names: &Names<'_>,
        call: &Call,
    ) -> Result<(), CompileError> {
        let version = self.version;
        if call.name == "deleteSurface" {
            let args = keyword_args(call, &["surfaceId"])?;
            let id =
                string_arg(call, args[0], "surfaceId")?.unwrap_or_else(|| scope.surface_id.clone());
            self.messages
                .push(json!({"version": version, "deleteSurface": {"surfaceId": id}}));
            return Ok(());
        }
        if self.target.version != ProtocolVersion::V1_0 {
            return Err(invalid(
                call.at,
                format!(
                    "Standalone function calls are not supported in A2UI {}",
                    self.target.version.schema_family()
                ),
            ));
        }
        let mut cx = Cx::new(scope.catalog, names, "");
        let function = self.function(&mut cx, call)?;
        if self.dialect() == Dialect::Proposal {
            self.messages
                .push(json!({"version": version, "callFunction": function}));
            return Ok(());
        }
        self.calls += 1;
        let mut function = function;
        if let Some(map) = function.as_object_mut() {
            map.insert("catalogId".into(), json!(scope.catalog.id()));
        }
        self.messages
            .push(json!({"version": version, "callRendererFunction": {
                "functionCallId": format!("call_{}", self.calls),
                "callFunction": function,
            }}));
        Ok(())
    }

    /// Compiles the component `id` and, after it, the components written inline in it.
    fn component<'s>(
        &mut self,
        catalog: &Catalog,
        names: &Names<'s>,
        id: &str,
        call: &'s Call,
        out: &mut Vec<Value>,
    ) -> Result<(), CompileError> {
        if !catalog.component_names().any(|n| n == call.name) {
            return Err(invalid(
                call.at,
                format!(
                    "component '{}' is not in catalog '{}'",
                    call.name,
                    catalog.id()
                ),
            ));
        }
        let signature: Vec<&str> = catalog
            .property_order(&call.name)
            .iter()
            .map(String::as_str)
            .filter(|p| *p != "component" && *p != "id")
            .collect();
        let mut given: Vec<(&str, &Expr)> = Vec::new();
        let mut checks: Vec<&Expr> = Vec::new();
        let mut position = 0;
        for Arg { name, value } in &call.args {
            let property = match name {
                Some(name) if name == "checks" => {
                    checks.push(value);
                    continue;
                }
                Some(name) => {
                    if !signature.contains(&name.as_str()) && !COMMON.contains(&name.as_str()) {
                        return Err(invalid(
                            value.at,
                            format!("component '{}' has no property '{name}'", call.name),
                        ));
                    }
                    name.as_str()
                }
                None if is_checks(value) => {
                    checks.push(value);
                    continue;
                }
                None => {
                    let Some(property) = signature.get(position) else {
                        return Err(invalid(
                            value.at,
                            format!(
                                "{} takes at most {} arguments ({})",
                                call.name,
                                signature.len(),
                                signature.join(", ")
                            ),
                        ));
                    };
                    position += 1;
                    property
                }
            };
            if given.iter().any(|(p, _)| *p == property) {
                return Err(invalid(
                    value.at,
                    format!("property '{property}' of {} is given twice", call.name),
                ));
            }
            given.push((property, value));
        }
        let mut cx = Cx::new(catalog, names, id);
        let mut properties = Map::new();
        for (property, value) in given {
            if value.kind == ExprKind::Skip {
                continue;
            }
            let schema = property_schema(catalog, &call.name, property);
            let slot = slot_of(schema);
            if slot == Slot::Static {
                check_static(property, schema, value, names)?;
            }
            let compiled = self.value(&mut cx, value, slot, property, None)?;
            properties.insert(property.to_owned(), compiled);
        }
        if !checks.is_empty() {
            cx.own = properties.get("value").cloned();
            let mut rules = Vec::new();
            for expr in checks {
                let items: Vec<&Expr> = match &expr.kind {
                    ExprKind::Array(items) => items.iter().collect(),
                    _ => vec![expr],
                };
                for item in items {
                    match &item.kind {
                        ExprKind::Check(check) => rules.push(self.check(&mut cx, check)?),
                        _ => return Err(invalid(item.at, "checks holds only ?check rules")),
                    }
                }
            }
            properties.insert("checks".into(), Value::Array(rules));
        }
        let mut component = Map::new();
        component.insert("id".into(), json!(id));
        component.insert("component".into(), json!(call.name));
        component.extend(properties);
        out.push(Value::Object(component));
        for (child_id, child) in std::mem::take(&mut cx.pending) {
            self.component(catalog, names, &child_id, child, out)?;
        }
        Ok(())
    }

    /// The id of a component written inline.
    fn inline_id(&mut self, parent: &str, property: &str, index: Option<usize>) -> String {
        match self.dialect() {
            Dialect::Proposal => {
                self.inline += 1;
                format!("_inline_{}", self.inline)
            }
            Dialect::Conformance => match index {
                Some(i) => format!("{parent}_{property}_{i}"),
                None => format!("{parent}_{property}"),
            },
        }
    }

    /// Compiles a value for `slot` of property `property` (`index`: its place in an array).
    fn value<'s>(
        &mut self,
        cx: &mut Cx<'_, 's>,
        expr: &'s Expr,
        slot: Slot,
        property: &str,
        index: Option<usize>,
    ) -> Result<Value, CompileError> {
        Ok(match &expr.kind {
            ExprKind::Str(s) => json!(s),
            ExprKind::Number(n) => Value::Number(n.clone()),
            ExprKind::Bool(b) => json!(b),
            ExprKind::Null => Value::Null,
            ExprKind::Skip => {
                return Err(invalid(expr.at, "`_` stands only for a whole argument"));
            }
            ExprKind::Path(path) => json!({ self.path_key: path }),
            ExprKind::Name(name) => match cx.names.value(name) {
                Some(value) => {
                    if cx.resolving.iter().any(|n| n == name) || cx.resolving.len() > 32 {
                        return Err(invalid(expr.at, format!("'{name}' refers to itself")));
                    }
                    cx.resolving.push(name.clone());
                    let out = self.value(cx, value, slot, property, index);
                    cx.resolving.pop();
                    out?
                }
                None => json!(name),
            },
            ExprKind::Array(items) => {
                let inner = if slot == Slot::ChildList {
                    Slot::Child
                } else {
                    Slot::Other
                };
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    out.push(self.value(cx, item, inner, property, Some(i))?);
                }
                Value::Array(out)
            }
            ExprKind::Map(entries) => {
                let mut out = Map::new();
                for (key, item) in entries {
                    let value = self.value(cx, item, Slot::Other, property, index)?;
                    out.insert(key.clone(), value);
                }
                Value::Object(out)
            }
            ExprKind::Check(check) => {
                // A check inside another (`?and([?required, ?email])`) is a call on the same
                // value, without a message of its own.
                let mut function = self.function(cx, check)?;
                let takes_value = cx
                    .catalog
                    .parameter_order(&check.name)
                    .iter()
                    .any(|p| p == "value")
                    || !cx.catalog.function_names().any(|n| n == check.name);
                if let (true, Some(own), Some(Value::Object(args))) =
                    (takes_value, cx.own.clone(), function.get_mut("args"))
                {
                    args.insert("value".into(), own);
                }
                function
            }
            ExprKind::Call(call) => match call.name.as_str() {
                "Event" => self.event(cx, call)?,
                "_template" => self.template(cx, call, property)?,
                name if is_component(cx.catalog, name) => {
                    let id = self.inline_id(cx.parent, property, index);
                    cx.pending.push((id.clone(), call));
                    json!(id)
                }
                _ => {
                    let function = self.function(cx, call)?;
                    if slot == Slot::Action {
                        json!({ "functionCall": function })
                    } else {
                        function
                    }
                }
            },
        })
    }

    /// `Event(name, context)`.
    fn event<'s>(&mut self, cx: &mut Cx<'_, 's>, call: &'s Call) -> Result<Value, CompileError> {
        let args = keyword_args(call, &["name", "context"])?;
        let name = string_arg(call, args[0], "name")?
            .ok_or_else(|| invalid(call.at, "Event(..) needs an event name"))?;
        let mut event = Map::new();
        event.insert("name".into(), json!(name));
        match args[1] {
            Some(context) => {
                let value = self.value(cx, context, Slot::Other, "context", None)?;
                if !value.is_object() {
                    return Err(invalid(context.at, "an event's context is a map"));
                }
                event.insert("context".into(), value);
            }
            None if self.dialect() == Dialect::Proposal => {
                event.insert("context".into(), json!({}));
            }
            None => {}
        }
        Ok(json!({ "event": event }))
    }

    /// `_template(path, component)`: a child list template.
    fn template<'s>(
        &mut self,
        cx: &mut Cx<'_, 's>,
        call: &'s Call,
        property: &str,
    ) -> Result<Value, CompileError> {
        let args = keyword_args(call, &["path", "componentId"])?;
        let (Some(path), Some(component)) = (args[0], args[1]) else {
            return Err(CompileError {
                syntax: true,
                message: "_template takes a data path and a component".into(),
                at: call.at,
            });
        };
        let ExprKind::Path(path) = &path.kind else {
            return Err(invalid(path.at, "_template's first argument is a $path"));
        };
        let component = self.value(cx, component, Slot::Child, property, None)?;
        if !component.is_string() {
            return Err(invalid(
                call.at,
                "_template's second argument is a component",
            ));
        }
        Ok(json!({"path": path, "componentId": component}))
    }

    /// A function call: `{call, args}` with arguments named by the catalog's parameters.
    fn function<'s>(&mut self, cx: &mut Cx<'_, 's>, call: &'s Call) -> Result<Value, CompileError> {
        let known = cx.catalog.function_names().any(|n| n == call.name);
        if !known && self.dialect() == Dialect::Conformance {
            return Err(invalid(
                call.at,
                format!(
                    "function '{}' is not in catalog '{}'",
                    call.name,
                    cx.catalog.id()
                ),
            ));
        }
        if !known {
            // The proposal passes an undeclared call through with its arguments as written.
            let mut args = Vec::new();
            for arg in &call.args {
                args.push(self.value(cx, &arg.value, Slot::Other, "args", None)?);
            }
            return Ok(json!({self.call_key: call.name, "args": args}));
        }
        let params = cx.catalog.parameter_order(&call.name).to_vec();
        let args = self.arguments(cx, call, &params, &call.args)?;
        Ok(json!({self.call_key: call.name, "args": args}))
    }

    /// Maps `args` onto `params`: positional in order (`_` skips one), keywords by name.
    fn arguments<'s>(
        &mut self,
        cx: &mut Cx<'_, 's>,
        call: &Call,
        params: &[String],
        args: &'s [Arg],
    ) -> Result<Map<String, Value>, CompileError> {
        let mut out = Map::new();
        let mut position = 0;
        for arg in args {
            let name = match &arg.name {
                Some(name) => name.clone(),
                None => {
                    let Some(name) = params.get(position) else {
                        return Err(invalid(
                            arg.value.at,
                            format!("{} takes at most {} arguments", call.name, params.len()),
                        ));
                    };
                    position += 1;
                    name.clone()
                }
            };
            if arg.value.kind == ExprKind::Skip {
                continue;
            }
            if out.contains_key(&name) {
                return Err(invalid(
                    arg.value.at,
                    format!("argument '{name}' given twice"),
                ));
            }
            let value = self.value(cx, &arg.value, Slot::Dynamic, &name, None)?;
            out.insert(name, value);
        }
        Ok(out)
    }

    /// `?name(args, "message")`: a check rule on the component's own value.
    fn check<'s>(&mut self, cx: &mut Cx<'_, 's>, check: &'s Call) -> Result<Value, CompileError> {
        let mut args: &[Arg] = &check.args;
        let mut message = None;
        let known = cx.catalog.function_names().any(|n| n == check.name);
        let params: Vec<String> = if known {
            cx.catalog.parameter_order(&check.name).to_vec()
        } else if self.dialect() == Dialect::Proposal {
            vec!["value".to_owned()]
        } else {
            return Err(invalid(
                check.at,
                format!(
                    "check '{}' is not a function of catalog '{}'",
                    check.name,
                    cx.catalog.id()
                ),
            ));
        };
        let rest: Vec<String> = params.iter().filter(|p| *p != "value").cloned().collect();
        let positional = args.iter().filter(|a| a.name.is_none()).count();
        if let Some((last, before)) = args.split_last() {
            if last.name.is_none() && positional > rest.len() {
                if let ExprKind::Str(text) = &last.value.kind {
                    message = Some(text.clone());
                    args = before;
                }
            }
        }
        let mut compiled = self.arguments(cx, check, &rest, args)?;
        if params.iter().any(|p| p == "value") {
            if let Some(own) = &cx.own {
                compiled.insert("value".into(), own.clone());
            }
        }
        let message = message.unwrap_or_else(|| default_message(&check.name));
        Ok(json!({
            "condition": {self.call_key: check.name, "args": compiled},
            "message": message,
        }))
    }
}

impl<'c, 's> Cx<'c, 's> {
    fn new(catalog: &'c Catalog, names: &'c Names<'s>, parent: &'c str) -> Self {
        Self {
            catalog,
            names,
            parent,
            pending: Vec::new(),
            own: None,
            resolving: Vec::new(),
        }
    }
}

/// Properties every component may carry besides its catalog's.
const COMMON: [&str; 2] = ["accessibility", "weight"];

/// `Required check failed` for `required`.
fn default_message(name: &str) -> String {
    let mut chars = name.chars();
    let first: String = chars
        .next()
        .map(|c| c.to_uppercase().collect())
        .unwrap_or_default();
    format!("{first}{} check failed", chars.as_str())
}

/// Whether a call names a component: one the catalog declares, or any capitalised name
/// that is not a helper (so an unknown component is reported as one).
fn is_component(catalog: &Catalog, name: &str) -> bool {
    catalog.component_names().any(|n| n == name)
        || (name != "Event"
            && name.starts_with(|c: char| c.is_ascii_uppercase())
            && !catalog.function_names().any(|n| n == name))
}

/// A `?check`, or a non-empty list of them.
fn is_checks(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Check(_) => true,
        ExprKind::Array(items) => {
            !items.is_empty() && items.iter().all(|i| matches!(i.kind, ExprKind::Check(_)))
        }
        _ => false,
    }
}

/// The schema of `property` of `component`, in the component schema or its `allOf`.
fn property_schema<'c>(catalog: &'c Catalog, component: &str, property: &str) -> Option<&'c Value> {
    let schema = catalog.schema().get("components")?.get(component)?;
    schema
        .get("properties")
        .and_then(|p| p.get(property))
        .or_else(|| {
            schema
                .get("allOf")?
                .as_array()?
                .iter()
                .find_map(|branch| branch.get("properties").and_then(|p| p.get(property)))
        })
}

fn slot_of(schema: Option<&Value>) -> Slot {
    let Some(schema) = schema else {
        return Slot::Other;
    };
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        let name = target.rsplit('/').next().unwrap_or_default();
        return match name {
            "Child" | "ComponentId" => Slot::Child,
            "ChildList" => Slot::ChildList,
            "Action" => Slot::Action,
            n if n.starts_with("Dynamic") || n == "DataBinding" => Slot::Dynamic,
            _ => Slot::Other,
        };
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string" | "number" | "integer" | "boolean") => Slot::Static,
        _ => Slot::Other,
    }
}

/// A plain typed property admits no binding and, with an `enum`, only its choices.
fn check_static(
    property: &str,
    schema: Option<&Value>,
    expr: &Expr,
    names: &Names<'_>,
) -> Result<(), CompileError> {
    if binds(expr, names, 0) {
        return Err(invalid(
            expr.at,
            format!("Property '{property}' does not support dynamic data bindings"),
        ));
    }
    let choices = schema.and_then(|s| s.get("enum")).and_then(Value::as_array);
    if let (Some(choices), ExprKind::Str(text)) = (choices, &expr.kind) {
        if !choices.iter().any(|c| c == text) {
            return Err(invalid(
                expr.at,
                format!("'{text}' is not a valid enum choice for property '{property}'"),
            ));
        }
    }
    Ok(())
}

/// Whether `expr` holds a `$path` anywhere (through named values too).
fn binds(expr: &Expr, names: &Names<'_>, depth: usize) -> bool {
    if depth > 32 {
        return false;
    }
    match &expr.kind {
        ExprKind::Path(_) => true,
        ExprKind::Array(items) => items.iter().any(|e| binds(e, names, depth + 1)),
        ExprKind::Map(entries) => entries.iter().any(|(_, e)| binds(e, names, depth + 1)),
        ExprKind::Call(call) | ExprKind::Check(call) => {
            call.args.iter().any(|a| binds(&a.value, names, depth + 1))
        }
        ExprKind::Name(name) => names
            .value(name)
            .is_some_and(|e| binds(e, names, depth + 1)),
        _ => false,
    }
}

/// The arguments of a helper call by parameter: positional in `params` order, or keywords.
fn keyword_args<'e>(
    call: &'e Call,
    params: &[&str],
) -> Result<Vec<Option<&'e Expr>>, CompileError> {
    let mut out = vec![None; params.len()];
    let mut position = 0;
    for arg in &call.args {
        let slot = match &arg.name {
            Some(name) => params.iter().position(|p| p == name).ok_or_else(|| {
                invalid(
                    arg.value.at,
                    format!("{}(..) has no argument '{name}'", call.name),
                )
            })?,
            None => {
                position += 1;
                position - 1
            }
        };
        let Some(entry) = out.get_mut(slot) else {
            return Err(invalid(
                arg.value.at,
                format!("{}(..) takes at most {} arguments", call.name, params.len()),
            ));
        };
        if entry.is_some() {
            return Err(invalid(arg.value.at, "an argument is given twice"));
        }
        if arg.value.kind != ExprKind::Skip {
            *entry = Some(&arg.value);
        }
    }
    Ok(out)
}

/// A string literal argument of a helper, if given.
fn string_arg(call: &Call, arg: Option<&Expr>, what: &str) -> Result<Option<String>, CompileError> {
    match arg.map(|e| &e.kind) {
        None => Ok(None),
        Some(ExprKind::Str(s)) => Ok(Some(s.clone())),
        Some(_) => Err(invalid(
            arg.map_or(call.at, |e| e.at),
            format!("{}(..): {what} is a string", call.name),
        )),
    }
}

/// Sets `path` (`/a/b`, `a/b`, `/` or empty: the whole model) in `model` to `value`.
fn set_path(model: &mut Value, path: &str, value: Value) {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let Some((last, parents)) = segments.split_last() else {
        *model = value;
        return;
    };
    let mut here = model;
    for segment in parents {
        if !here.is_object() {
            *here = json!({});
        }
        let Value::Object(map) = here else {
            return;
        };
        here = map.entry(*segment).or_insert_with(|| json!({}));
    }
    if !here.is_object() {
        *here = json!({});
    }
    if let Value::Object(map) = here {
        map.insert((*last).to_owned(), value);
    }
}
