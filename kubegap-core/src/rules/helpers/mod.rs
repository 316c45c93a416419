//! Helpers shared by several rules. A rule never imports another rule's file; what two rules
//! share lives here, one module per input family.

pub mod nginx;
