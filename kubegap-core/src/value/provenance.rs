//! Where a value came from: the one provenance type of the model ([`Source`]: a config
//! directive, an annotation, a ConfigMap key, a container argument, a manifest field, a kubegap
//! declaration, or the default of a product and version), with the one citation function for
//! messages ([`Source::cite`]), and a value with its source ([`Setting`]).
//!
//! Sources carry spans, never lines: offsets become `file:line` only when a message is
//! rendered, through the [`SourceMap`].

use crate::config::Version;
use crate::source::{SourceMap, Span};
use std::borrow::Cow;
use std::sync::Arc;

/// Where an effective value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A directive of a file config: an nginx directive, an haproxy.cfg line.
    Directive {
        /// The directive as cited: `proxy_read_timeout`, `timeout client`.
        name: String,
        /// Its span (possibly in an included file).
        span: Span,
    },
    /// An annotation on an Ingress, Route, Service, workload or IngressController (including
    /// the `kubegap.io/*` declarations written as annotations).
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
    /// A command-line argument of a container (`--sort-endpoints-by=ip`, `--keep-alive 5`).
    Argument {
        /// The argument as written.
        text: String,
        /// Its span.
        span: Span,
    },
    /// Another manifest field: an IngressController `spec.tuningOptions.*`, a container `env`
    /// value, a BackendConfig `spec.timeoutSec`.
    Field {
        /// What it is, for messages (`` `spec.tuningOptions.tunnelTimeout` ``, env `ROUTER_…`).
        what: String,
        /// The value's span.
        span: Span,
    },
    /// A kubegap declaration outside the inputs (`topology.outer` in `.kubegap.yaml`).
    Declaration {
        /// What and where, for messages (`configuration line 4`).
        what: String,
    },
    /// The default of a product, at a version when known (behind an `Arc`: the other sources
    /// are at most 48 bytes, settings and chain hops hold many optional sources, and the copies
    /// of a setting in routes and chains share one default instead of a box each).
    Default(Arc<DefaultOf>),
}

/// The default of a product: what [`Source::Default`] holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefaultOf {
    /// The product (or platform) name: `ingress-nginx`, `AWS ALB`, `HAProxy`, `gunicorn`.
    pub product: Cow<'static, str>,
    /// The version the default was looked up for, when known.
    pub version: Option<Version>,
    /// The setting whose default it is (`keep-alive`, `pool-purge-delay`), when named.
    pub setting: Option<Cow<'static, str>>,
    /// Why this default applies (`before 1.29.7; nginx version unknown, …`).
    pub note: Option<String>,
    /// What in the input implies the product (`` `gunicorn` `` and its span), when shown.
    pub implied_by: Option<(String, Span)>,
}

/// `file.yaml:12`: the base name and line of a span (base names keep messages independent of
/// where the files are; labels give the full location).
fn at(files: &SourceMap, span: Span) -> String {
    let file = files.get(span.file);
    format!("{}:{}", file.base_name(), file.line_col(span.start).line)
}

impl Source {
    /// The default of `product` (at `version`, when known).
    pub fn default_of(product: impl Into<Cow<'static, str>>, version: Option<Version>) -> Source {
        Source::Default(Arc::new(DefaultOf {
            product: product.into(),
            version,
            setting: None,
            note: None,
            implied_by: None,
        }))
    }

    /// The default of `setting` in `product`.
    pub fn default_setting(
        product: impl Into<Cow<'static, str>>,
        setting: impl Into<Cow<'static, str>>,
    ) -> Source {
        Source::Default(Arc::new(DefaultOf {
            product: product.into(),
            version: None,
            setting: Some(setting.into()),
            note: None,
            implied_by: None,
        }))
    }

    /// A default looked up for `version` (no effect on other sources).
    #[must_use]
    pub fn at_version(mut self, version: Option<Version>) -> Source {
        if let Source::Default(d) = &mut self {
            Arc::make_mut(d).version = version;
        }
        self
    }

    /// A default with a note saying why it applies (no effect on other sources).
    #[must_use]
    pub fn with_note(mut self, text: impl Into<String>) -> Source {
        if let Source::Default(d) = &mut self {
            Arc::make_mut(d).note = Some(text.into());
        }
        self
    }

    /// A default with what in the input implies its product (no effect on other sources).
    #[must_use]
    pub fn implied_by(mut self, what: impl Into<String>, span: Span) -> Source {
        if let Source::Default(d) = &mut self {
            Arc::make_mut(d).implied_by = Some((what.into(), span));
        }
        self
    }

