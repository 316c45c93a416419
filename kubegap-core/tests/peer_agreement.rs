//! Agreement with peers on their own fixtures (issue #7).
//!
//! kube-score, kube-linter and Polaris ship test fixtures with expected verdicts
//! (`../shared/corpus/peer-tests/<peer>/expectations.tsv`). For the checks that overlap with
//! kubegap's rules (readiness probe, PDB, HPA replicas, Service targets pod, Ingress targets
//! Service, anti-affinity, probe ports, rollout strategy), this test runs kubegap's rule on the
//! peer's fixture and compares verdicts: per file for kube-score and Polaris (their tests grade
//! one file), per object for kube-linter (its tests list every report, by kind and container).
//!
//! Every deliberate disagreement is in [`EXCEPTIONS`] with its reason, and in `docs/PEERS.md`.
//! The test fails on any other disagreement, and on an exception that no longer disagrees.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use kubegap_core::k8s::{pod, Graph};
use kubegap_core::{kind, lint, Finding, Input, Settings, Severity};

/// kubegap asks for readiness probes and budgets only where traffic arrives.
const TARGETED: &str = "kubegap asks for readiness probes and budgets only where a Service sends traffic (and, for budgets, 2+ replicas); the fixture has no Service (docs/PEERS.md, 'Context')";
/// kubegap asks for node spread only of proxies.
const PROXIES: &str = "kubegap asks for node spread only of proxies, where a shared node also shares a conntrack table; detection agrees, see the '(anti-affinity detection)' case (docs/PEERS.md, 'Spread')";
/// Polaris requires topologySpreadConstraints specifically.
const TSC: &str = "Polaris requires topologySpreadConstraints on every workload; kubegap asks spread only of proxies and accepts anti-affinity too (docs/PEERS.md, 'Spread')";
/// PDB arithmetic against the replica floor.
const FLOOR: &str = "kubegap counts the pods at their floor (HPA minReplicas, else replicas, default 1) and minAvailable equal to it already blocks eviction; Polaris compares only with a matching HPA's minReplicas, strictly (docs/PEERS.md, 'PDB arithmetic')";

