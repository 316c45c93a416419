//! Command-line arguments of controller containers (`--name=value`, `--name value`).

use super::Source;
use crate::source::Span;
use crate::yaml::NodeRef;

/// One command-line argument of a container (`--name=value` or `--name value`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    /// The flag name without dashes (`configmap`, `ingress.class`).
    pub name: String,
    /// The value, if any.
    pub value: Option<String>,
    /// The text as written.
    pub text: String,
    /// Where it is written (the item, or both items for `--name value`).
    pub span: Span,
}

impl Arg {
    /// As a [`Source`].
    pub fn source(&self) -> Source {
        Source::Argument {
            text: self.text.clone(),
            span: self.span,
        }
    }
}

/// Splits a container's `command` and `args` into flags.
pub(super) fn read_args(container: NodeRef<'_>) -> Vec<Arg> {
    let mut items: Vec<NodeRef<'_>> = Vec::new();
    for field in ["command", "args"] {
        items.extend(container.get(field).into_iter().flat_map(|n| n.items()));
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let item = items[i];
        i += 1;
        let Some(text) = item.as_str() else { continue };
        let text = text.trim();
        let Some(flag) = text.strip_prefix("--").or_else(|| text.strip_prefix('-')) else {
            continue;
        };
        if flag.is_empty() {
            continue;
        }
        match flag.split_once('=') {
            Some((name, value)) => out.push(Arg {
                name: name.to_string(),
                value: Some(value.to_string()),
                text: text.to_string(),
                span: item.span(),
            }),
            None => {
                // `--flag value` when the next item is not a flag.
                let next = items.get(i).and_then(|n| n.as_str().map(|s| (n, s)));
                match next {
                    Some((node, value)) if !value.starts_with('-') => {
                        i += 1;
                        out.push(Arg {
                            name: flag.to_string(),
                            value: Some(value.to_string()),
                            text: format!("{text} {value}"),
                            span: item.span().to(node.span()),
                        });
                    }
                    _ => out.push(Arg {
                        name: flag.to_string(),
                        value: None,
                        text: text.to_string(),
                        span: item.span(),
                    }),
                }
            }
        }
    }
    out
}

/// `$(POD_NAMESPACE)/name` → (namespace, name).
pub(super) fn namespaced(value: &str, own_namespace: &str) -> (String, String) {
    let value = value.replace("$(POD_NAMESPACE)", own_namespace);
    match value.split_once('/') {
        Some((ns, name)) => (ns.to_string(), name.to_string()),
        None => (own_namespace.to_string(), value),
    }
}
