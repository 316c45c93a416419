//! Cross-layer timeout chains: for every route, the hops from the outside in (declared outer
//! hops, the cloud load balancer, the in-cluster proxy, the Service, the application server),
//! each with its idle keep-alive and timeouts and the source of each value.

pub mod app;

#[cfg(test)]
mod tests;