/// Deliberate disagreements: (peer, case id, reason). The case id is `<fixture> <check>` as
/// printed on failure. Keep in sync with `docs/PEERS.md`.
const EXCEPTIONS: &[(&str, &str, &str)] = &[
    ("kube-linter", "tests/checks/no-anti-affinity.yml no-anti-affinity", PROXIES),
    ("kube-linter", "tests/checks/no-readiness-probe.yml no-readiness-probe", TARGETED),
    ("kube-linter", "tests/checks/pdb-min-available.yaml pdb-min-available", "Deployment `foo` has no pod template, only spec.selector; kubegap matches budgets against pod template labels, which is what the disruption controller sees (docs/PEERS.md, 'PDB arithmetic')"),
    ("kube-score", "deployment-host-antiaffinity-not-set.yaml Deployment has host PodAntiAffinity", PROXIES),
    ("kube-score", "deployment-host-antiaffinity-preffered-selector-no-match.yaml Deployment has host PodAntiAffinity", PROXIES),
    ("kube-score", "deployment-poddisruptionbudget-v1-different-namespace.yaml Deployment has PodDisruptionBudget", TARGETED),
    ("kube-score", "deployment-poddisruptionbudget-v1-no-match.yaml Deployment has PodDisruptionBudget", TARGETED),
    ("kube-score", "deployment-poddisruptionbudget-v1beta1-expression-no-match.yaml Deployment has PodDisruptionBudget", TARGETED),
    ("kube-score", "deployment-poddisruptionbudget-v1beta1-no-match.yaml Deployment has PodDisruptionBudget", TARGETED),
    ("kube-score", "hpa-target-deployment.yaml Deployment Replicas", "kube-score skips HPA-scaled Deployments; kubegap reads the HPA's `minReplicas: 1` as the floor and reports the single replica as info (docs/PEERS.md, 'Replicas')"),
    ("kube-score", "ingress_issue363.yaml Ingress targets Service", "the fixture writes the v1beta1 `serviceName` form under networking.k8s.io/v1; kubegap reads both forms and the Service exists; schema errors are a schema validator's job (docs/PEERS.md, 'Ingress')"),
    ("kube-score", "service-target-deployment-different-namespace.yaml Service Targets Pod", "k8s-service-selects-nothing fires only when the Service's namespace has workloads in the input; here it has none, so the pods may come from elsewhere (docs/PEERS.md, 'Partial input')"),
    ("kube-score", "service-target-pod-different-namespace.yaml Service Targets Pod", "k8s-service-selects-nothing fires only when the Service's namespace has workloads in the input; here it has none, so the pods may come from elsewhere (docs/PEERS.md, 'Partial input')"),
    ("kube-score", "statefulset-host-antiaffinity-not-set.yaml StatefulSet has host PodAntiAffinity", PROXIES),
    ("kube-score", "statefulset-host-antiaffinity-undefined-replicas.yaml StatefulSet has host PodAntiAffinity", PROXIES),
    ("kube-score", "statefulset-poddisruptionbudget-v1beta1-expression-no-match.yaml StatefulSet has PodDisruptionBudget", TARGETED),
    ("kube-score", "statefulset-poddisruptionbudget-v1beta1-no-match.yaml StatefulSet has PodDisruptionBudget", TARGETED),
    ("polaris", "failure-bad-ns.yaml missingPodDisruptionBudget", TARGETED),
    ("polaris", "failure.bad-name.yaml missingPodDisruptionBudget", TARGETED),
    ("polaris", "failure.empty-labels.yaml missingPodDisruptionBudget", TARGETED),
    ("polaris", "failure.empty.yaml topologySpreadConstraint", TSC),
    ("polaris", "failure.no-labels.yaml missingPodDisruptionBudget", TARGETED),
    ("polaris", "failure.no-metadata.yaml missingPodDisruptionBudget", TARGETED),
    ("polaris", "failure.nospreadconstraint.yaml topologySpreadConstraint", TSC),
    ("polaris", "failure.wrong-place.yaml missingPodDisruptionBudget", TARGETED),
    ("polaris", "failure.yaml missingPodDisruptionBudget", TARGETED),
    ("polaris", "failure.yaml readinessProbeMissing", TARGETED),
    ("polaris", "success.equals.yaml pdbMinAvailableGreaterThanHPAMinReplicas", FLOOR),
    ("polaris", "success.hpa-no-match.yaml pdbMinAvailableGreaterThanHPAMinReplicas", FLOOR),
    ("polaris", "success.no-hpa.yaml pdbMinAvailableGreaterThanHPAMinReplicas", FLOOR),
    ("polaris", "success.no-min-replicas.yaml pdbMinAvailableGreaterThanHPAMinReplicas", FLOOR),
];

mod support;

fn peer_tests() -> PathBuf {
    support::corpus().join("peer-tests")
}

/// A kubegap rule standing in for a peer check, with a finding filter.
struct Mapping {
    rule: &'static str,
    /// Which findings of the rule count (by severity or message), for rules that cover more
    /// than the peer check.
    counts: fn(&Finding) -> bool,
    /// Whether the peer check reports per container (key `Kind: container`) or per object.
    per_container: bool,
}

fn any(_: &Finding) -> bool {
    true
}

const fn map(rule: &'static str) -> Mapping {
    Mapping {
        rule,
        counts: any,
        per_container: false,
    }
}

/// The outcome of one comparison.
struct Outcome {
    peer: &'static str,
    case: String,
    expected: Vec<String>,
    got: Vec<String>,
}

/// Lints one fixture with one rule and returns the findings with the kind of the object each
/// primary span is in.
fn run(path: &Path, rule: &str, settings: &Settings) -> Vec<(Finding, String)> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file_kind = kind::detect(path, Some(&bytes[..bytes.len().min(4096)]))
        .unwrap_or(kubegap_core::FileKind::Yaml);
    let input = Input {
        name: path.display().to_string(),
        path: Some(path.to_path_buf()),
        bytes: bytes.clone(),
        kind: file_kind,
        canonical: None,
        prepared: None,
    };
    let settings = Settings {
        select: Some(vec![rule.to_string()]),
        ..settings.clone()
    };
    let report = lint(vec![input], &settings);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (docs, _) = kubegap_core::yaml::parse(kubegap_core::FileId(0), &text);
    report
        .findings
        .into_iter()
        .filter(|f| f.rule == rule)
        .map(|f| {
            let kind = docs
                .iter()
                .rev()
                .find(|d| d.start <= f.span.start)
                .and_then(|d| d.root())
                .and_then(|r| r.str_at(&["kind"]))
                .unwrap_or("?")
                .to_string();
            (f, kind)
        })
        .collect()
}

