//! Settings: resolved options that rules read (versions, topology, rule selection).

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::finding::Severity;

/// A dotted version such as `2.8` or `1.29.7`, compared component by component.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Version(pub Vec<u32>);

impl Version {
    /// Parses `2.8`, `v1.29.7`, `1.25.3-alpine` (the numeric prefix). `None` if no number starts it.
    pub fn parse(text: &str) -> Option<Version> {
        let text = text.trim().trim_start_matches(['v', 'V']);
        let mut parts = Vec::new();
        for part in text.split('.') {
            let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
            if digits.is_empty() {
                break;
            }
            parts.push(digits.parse().ok()?);
            if digits.len() != part.len() {
                break;
            }
        }
        if parts.is_empty() {
            None
        } else {
            Some(Version(parts))
        }
    }

    /// Whether this version is at least `other` (missing components count as 0).
    pub fn at_least(&self, other: &[u32]) -> bool {
        for (i, want) in other.iter().enumerate() {
            let have = self.0.get(i).copied().unwrap_or(0);
            if have != *want {
                return have > *want;
            }
        }
        true
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.0.iter().map(u32::to_string).collect();
        f.write_str(&parts.join("."))
    }
}

/// Resolved settings for one run.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// HAProxy version the haproxy.cfg files run on (`cluster.haproxy_version`), if known.
    pub haproxy_version: Option<Version>,
    /// nginx version the nginx configs run on, if known.
    pub nginx_version: Option<Version>,
    /// nginx prefix for absolute `include` paths (`--nginx-prefix`).
    pub nginx_prefix: Option<PathBuf>,
    /// Number of schedulable nodes (`--nodes`), if known.
    pub nodes: Option<u32>,
    /// The input is the whole application (`--complete`): absence of objects is meaningful.
    pub complete: bool,
    /// An L7 load balancer sits in front of the proxies (topology).
    pub l7_in_front: bool,
    /// Outer hops declared in the topology, outermost first.
    pub topology: Vec<OuterHop>,
    /// If set, only these rules run.
    pub select: Option<Vec<String>>,
    /// Rules that do not run.
    pub ignore: Vec<String>,
    /// Per-rule severity overrides.
    pub severity: BTreeMap<String, Severity>,
}

/// A hop in front of the cluster, declared in the configuration (e.g. a CDN).
#[derive(Clone, Debug, PartialEq)]
pub struct OuterHop {
    /// Product name, e.g. `cloudfront`.
    pub product: String,
    /// Idle keep-alive towards the next hop, in seconds, and where it came from.
    pub keepalive_secs: Option<f64>,
    /// Read (response) timeout, in seconds.
    pub read_timeout_secs: Option<f64>,
    /// Where the values came from, for messages.
    pub source: String,
}

impl Settings {
    /// Whether a rule runs under this selection.
    pub fn rule_enabled(&self, id: &str) -> bool {
        if self.ignore.iter().any(|r| r == id) {
            return false;
        }
        match &self.select {
            Some(select) => select.iter().any(|r| r == id),
            None => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Version;

    #[test]
    fn versions() {
        let v = Version::parse("v1.29.7").unwrap();
        assert!(v.at_least(&[1, 29, 7]));
        assert!(!v.at_least(&[1, 30]));
        assert_eq!(Version::parse("1.25.3-alpine").unwrap().0, vec![1, 25, 3]);
        assert_eq!(Version::parse("latest"), None);
        assert!(Version::parse("2.8").unwrap().at_least(&[2, 4]));
    }
}
