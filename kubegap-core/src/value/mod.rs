//! The vocabulary of values shared by every layer: durations as each product writes them, read
//! into milliseconds by per-product parsers and printed by one formatter
//! ([`duration::format_ms`]), and the `kubegap.io/*` declarations with their lookup order
//! ([`declarations`]).

pub mod declarations;
pub mod duration;
pub mod provenance;