/// The container name in a kubegap message (`container `NAME``).
fn container_of(message: &str) -> String {
    message
        .split_once("container `")
        .and_then(|(_, rest)| rest.split_once('`'))
        .map_or_else(String::new, |(name, _)| name.to_string())
}

/// Verdict keys of kubegap's findings under a mapping: `fires` for file-level peers.
fn file_verdict(findings: &[(Finding, String)], mapping: &Mapping) -> Vec<String> {
    if findings.iter().any(|(f, _)| (mapping.counts)(f)) {
        vec!["fires".to_string()]
    } else {
        Vec::new()
    }
}

/// Anti-affinity as kubegap's rules see it (`pod::host_anti_affinity`), independent of which
/// workloads a rule asks it of: the kinds of the multi-replica Deployments, StatefulSets and
/// DeploymentConfigs (replicas at least 2, or unset) that have no `kubernetes.io/hostname`
/// anti-affinity term against their own pods.
fn without_host_anti_affinity(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (docs, _) = kubegap_core::yaml::parse(kubegap_core::FileId(0), &text);
    let graph = Graph::build(&docs);
    let mut out: Vec<String> = graph
        .workloads
        .iter()
        .filter(|w| {
            let kind = graph.objects[w.obj].kind.as_str();
            let multi = w
                .replicas
                .is_none_or(|at| graph.node(&docs, at).as_i64().is_none_or(|n| n >= 2));
            matches!(kind, "Deployment" | "StatefulSet" | "DeploymentConfig") && multi
        })
        .filter(|w| {
            let anti = pod::host_anti_affinity(&graph, &docs, w);
            anti.required.is_empty() && !anti.preferred
        })
        .map(|w| graph.objects[w.obj].kind.to_string())
        .collect();
    out.sort();
    out
}

fn tsv(peer: &str) -> Vec<Vec<String>> {
    let path = peer_tests().join(peer).join("expectations.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the peer corpus is part of the repository's shared data)",
            path.display()
        )
    });
    text.lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn is_warning_or_worse(f: &Finding) -> bool {
    f.severity >= Severity::Warning
}

fn is_single_replica(f: &Finding) -> bool {
    f.severity == Severity::Info
}

fn is_identical_probe(f: &Finding) -> bool {
    f.message.contains("is the readiness probe's")
}

fn kube_score() -> Vec<Outcome> {
    let settings = Settings {
        // kube-score grades the file as the whole application.
        complete: true,
        ..Settings::default()
    };
    let mut out = Vec::new();
    for row in tsv("kube-score") {
        let [file, check, grade, skip, config, ..] = row.as_slice() else {
            continue;
        };
        let mapping = match check.as_str() {
            "Pod Probes" => map("k8s-no-readiness-probe-behind-service"),
            "Pod Probes Identical" => Mapping {
                counts: is_identical_probe,
                ..map("k8s-risky-liveness-probe")
            },
            "Deployment has PodDisruptionBudget" | "StatefulSet has PodDisruptionBudget" => {
                map("k8s-no-pdb")
            }
            "Deployment targeted by HPA does not have replicas configured" => {
                map("k8s-hpa-with-static-replicas")
            }
            "Service Targets Pod" => map("k8s-service-selects-nothing"),
            "Ingress targets Service" => map("k8s-ingress-backend-missing"),
            "Deployment has host PodAntiAffinity" | "StatefulSet has host PodAntiAffinity" => {
                map("k8s-edge-proxy-not-spread")
            }
            "Deployment Strategy" => Mapping {
                counts: is_warning_or_worse,
                ..map("k8s-rollout-removes-all-backends")
            },
            "Deployment Replicas" => Mapping {
                counts: is_single_replica,
                ..map("k8s-rollout-removes-all-backends")
            },
            _ => continue,
        };
        // kubegap has no replica threshold option: compare only kube-score's default (2).
        if check == "Deployment Replicas"
            && !(config.contains("default") || config.contains("MinReplicasDeployment: 2,"))
        {
            continue;
        }
        let fires = if skip.contains("true") {
            false
        } else {
            grade.starts_with("1 ") || grade.starts_with("5 ")
        };
        let path = peer_tests().join("kube-score/score/testdata").join(file);
        if check.ends_with("host PodAntiAffinity") && !grade.starts_with("0 ") {
            let missing = !without_host_anti_affinity(&path).is_empty();
            out.push(Outcome {
                peer: "kube-score",
                case: format!("{file} {check} (anti-affinity detection)"),
                expected: if fires {
                    vec!["fires".to_string()]
                } else {
                    Vec::new()
                },
                got: if missing {
                    vec!["fires".to_string()]
                } else {
                    Vec::new()
                },
            });
        }
        let findings = run(&path, mapping.rule, &settings);
        out.push(Outcome {
            peer: "kube-score",
            case: format!("{file} {check}"),
            expected: if fires {
                vec!["fires".to_string()]
            } else {
                Vec::new()
            },
            got: file_verdict(&findings, &mapping),
        });
    }
    out
}

