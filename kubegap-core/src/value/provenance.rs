//! Where a value came from: the one provenance type of the model's settings ([`Source`]: an
//! annotation, a ConfigMap key, an argument, a field, or the default of a product and version),
//! with its citation for messages ([`Source::cite`]), and a value with its source
//! ([`Setting`]).

use crate::config::Version;
use crate::source::{SourceMap, Span};

/// Where an effective value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// An annotation on an Ingress, Route, Service, workload or IngressController.
    Annotation {
        /// The annotation key.
        key: String,
        /// The key's span.
        key_span: Span,
        /// The value's span.
        value_span: Span,
    },
    /// A key of the controller's ConfigMap `data`.
    ConfigMapKey {
        /// The key.
        key: String,
        /// The key's span.
        key_span: Span,
        /// The value's span.
        value_span: Span,
    },
    /// A command-line argument of the controller container.
    Argument {
        /// The argument as written (`--sort-endpoints-by=ip`).
        text: String,
        /// Its span.
        span: Span,
    },
    /// Another field: an IngressController `spec.tuningOptions.*`, a container `env` value,
    /// `terminationGracePeriodSeconds`, a BackendConfig `spec.timeoutSec`.
    Field {
        /// What it is, for messages (`spec.tuningOptions.tunnelTimeout`, env `ROUTER_…`).
        what: String,
        /// The value's span.
        span: Span,
    },
    /// The default of a product, at a version when known.
    Default {
        /// The product (or platform) name: `ingress-nginx`, `AWS ALB`, `Kubernetes`.
        product: &'static str,
        /// The version the default was looked up for, when known.
        version: Option<Version>,
    },
}

impl Source {
    /// The span of the value, when it is written somewhere.
    pub fn span(&self) -> Option<Span> {
        match self {
            Source::Annotation { value_span, .. } | Source::ConfigMapKey { value_span, .. } => {
                Some(*value_span)
            }
            Source::Argument { span, .. } | Source::Field { span, .. } => Some(*span),
            Source::Default { .. } => None,
        }
    }

    /// The span of the key (annotation or ConfigMap key), else of the value.
    pub fn key_span(&self) -> Option<Span> {
        match self {
            Source::Annotation { key_span, .. } | Source::ConfigMapKey { key_span, .. } => {
                Some(*key_span)
            }
            other => other.span(),
        }
    }

    /// Like [`Source::describe`] but for use inside parentheses: "ConfigMap key `x`, cm.yaml:12",
    /// "default of ingress-nginx v1.15.1".
    pub fn cite(&self, files: &SourceMap) -> String {
        let at = |span: &Span| {
            let file = files.get(span.file);
            format!("{}:{}", file.base_name(), file.line_col(span.start).line)
        };
        match self {
            Source::Annotation { key, key_span, .. } => {
                format!("annotation `{key}`, {}", at(key_span))
            }
            Source::ConfigMapKey { key, key_span, .. } => {
                format!("ConfigMap key `{key}`, {}", at(key_span))
            }
            Source::Argument { text, span } => format!("argument `{text}`, {}", at(span)),
            Source::Field { what, span } => format!("{what}, {}", at(span)),
            Source::Default { .. } => self.describe(files),
        }
    }

    /// Whether the value is a product default (nothing written).
    pub fn is_default(&self) -> bool {
        matches!(self, Source::Default { .. })
    }

    /// For messages: "annotation `…` (ing.yaml:9)", "ConfigMap key `worker-shutdown-timeout`
    /// (cm.yaml:12)", "argument `--sort-endpoints-by=ip` (deploy.yaml:20)", "default of
    /// ingress-nginx v1.15.1".
    pub fn describe(&self, files: &SourceMap) -> String {
        let cite = |span: &Span| {
            let file = files.get(span.file);
            format!("{}:{}", file.base_name(), file.line_col(span.start).line)
        };
        match self {
            Source::Annotation { key, key_span, .. } => {
                format!("annotation `{key}` ({})", cite(key_span))
            }
            Source::ConfigMapKey { key, key_span, .. } => {
                format!("ConfigMap key `{key}` ({})", cite(key_span))
            }
            Source::Argument { text, span } => format!("argument `{text}` ({})", cite(span)),
            Source::Field { what, span } => format!("{what} ({})", cite(span)),
            Source::Default {
                product,
                version: Some(v),
            } => format!("default of {product} v{v}"),
            Source::Default {
                product,
                version: None,
            } => format!("default of {product}"),
        }
    }
}

/// An effective value and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting<T> {
    /// The value (durations in milliseconds).
    pub value: T,
    /// Where it came from.
    pub source: Source,
}

impl<T> Setting<T> {
    /// A setting.
    pub fn new(value: T, source: Source) -> Setting<T> {
        Setting { value, source }
    }
}

impl Setting<u64> {
    /// The value in seconds (for code that works in seconds, such as the chain hops).
    pub fn secs(&self) -> f64 {
        self.value as f64 / 1000.0
    }

    /// "3600s (annotation `…`, ing.yaml:9)", "240s (default of ingress-nginx)" for messages.
    pub fn describe(&self, files: &SourceMap) -> String {
        format!(
            "{} ({})",
            crate::value::duration::format_ms(self.value),
            self.source.cite(files)
        )
    }
}
