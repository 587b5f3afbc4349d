//! A component call: its arguments mapped onto the catalog's properties, its checks, and
//! the components written inline in it.
//!
//! A component's signature is the official compiler's: the component's own properties in
//! document order, then those of the catalog's common mixins (`weight`), then `checks` when
//! the component is checkable. `id=` names a component whose id is not a variable name
//! (`main_column = Column([...], id="main-column")`), as the official decompiler writes it.

use serde_json::{Map, Value, json};

use super::error::{CompileError, invalid};
use super::schema::Slot;
use super::schema::{
    allows_binding, choices, default_message, has_binding, is_checks, option_objects,
    parameter_schema, property_schema, signature, slot_of,
};
use super::{Block, Cx};
use crate::a2ui::Catalog;
use crate::format::express::instructions::written;
use crate::format::express::tree::{Arg, Call, Expr, ExprKind};
use crate::format::express::{Dialect, Redefined};

/// Whether `value` is an `Event(..)` call.
fn is_event(value: &Expr) -> bool {
    matches!(&value.kind, ExprKind::Call(call) if call.name == "Event")
}

/// Whether a property with this schema can never hold an action: a number, string,
/// boolean, list or choice, or a child or bound value. (The official reading compiles an
/// `Event` there, and the validator refuses the message with a JSON path the model did not
/// write: `/updateComponents/components/2/weight: expected number`.)
fn takes_no_event(schema: &Value) -> bool {
    match slot_of(Some(schema)) {
        Slot::Child | Slot::ChildList | Slot::Dynamic => true,
        Slot::Action => false,
        Slot::Other => {
            schema.get("enum").is_some()
                || matches!(
                    schema.get("type").and_then(Value::as_str),
                    Some("number" | "integer" | "string" | "boolean" | "array")
                )
        }
    }
}

/// The `id=` a component call sets, if any.
pub(super) fn explicit_id(call: &Call) -> Result<Option<String>, CompileError> {
    match call.args.iter().find(|a| a.name.as_deref() == Some("id")) {
        None => Ok(None),
        Some(Arg { value, .. }) => match &value.kind {
            ExprKind::Str(id) if !id.is_empty() => Ok(Some(id.clone())),
            _ => Err(invalid(value.at, "Component id must be a non-empty string")),
        },
    }
}

/// One property a component call gives.
struct Given<'p, 's> {
    property: &'p str,
    value: &'s Expr,
    /// Its argument's number, when the argument is positional.
    number: Option<usize>,
}

/// Refuses a call to a component the catalog does not have, listing the ones it has so that
/// a repair turn can pick one instead of inventing again.
fn require_component(catalog: &Catalog, call: &Call) -> Result<(), CompileError> {
    if catalog.has_component(&call.name) {
        return Ok(());
    }
    let names: Vec<&str> = catalog.component_names().collect();
    Err(invalid(
        call.at,
        format!(
            "component '{}' is not in catalog '{}' (its components: {})",
            call.name,
            catalog.id(),
            names.join(", ")
        ),
    ))
}

/// The property a named argument gives, which must be in the component's signature.
fn named_property<'p>(
    catalog: &Catalog,
    call: &Call,
    signature: &[String],
    name: &'p str,
    value: &Expr,
) -> Result<&'p str, CompileError> {
    if !signature.iter().any(|p| p == name) {
        return Err(invalid(
            value.at,
            format!(
                "component '{}' has no property '{name}'; it is written {}",
                call.name,
                written(catalog, &call.name)
            ),
        ));
    }
    Ok(name)
}

/// The property the positional argument at `position` gives, if there are that many.
fn positional_property<'p>(
    catalog: &Catalog,
    call: &Call,
    positional: &[&'p str],
    position: usize,
    value: &Expr,
) -> Result<&'p str, CompileError> {
    let Some(property) = positional.get(position) else {
        return Err(invalid(
            value.at,
            format!(
                "{} takes at most {} arguments; it is written {}",
                call.name,
                positional.len(),
                written(catalog, &call.name)
            ),
        ));
    };
    Ok(property)
}

/// Checks a value for a property that takes no binding, and writes a list of strings for
/// a property of label/value options as those options.
fn fix_unbound(
    schema: &Value,
    property: &str,
    value: &Expr,
    compiled: &mut Value,
) -> Result<(), CompileError> {
    if has_binding(compiled) {
        return Err(invalid(
            value.at,
            format!("Property '{property}' does not support dynamic data bindings"),
        ));
    }
    if let (Value::Array(items), true) = (compiled, option_objects(schema)) {
        for item in items.iter_mut() {
            if let Value::String(text) = item {
                *item = json!({"label": text, "value": text});
            }
        }
    }
    Ok(())
}