fn polaris() -> Vec<Outcome> {
    let settings = Settings {
        complete: true,
        ..Settings::default()
    };
    let mut out = Vec::new();
    for row in tsv("polaris") {
        let [check, file, expected, ..] = row.as_slice() else {
            continue;
        };
        let mapping = match check.as_str() {
            "readinessProbeMissing" => map("k8s-no-readiness-probe-behind-service"),
            "missingPodDisruptionBudget" => map("k8s-no-pdb"),
            "pdbDisruptionsIsZero" | "pdbMinAvailableGreaterThanHPAMinReplicas" => {
                map("k8s-pdb-blocks-eviction")
            }
            "topologySpreadConstraint" => map("k8s-edge-proxy-not-spread"),
            _ => continue,
        };
        let fires = if expected.starts_with("failure") {
            true
        } else if expected.starts_with("success") {
            false
        } else {
            // `mutated` files are `polaris fix` outputs, not verdicts.
            continue;
        };
        let path = peer_tests()
            .join("polaris/test/checks")
            .join(check)
            .join(file);
        let findings = run(&path, mapping.rule, &settings);
        out.push(Outcome {
            peer: "polaris",
            case: format!("{file} {check}"),
            expected: if fires {
                vec!["fires".to_string()]
            } else {
                Vec::new()
            },
            got: file_verdict(&findings, &mapping),
        });
    }
    out
}

/// Undoes the TSV's CSV-style quoting of a field.
fn unquote(field: &str) -> String {
    match field.strip_prefix('"').and_then(|f| f.strip_suffix('"')) {
        Some(inner) => inner.replace("\"\"", "\""),
        None => field.to_string(),
    }
}

