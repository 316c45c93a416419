//! Helpers of the nginx rules.

use crate::nginx::{DirectiveId, NginxConfig};
use crate::source::Span;

/// The `location` line, or the `proxy_pass` when it is not inside a location.
pub fn primary_span(cfg: &NginxConfig, location: DirectiveId, proxy_pass: DirectiveId) -> Span {
    let loc = cfg.get(location);
    if loc.name == "location" {
        loc.span
    } else {
        cfg.get(proxy_pass).span
    }
}
