//! Every value that is not a component: literals, bindings, names, lists and maps, and the
//! calls a value can be (`Event`, `_template`, a catalog function).
//!
//! Where the official compiler gives a component written inline an id of its own
//! (`<parent>_<property>[_<index>]` for a property or a list item of it, `_inline_<n>`
//! anywhere else: a map, a function's argument, a named value), so does this.

use serde_json::{Map, Value, json};

use super::component::explicit_id;
use super::error::{CompileError, invalid};
use super::schema::Slot;
use super::{Block, Cx};
use crate::format::express::Dialect;
use crate::format::express::tree::{Arg, Call, Expr, ExprKind};

impl Block<'_> {
    /// Compiles a value for `slot` of property `property` (`index`: its place in a list;
    /// `property` empty: somewhere an inline component gets an `_inline_<n>` id).
    pub(super) fn value<'s>(
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
            ExprKind::Name(name) => self.name(cx, expr, name, slot, property, index)?,
            ExprKind::Array(items) => {
                let inner = if slot == Slot::ChildList {
                    Slot::Child
                } else {
                    Slot::Other
                };
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let value = self.value(cx, item, inner, property, Some(i))?;
                    out.push(match value {
                        template @ Value::Object(_) if slot == Slot::ChildList => {
                            self.listed_template(cx, template, property, i)
                        }
                        value => value,
                    });
                }
                Value::Array(out)
            }
            ExprKind::Map(entries) => {
                let mut out = Map::new();
                for (key, item) in entries {
                    let value = self.value(cx, item, Slot::Other, "", None)?;
                    out.insert(key.clone(), value);
                }
                Value::Object(out)
            }
            // A check inside another (`?and([?required, ?email])`) is a call on the same
            // value, without a message of its own.
            ExprKind::Check(check) => self.condition(cx, check)?.0,
            ExprKind::Call(call) => match call.name.as_str() {
                "Event" => self.event(cx, call)?,
                "_template" => self.template(cx, call)?,
                name if self.is_component(cx.catalog, name) => {
                    let id = match explicit_id(call)? {
                        Some(id) => id,
                        None => {
                            let parent = cx.parent.clone();
                            self.inline_id(&parent, property, index)
                        }
                    };
                    self.inline_component(cx, &id, call)?;
                    json!(id)
                }
                _ => {
                    let function = self.function(cx, call)?;
                    if slot == Slot::Action || cx.in_action {
                        json!({ "functionCall": function })
                    } else {
                        function
                    }
                }
            },
        })
    }

    /// A name: the id of the component it names, the value it names compiled in its place,
    /// or, naming neither, itself (an id of a component sent before).
    fn name<'s>(
        &mut self,
        cx: &mut Cx<'_, 's>,
        expr: &'s Expr,
        name: &str,
        slot: Slot,
        property: &str,
        index: Option<usize>,
    ) -> Result<Value, CompileError> {
        let Some(value) = cx.symbols.get(name) else {
            return Ok(json!(name));
        };
        if let ExprKind::Call(call) = &value.kind
            && self.is_component(cx.catalog, &call.name)
        {
            return Ok(json!(explicit_id(call)?.unwrap_or_else(|| name.to_owned())));
        }
        if cx.resolving.iter().any(|n| n == name) || cx.resolving.len() > 32 {
            return Err(invalid(expr.at, format!("'{name}' refers to itself")));
        }
        cx.resolving.push(name.to_owned());
        let out = match self.dialect() {
            Dialect::Conformance => self.value(cx, value, slot, "", None),
            Dialect::Proposal => self.value(cx, value, slot, property, index),
        };
        cx.resolving.pop();
        out
    }

    /// Compiles a component written inline, there and then, as the official compiler does:
    /// its inline ids are numbered in the order the block is read, depth first, and it and
    /// the components inside it follow its parent.
    fn inline_component<'s>(
        &mut self,
        cx: &mut Cx<'_, 's>,
        id: &str,
        call: &'s Call,
    ) -> Result<(), CompileError> {
        let in_action = std::mem::replace(&mut cx.in_action, false);
        let own = cx.own.take();
        let mut compiled = Vec::new();
        let done = self.component(cx, id, call, &mut compiled);
        cx.in_action = in_action;
        cx.own = own;
        done?;
        cx.inline.extend(compiled);
        Ok(())
    }

    /// A template where a list of children holds ids (`Column([title, _template(...)])`, as
    /// small models write a heading above repeated rows): the list cannot hold it, so it
    /// becomes a `Column` of its own in that place, repeating the rows there. Anything else
    /// (or a catalog without `Column`) stays as written, for the validator to refuse.
    fn listed_template(
        &mut self,
        cx: &mut Cx<'_, '_>,
        value: Value,
        property: &str,
        index: usize,
    ) -> Value {
        let is_template = value.as_object().is_some_and(|map| {
            map.len() == 2 && map.contains_key("componentId") && map.contains_key("path")
        });
        if !is_template || !self.is_component(cx.catalog, "Column") {
            return value;
        }
        let parent = cx.parent.clone();
        let id = self.inline_id(&parent, property, Some(index));
        cx.made
            .push(json!({"id": id, "component": "Column", "children": value}));
        json!(id)
    }

    /// `Event(name, context)`.
    fn event<'s>(&mut self, cx: &mut Cx<'_, 's>, call: &'s Call) -> Result<Value, CompileError> {
        let args = super::schema::keyword_args(call, &["name", "context"])?;
        let Some(name) = args[0] else {
            return Err(invalid(call.at, "Event(..) needs an event name"));
        };
        let name = match self.value(cx, name, Slot::Other, "", None)? {
            Value::String(name) => name,
            _ => return Err(invalid(name.at, "Event(..): name is a string")),
        };
        let mut event = Map::new();
        event.insert("name".into(), json!(name));
        match args[1] {
            Some(context) => {
                let value = self.value(cx, context, Slot::Other, "", None)?;
                let merged = match value {
                    Value::Object(map) => map,
                    // A list of maps is one context, as the official compiler merges it.
                    Value::Array(items) if items.iter().all(Value::is_object) => items
                        .into_iter()
                        .filter_map(|item| match item {
                            Value::Object(map) => Some(map),
                            _ => None,
                        })
                        .flatten()
                        .collect(),
                    _ => {
                        return Err(invalid(
                            context.at,
                            "an event's context is a map of names to values: \
                             `Event(\"add\", {amount: 1})`",
                        ));
                    }
                };
                event.insert("context".into(), Value::Object(merged));
            }
            None if self.dialect() == Dialect::Proposal => {
                event.insert("context".into(), json!({}));
            }
            None => {}
        }
        Ok(json!({ "event": event }))
    }

    /// `_template(path, component)`: a child list template.
    fn template<'s>(&mut self, cx: &mut Cx<'_, 's>, call: &'s Call) -> Result<Value, CompileError> {
        let positional: Vec<&Expr> = call
            .args
            .iter()
            .filter(|a| a.name.is_none())
            .map(|a| &a.value)
            .collect();
        let (Some(path), Some(component), true) =
            (positional.first(), positional.get(1), call.args.len() == 2)
        else {
            return Err(CompileError {
                syntax: true,
                message: "_template takes a data path and a component".into(),
                at: call.at,
            });
        };
        let bound = self.value(cx, path, Slot::Other, "", None)?;
        let Some(path) = bound.get(self.path_key).and_then(Value::as_str) else {
            return Err(CompileError {
                syntax: true,
                message: "_template's first argument is a $path".into(),
                at: path.at,
            });
        };
        let path = path.to_owned();
        let component = self.value(cx, component, Slot::Child, "", None)?;
        if !component.is_string() {
            return Err(invalid(
                call.at,
                "_template's second argument is a component",
            ));
        }
        Ok(json!({"path": path, "componentId": component}))
    }

    /// A function call: `{call, args}` with arguments named by the catalog's parameters.
    pub(super) fn function<'s>(
        &mut self,
        cx: &mut Cx<'_, 's>,
        call: &'s Call,
    ) -> Result<Value, CompileError> {
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

    /// Maps `args` onto `params`: positional in order (`_` skips one), keywords by name; a
    /// `null` argument is left out, as the official compiler leaves it out.
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
                Some(name) => {
                    if !params.contains(name) {
                        return Err(invalid(
                            arg.value.at,
                            format!(
                                "function '{}' has no parameter '{name}' ({})",
                                call.name,
                                params.join(", ")
                            ),
                        ));
                    }
                    name.clone()
                }
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
            if out.contains_key(&name) {
                return Err(invalid(
                    arg.value.at,
                    format!("argument '{name}' given twice"),
                ));
            }
            if arg.value.kind == ExprKind::Skip {
                continue;
            }
            let value = self.value(cx, &arg.value, Slot::Dynamic, "", None)?;
            if !value.is_null() {
                out.insert(name, value);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::a2ui::{Catalog, ProtocolVersion};
    use crate::format::express::Express;

    #[test]
    fn inline_ids_are_numbered_depth_first_in_the_order_the_block_is_read() {
        // Tabs hold their children in maps, where an inline child is `_inline_<n>`: the
        // inner Tabs' own child is numbered before the outer Tabs' second one.
        let v = ProtocolVersion::V0_9;
        let express = Express::bound(v, vec![Catalog::basic(v)]).unwrap();
        let messages = express
            .compile(
                "root = Tabs([{title: \"a\", child: Tabs([{title: \"b\", child: Text(\"x\")}])}, \
                 {title: \"c\", child: Text(\"y\")}])",
            )
            .unwrap();
        let components = messages[1]["updateComponents"]["components"]
            .as_array()
            .unwrap();
        let placed: Vec<(&str, &str)> = components
            .iter()
            .map(|c| (c["id"].as_str().unwrap(), c["component"].as_str().unwrap()))
            .collect();
        assert_eq!(
            placed,
            [
                ("root", "Tabs"),
                ("_inline_1", "Tabs"),
                ("_inline_2", "Text"),
                ("_inline_3", "Text")
            ]
        );
        assert_eq!(components[0]["tabs"][1]["child"], "_inline_3");
        assert_eq!(components[2]["text"], "x");
    }
}
