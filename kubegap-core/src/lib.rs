//! kubegap-core: the pure library behind the `kubegap` linter.
//!
//! Pipeline: inputs → [`source`] files with line indexes → parsers ([`yaml`], [`haproxy`],
//! [`nginx`]) that never fail → the Kubernetes object graph ([`k8s`]) → [`rules`] run in
//! parallel by the [`engine`] → findings sorted once. No terminal, no clap, no process exit.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod chain;
pub mod config;
pub mod controllers;
pub mod diff;
pub mod engine;
pub mod finding;
pub mod fingerprint;
#[doc(hidden)]
pub mod fuzz;
pub mod haproxy;
pub mod k8s;
pub mod kind;
pub mod layout;
pub mod model;
pub mod nginx;
mod order;
pub mod phases;
pub mod reads;
pub mod reload;
pub mod rule;
pub mod rules;
pub mod source;
pub mod suggest;
pub mod suppress;
pub mod value;
pub mod yaml;

pub use config::Settings;
pub use engine::{lint, Input, Report, Summary};
pub use finding::{Finding, Label, ParseError, Severity};
pub use source::{FileId, FileKind, SourceFile, SourceMap, Span};