    /// Whether two sources are the same but for where they are written: the same directive,
    /// annotation, key, argument or field (two copies of one manifest), or the same default.
    pub fn same_but_where(&self, other: &Source) -> bool {
        match (self, other) {
            (Source::Directive { name: a, .. }, Source::Directive { name: b, .. })
            | (Source::Annotation { key: a, .. }, Source::Annotation { key: b, .. })
            | (Source::ConfigMapKey { key: a, .. }, Source::ConfigMapKey { key: b, .. })
            | (Source::Argument { text: a, .. }, Source::Argument { text: b, .. })
            | (Source::Field { what: a, .. }, Source::Field { what: b, .. })
            | (Source::Declaration { what: a }, Source::Declaration { what: b }) => a == b,
            (Source::Default(a), Source::Default(b)) => {
                a.product == b.product
                    && a.version == b.version
                    && a.setting == b.setting
                    && a.note == b.note
                    && a.implied_by.as_ref().map(|(what, _)| what)
                        == b.implied_by.as_ref().map(|(what, _)| what)
            }
            _ => false,
        }
    }

    /// The span of the value, when it is written somewhere.
    pub fn span(&self) -> Option<Span> {
        match self {
            Source::Annotation { value_span, .. } | Source::ConfigMapKey { value_span, .. } => {
                Some(*value_span)
            }
            Source::Directive { span, .. }
            | Source::Argument { span, .. }
            | Source::Field { span, .. } => Some(*span),
            Source::Declaration { .. } | Source::Default(_) => None,
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

    /// Whether the value is a product default (nothing written).
    pub fn is_default(&self) -> bool {
        matches!(self, Source::Default(_))
    }

    /// The one citation of a source, for every message: "`proxy_read_timeout` at
    /// nginx.conf:11", "annotation `kubegap.io/ping-interval` at chat.yaml:7", "ConfigMap key
    /// `upstream-keepalive-timeout` at cm.yaml:9", "argument `--x` at f.yaml:3",
    /// "`spec.tuningOptions.tunnelTimeout` at f.yaml:3", "default of ingress-nginx v1.15.1",
    /// "default `keep-alive` of ingress-nginx".
    pub fn cite(&self, files: &SourceMap) -> String {
        match self {
            Source::Directive { name, span } => format!("`{name}` at {}", at(files, *span)),
            Source::Annotation { key, key_span, .. } => {
                format!("annotation `{key}` at {}", at(files, *key_span))
            }
            Source::ConfigMapKey { key, key_span, .. } => {
                format!("ConfigMap key `{key}` at {}", at(files, *key_span))
            }
            Source::Argument { text, span } => format!("argument `{text}` at {}", at(files, *span)),
            Source::Field { what, span } => format!("{what} at {}", at(files, *span)),
            Source::Declaration { what } => what.clone(),
            Source::Default(d) => {
                let DefaultOf {
                    product,
                    version,
                    setting,
                    note,
                    implied_by,
                } = &**d;
                let mut out = match setting {
                    Some(s) => format!("default `{s}` of {product}"),
                    None => format!("default of {product}"),
                };
                if let Some(v) = version {
                    out.push_str(&format!(" v{v}"));
                }
                if let Some(note) = note {
                    out.push_str(&format!("; {note}"));
                }
                if let Some((what, span)) = implied_by {
                    out.push_str(&format!("; {what} at {}", at(files, *span)));
                }
                out
            }
        }
    }

    /// The compact citation of chain lines: `api.yaml:9` for a written value, the declaration,
    /// `default of gunicorn, app.yaml:12` for a default implied by the input, else `default`.
    pub fn brief(&self, files: &SourceMap) -> String {
        match self {
            Source::Declaration { what } => what.clone(),
            Source::Default(d) => match &d.implied_by {
                Some((_, span)) => format!("default of {}, {}", d.product, at(files, *span)),
                None => "default".to_string(),
            },
            other => other.span().map_or_else(String::new, |s| at(files, s)),
        }
    }
}

/// An effective value and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting<T> {
    /// The value (durations as [`crate::value::duration::Millis`]).
    pub value: T,
    /// Where it came from. Shared: a route's settings, the chain values made from them and a
    /// product default used by every route are one source each, not a copy per holder (a
    /// `Source` is 56 bytes and a route holds eight optional settings).
    pub source: Arc<Source>,
}

impl<T> Setting<T> {
    /// A setting (a `Source`, or an `Arc` of one to share).
    pub fn new(value: T, source: impl Into<Arc<Source>>) -> Setting<T> {
        Setting {
            value,
            source: source.into(),
        }
    }
}

impl Setting<crate::value::duration::Millis> {
    /// "3600s (annotation `…`, ing.yaml:9)", "240s (default of ingress-nginx)" for messages.
    pub fn describe(&self, files: &SourceMap) -> String {
        format!("{} ({})", self.value, self.source.cite(files))
    }
}
