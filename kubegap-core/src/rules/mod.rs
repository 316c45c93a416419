//! The rule registry. Every rule lives in its own file; [`RULES`] lists them all, sorted by id.

use crate::rule::Rule;

mod parse_error;
mod yaml_duplicate_key;

pub use parse_error::PARSE_ERROR;

/// Every rule, sorted by id (a test checks the order).
pub static RULES: &[&Rule] = &[
    &parse_error::PARSE_ERROR,
    &yaml_duplicate_key::YAML_DUPLICATE_KEY,
];

/// Looks a rule up by id.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.id == id)
}