impl Block<'_> {
    /// Whether a call names a component: under [`Dialect::Conformance`] every call that is
    /// not an `Event`, a `_template` or a declared function (so an unknown one is reported
    /// as an unknown component); under the proposal a declared component or any
    /// capitalised name that is not a helper.
    pub(super) fn is_component(&self, catalog: &crate::a2ui::Catalog, name: &str) -> bool {
        if catalog.has_component(name) {
            return true;
        }
        if name == "Event" || name == "_template" || catalog.function_names().any(|n| n == name) {
            return false;
        }
        match self.dialect() {
            Dialect::Conformance => true,
            Dialect::Proposal => name.starts_with(|c: char| c.is_ascii_uppercase()),
        }
    }

    /// Compiles the component `id` and, after it, the components written inline in it.
    pub(super) fn component<'s>(
        &mut self,
        cx: &mut Cx<'_, 's>,
        id: &str,
        call: &'s Call,
        out: &mut Vec<Value>,
    ) -> Result<(), CompileError> {
        let catalog = cx.catalog;
        require_component(catalog, call)?;
        let signature = signature(catalog, &call.name);
        let (given, checks) = self.given_properties(catalog, call, &signature)?;
        let parent = std::mem::replace(&mut cx.parent, id.to_owned());
        let outer = std::mem::take(&mut cx.inline);
        let outer_made = std::mem::take(&mut cx.made);
        let mut properties = self.compile_properties(cx, call, given)?;
        if !checks.is_empty() {
            let rules = self.check_rules(cx, &properties, checks)?;
            properties.insert("checks".into(), rules);
        }
        cx.parent = parent;
        let inline = std::mem::replace(&mut cx.inline, outer);
        let mut component = Map::new();
        component.insert("id".into(), json!(id));
        component.insert("component".into(), json!(call.name));
        component.extend(properties);
        out.push(Value::Object(component));
        out.extend(std::mem::replace(&mut cx.made, outer_made));
        out.extend(inline);
        Ok(())
    }

    /// The action property an `Event` written where the next positional property takes no
    /// action goes to, if the component has one, the call names none and the model's
    /// reading is on.
    ///
    /// (`Button(Text("Send"), Event("send"))`, whose second property is the variant: read
    /// as the model meant it, never under the official reading.)
    fn loose_action<'p>(&self, call: &Call, signature: &'p [String]) -> Option<&'p str> {
        signature
            .iter()
            .map(String::as_str)
            .find(|p| matches!(*p, "action" | "submitAction"))
            .filter(|action| {
                self.target.redefined == Redefined::Separate
                    && !call.args.iter().any(|a| a.name.as_deref() == Some(*action))
            })
    }

    /// Sorts a component call's arguments into the properties they give and its `checks`.
    fn given_properties<'p, 's: 'p>(
        &self,
        catalog: &Catalog,
        call: &'s Call,
        signature: &'p [String],
    ) -> Result<(Vec<Given<'p, 's>>, Vec<&'s Expr>), CompileError> {
        let positional: Vec<&str> = signature
            .iter()
            .map(String::as_str)
            .filter(|p| *p != "checks")
            .collect();
        let loose_action = self.loose_action(call, signature);
        let mut given: Vec<Given<'p, 's>> = Vec::new();
        let mut checks: Vec<&Expr> = Vec::new();
        let mut position = 0;
        for (number, Arg { name, value }) in (1..).zip(&call.args) {
            // The action this positional argument is, when it is such a loose `Event`.
            let loose = loose_action.filter(|action| {
                name.is_none()
                    && is_event(value)
                    && positional.get(position) != Some(action)
                    && !given.iter().any(|g| g.property == *action)
            });
            let property = match (name, loose) {
                (Some(name), _) if name == "id" => continue,
                (Some(_) | None, _) if is_checks(value) => {
                    checks.push(value);
                    continue;
                }
                (Some(name), _) => named_property(catalog, call, signature, name, value)?,
                (None, Some(action)) => action,
                (None, None) => {
                    let property =
                        positional_property(catalog, call, &positional, position, value)?;
                    position += 1;
                    property
                }
            };
            if given.iter().any(|g| g.property == property) {
                return Err(invalid(
                    value.at,
                    format!("property '{property}' of {} is given twice", call.name),
                ));
            }
            given.push(Given {
                property,
                value,
                number: name.is_none().then_some(number),
            });
        }
        Ok((given, checks))
    }

    /// Compiles the properties given, leaving out those given as `null` (as the official
    /// compiler leaves them out).
    fn compile_properties<'s>(
        &mut self,
        cx: &mut Cx<'_, 's>,
        call: &Call,
        given: Vec<Given<'_, 's>>,
    ) -> Result<Map<String, Value>, CompileError> {
        let mut properties = Map::new();
        for given in given {
            if matches!(given.value.kind, ExprKind::Skip | ExprKind::Null) {
                continue;
            }
            let compiled = self.compile_property(cx, call, &given)?;
            properties.insert(given.property.to_owned(), compiled);
        }
        Ok(properties)
    }

    /// Compiles one property's value and checks it against the property's schema.
    fn compile_property<'s>(
        &mut self,
        cx: &mut Cx<'_, 's>,
        call: &Call,
        given: &Given<'_, 's>,
    ) -> Result<Value, CompileError> {
        let catalog = cx.catalog;
        let Given {
            property,
            value,
            number,
        } = *given;
        let schema = property_schema(catalog, &call.name, property);
        if self.target.redefined == Redefined::Separate
            && is_event(value)
            && schema.is_some_and(takes_no_event)
        {
            let which = number.map_or(String::new(), |n| format!("argument {n} is its "));
            return Err(invalid(
                value.at,
                format!(
                    "{}'s {which}'{property}', which takes no Event; it is written {}",
                    call.name,
                    written(catalog, &call.name)
                ),
            ));
        }
        cx.in_action = matches!(property, "action" | "submitAction");
        let compiled = self.value(cx, value, slot_of(schema), property, None);
        cx.in_action = false;
        let mut compiled = compiled?;
        if let Some(schema) = schema.filter(|s| !allows_binding(s)) {
            fix_unbound(schema, property, value, &mut compiled)?;
        }
        if let (Some(choices), Value::String(text)) = (schema.and_then(choices), &compiled)
            && !choices.iter().any(|c| c == text)
        {
            return Err(invalid(
                value.at,
                format!(
                    "'{text}' is not a valid enum choice for property '{property}'; \
                         {} is written {}",
                    call.name,
                    written(catalog, &call.name)
                ),
            ));
        }
        Ok(compiled)
    }

    /// Compiles the `checks` of a component call, each receiving the component's own bound
    /// `value`.
    fn check_rules<'s>(
        &mut self,
        cx: &mut Cx<'_, 's>,
        properties: &Map<String, Value>,
        checks: Vec<&'s Expr>,
    ) -> Result<Value, CompileError> {
        cx.own = properties
            .get("value")
            .filter(|v| v.get(self.path_key).is_some_and(Value::is_string))
            .cloned();
        let mut rules = Vec::new();
        for expr in checks {
            let items: Vec<&Expr> = match &expr.kind {
                ExprKind::Array(items) => items.iter().collect(),
                _ => vec![expr],
            };
            for item in items {
                match &item.kind {
                    ExprKind::Check(check) => rules.push(self.check(cx, check)?),
                    _ => return Err(invalid(item.at, "checks holds only ?check rules")),
                }
            }
        }
        cx.own = None;
        Ok(Value::Array(rules))
    }

    /// The id of a component written inline.
    pub(super) fn inline_id(
        &mut self,
        parent: &str,
        property: &str,
        index: Option<usize>,
    ) -> String {
        match self.dialect() {
            Dialect::Proposal => {
                self.inline += 1;
                format!("_inline_{}", self.inline)
            }
            Dialect::Conformance if parent.is_empty() || property.is_empty() => {
                self.inline += 1;
                format!("_inline_{}", self.inline)
            }
            Dialect::Conformance => match index {
                Some(i) => format!("{parent}_{property}_{i}"),
                None => format!("{parent}_{property}"),
            },
        }
    }

    /// `?name(args, "message")`: a rule on the component's own value.
    ///
    /// As the official compiler reads it: when the function's first parameter is `value` and
    /// the component binds its `value`, that binding is the rule's value and the arguments
    /// fill the parameters after it; otherwise they fill the parameters from the first. A
    /// string past the last parameter, or where a number or boolean is due, is the message.
    pub(super) fn check<'s>(
        &mut self,
        cx: &mut Cx<'_, 's>,
        check: &'s Call,
    ) -> Result<Value, CompileError> {
        let (condition, message) = self.condition(cx, check)?;
        Ok(json!({"condition": condition, "message": message}))
    }

    /// A check's condition (a function call) and its message.
    pub(super) fn condition<'s>(
        &mut self,
        cx: &mut Cx<'_, 's>,
        check: &'s Call,
    ) -> Result<(Value, String), CompileError> {
        if let Some(arg) = check.args.iter().find(|a| a.name.is_some()) {
            return Err(CompileError {
                syntax: true,
                message: "a ?check takes positional arguments only".into(),
                at: arg.value.at,
            });
        }
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
        let mut compiled = Map::new();
        let explicit_binding = check
            .args
            .first()
            .is_some_and(|a| matches!(a.value.kind, ExprKind::Path(_)));
        let mut start = 0;
        if params.first().is_some_and(|p| p == "value")
            && !explicit_binding
            && let Some(own) = &cx.own
        {
            compiled.insert("value".into(), own.clone());
            start = 1;
        }
        let mut message = default_message(&check.name);
        for (i, arg) in check.args.iter().enumerate() {
            let Some(param) = params.get(i + start) else {
                if let ExprKind::Str(text) = &arg.value.kind {
                    message = text.clone();
                }
                continue;
            };
            if let ExprKind::Str(text) = &arg.value.kind {
                let ty = parameter_schema(cx.catalog, &check.name, param)
                    .and_then(|s| s.get("type"))
                    .and_then(Value::as_str);
                if matches!(ty, Some("integer" | "number" | "boolean")) {
                    message = text.clone();
                    break;
                }
            }
            if arg.value.kind == ExprKind::Skip {
                continue;
            }
            let value = self.value(cx, &arg.value, Slot::Dynamic, param, None)?;
            compiled.insert(param.clone(), value);
        }
        Ok((
            json!({self.call_key: check.name, "args": compiled}),
            message,
        ))
    }
}