fn kube_linter() -> Vec<Outcome> {
    let settings = Settings::default();
    let mut out = Vec::new();
    for row in tsv("kube-linter") {
        let [_, file, check, _, _, _, messages, ..] = row.as_slice() else {
            continue;
        };
        let probe = Mapping {
            per_container: true,
            ..map("k8s-probe-port-missing")
        };
        let (mapping, probe_field): (Mapping, Option<&str>) = match check.as_str() {
            "dangling-service" => (map("k8s-service-selects-nothing"), None),
            "dangling-ingress" => (map("k8s-ingress-backend-missing"), None),
            "liveness-port" => (probe, Some("livenessProbe")),
            "readiness-port" => (probe, Some("readinessProbe")),
            "startup-port" => (probe, Some("startupProbe")),
            "no-readiness-probe" => (
                Mapping {
                    per_container: true,
                    ..map("k8s-no-readiness-probe-behind-service")
                },
                None,
            ),
            "pdb-max-unavailable" | "pdb-min-available" => (map("k8s-pdb-blocks-eviction"), None),
            "no-anti-affinity" => (map("k8s-edge-proxy-not-spread"), None),
            _ => continue,
        };
        let mut expected: Vec<String> = unquote(messages)
            .split(" || ")
            .filter(|m| !m.trim().is_empty())
            .map(|m| {
                let m = m.trim().trim_start_matches("== ").trim_start_matches("=~ ");
                let (kind, rest) = m.split_once(": ").unwrap_or((m, ""));
                if mapping.per_container {
                    let container = rest.split('"').nth(1).unwrap_or_default();
                    format!("{kind}: {container}")
                } else {
                    kind.to_string()
                }
            })
            .collect();
        expected.sort();
        let path = peer_tests().join("kube-linter").join(file);
        if check == "no-anti-affinity" {
            out.push(Outcome {
                peer: "kube-linter",
                case: format!("{file} {check} (anti-affinity detection)"),
                expected: expected.clone(),
                got: without_host_anti_affinity(&path),
            });
        }
        let mut got: Vec<String> = run(&path, mapping.rule, &settings)
            .into_iter()
            .filter(|(f, _)| (mapping.counts)(f))
            .filter(|(f, _)| probe_field.is_none_or(|p| f.message.contains(&format!("the {p}"))))
            .map(|(f, kind)| {
                if mapping.per_container {
                    format!("{kind}: {}", container_of(&f.message))
                } else {
                    kind
                }
            })
            .collect();
        got.sort();
        out.push(Outcome {
            peer: "kube-linter",
            case: format!("{file} {check}"),
            expected,
            got,
        });
    }
    out
}

#[test]
fn kubegap_agrees_with_peers_on_their_fixtures() {
    if !support::present(&peer_tests(), "kubegap_agrees_with_peers_on_their_fixtures") {
        return;
    }
    let outcomes: Vec<Outcome> = kube_score()
        .into_iter()
        .chain(polaris())
        .chain(kube_linter())
        .collect();
    let mut per_peer: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut disagreements: BTreeMap<(&str, String), String> = BTreeMap::new();
    for o in &outcomes {
        let entry = per_peer.entry(o.peer).or_default();
        entry.0 += 1;
        if o.expected == o.got {
            entry.1 += 1;
        } else {
            disagreements.insert(
                (o.peer, o.case.clone()),
                format!(
                    "{}: {}\n    peer expects {:?}\n    kubegap gives {:?}",
                    o.peer, o.case, o.expected, o.got
                ),
            );
        }
    }
    for (peer, (total, agreed)) in &per_peer {
        println!("{peer}: {agreed}/{total} verdicts agree");
    }
    let listed: BTreeSet<(&str, String)> = EXCEPTIONS
        .iter()
        .map(|(peer, case, _)| (*peer, case.to_string()))
        .collect();
    let unexpected: Vec<&String> = disagreements
        .iter()
        .filter(|(key, _)| !listed.contains(*key))
        .map(|(_, detail)| detail)
        .collect();
    let stale: Vec<&(&str, String)> = listed
        .iter()
        .filter(|key| !disagreements.contains_key(*key))
        .collect();
    assert!(
        unexpected.is_empty() && stale.is_empty(),
        "disagreements not in EXCEPTIONS (fix kubegap, or list them with a reason here and in docs/PEERS.md):\n{}\n\nexceptions that now agree (remove them): {stale:?}",
        unexpected
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    // Every deliberate disagreement is documented, with its reason, in docs/PEERS.md.
    let doc_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/PEERS.md");
    let doc = std::fs::read_to_string(&doc_path)
        .unwrap_or_else(|e| panic!("{}: {e}", doc_path.display()));
    let undocumented: Vec<&str> = EXCEPTIONS
        .iter()
        .filter(|(_, case, reason)| reason.is_empty() || !doc.contains(&format!("`{case}`")))
        .map(|(_, case, _)| *case)
        .collect();
    assert!(
        undocumented.is_empty(),
        "exceptions missing from docs/PEERS.md: {undocumented:?}"
    );
    // The comparison must keep covering every peer.
    for peer in ["kube-score", "kube-linter", "polaris"] {
        assert!(
            per_peer.get(peer).is_some_and(|(total, _)| *total > 0),
            "no verdicts compared for {peer}"
        );
    }
}
