//! Chains that start at Ingresses, Routes and LoadBalancer Services: the cloud load balancer
//! and the ingress controller, from the effective settings of [`crate::controllers`].

use super::Chain;
use crate::rule::Context;

/// Adds the chains of every Ingress, Route and LoadBalancer Service.
pub fn chains(cx: &Context<'_>, out: &mut Vec<Chain>) {
    let _ = (cx, out);
}
