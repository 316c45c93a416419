//! Tests of the object graph.

use super::*;
use crate::source::FileId;

fn graph(text: &str) -> (Vec<Document>, Graph) {
    let (docs, errors) = crate::yaml::parse(FileId(0), text);
    assert!(errors.is_empty(), "{errors:?}");
    let g = Graph::build(&docs);
    (docs, g)
}

/// The graph of `(name, text)` files with their places, the files numbered in order or, with
/// `backwards`, from the last (documents then not in file-id order).
fn graph_of_files(files: &[(&str, String)], backwards: bool) -> (Vec<Document>, Graph) {
    let mut docs = Vec::new();
    let mut names = Vec::new();
    for (i, (name, text)) in files.iter().enumerate() {
        let n = u32::try_from(i).unwrap();
        let id = FileId(if backwards { 100 - n } else { n });
        let (d, errors) = crate::yaml::parse(id, text.as_str());
        assert!(errors.is_empty(), "{errors:?}");
        docs.extend(d);
        names.push((id, *name));
    }
    let g = Graph::build_in(&docs, scope::Places::build(&docs, names.iter().copied()));
    (docs, g)
}

const APP: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: web, tier: fe}}
    spec:
      containers:
        - name: web
          image: nginx:1.25
          ports: [{name: http, containerPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec:
  minAvailable: 1
  selector:
    matchExpressions: [{key: tier, operator: In, values: [fe]}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
"#;

#[test]
fn resolves_references() {
    let (_docs, g) = graph(APP);
    assert_eq!(g.object_count(), 4);
    let svc = g.service("shop", "web").unwrap();
    assert_eq!(g.service_targets(svc).len(), 1);
    assert_eq!(g.pdb_targets(&g.pdbs[0]).len(), 1);
    assert!(g.hpa_target(&g.hpas[0]).is_some());
    assert_eq!(
        g.workloads[0].containers[0].ports[0].name.as_deref(),
        Some("http")
    );
    assert!(g.service("default", "web").is_none());
}

#[test]
fn list_items_are_objects() {
    let text = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: a}}\n- {apiVersion: v1, kind: Service, metadata: {name: b}}\n";
    let (_docs, g) = graph(text);
    assert_eq!(g.object_count(), 2);
    assert_eq!(g.services.len(), 2);
    assert_eq!(g.objects[0].namespace, "default");
}

/// A dump's items are read in parallel (in parts of [`LIST_ITEMS_PER_TASK`]) and numbered in
/// the order they are written, the items that are not objects skipped.
#[test]
fn a_long_list_keeps_its_items_in_order() {
    let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for i in 0..4 * LIST_ITEMS_PER_TASK + 7 {
        if i % 100 == 50 {
            text.push_str("- {not: an object}\n");
        }
        let kind = if i % 3 == 0 { "Service" } else { "ConfigMap" };
        text.push_str(&format!(
            "- {{apiVersion: v1, kind: {kind}, metadata: {{name: o{i}}}}}\n"
        ));
    }
    let (_docs, g) = graph(&text);
    let names: Vec<String> = g.objects.iter().map(|o| o.name.to_string()).collect();
    let want: Vec<String> = (0..4 * LIST_ITEMS_PER_TASK + 7)
        .map(|i| format!("o{i}"))
        .collect();
    assert_eq!(names, want);
    let services: Vec<&str> = g
        .services
        .iter()
        .map(|s| g.objects[s.obj].name.as_str())
        .collect();
    assert_eq!(services.len(), (4 * LIST_ITEMS_PER_TASK + 7).div_ceil(3));
    assert!(services.windows(2).all(|w| w[0] != w[1]));
    assert_eq!(services[..3], ["o0", "o3", "o6"]);
}

/// A workload has an external Service when a LoadBalancer or NodePort Service selects it,
/// whatever the other Services of its list; a ClusterIP Service, a headless one or none is not.
#[test]
fn external_services_are_known_per_list() {
    let app = |name: &str| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n    spec: {{containers: [{{name: c, image: nginx}}]}}\n---\n")
    };
    let service = |name: &str, app: &str, ty: &str| {
        format!("apiVersion: v1\nkind: Service\nmetadata: {{name: {name}}}\nspec:\n  {ty}selector: {{app: {app}}}\n  ports: [{{port: 80}}]\n---\n")
    };
    let text = [
        app("lb"),
        app("nodeport"),
        app("cluster"),
        app("alone"),
        service("lb-internal", "lb", ""),
        service("lb", "lb", "type: LoadBalancer\n  "),
        service("nodeport", "nodeport", "type: NodePort\n  "),
        service("cluster", "cluster", "type: ClusterIP\n  "),
        service("cluster-headless", "cluster", "clusterIP: None\n  "),
    ]
    .concat();
    let (_docs, g) = graph(&text);
    let external: Vec<(&str, bool)> = g
        .workloads
        .iter()
        .map(|w| (g.objects[w.obj].name.as_str(), g.has_external_service(w)))
        .collect();
    assert_eq!(
        external,
        [
            ("lb", true),
            ("nodeport", true),
            ("cluster", false),
            ("alone", false)
        ]
    );
}

#[test]
fn documents_without_kind_are_skipped() {
    let (_docs, g) = graph("foo: bar\n---\n- 1\n---\n");
    assert_eq!(g.object_count(), 0);
}

/// N copies of one release in one file: every Service selects every copy's pods, yet the
/// graph keeps one list each way (linear memory), with the answers of a pairwise match.
#[test]
fn copies_share_their_links() {
    let one = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n---\napiVersion: v1\nkind: Service\nmetadata: {name: other}\nspec:\n  selector: {app: other}\n  ports: [{port: 80}]\n---\n";
    let (_docs, g) = graph(&one.repeat(4));
    assert_eq!(g.workloads.len(), 4);
    for (i, s) in g.services.iter().enumerate() {
        let targets: Vec<ObjId> = g.service_targets(s).iter().map(|w| w.obj).collect();
        if i % 2 == 0 {
            let all: Vec<ObjId> = g.workloads.iter().map(|w| w.obj).collect();
            assert_eq!(targets, all);
        } else {
            assert!(targets.is_empty());
        }
    }
    let selecting: Vec<ObjId> = g.services.iter().step_by(2).map(|s| s.obj).collect();
    for w in &g.workloads {
        let services: Vec<ObjId> = g.services_of(w).iter().map(|s| s.obj).collect();
        assert_eq!(services, selecting, "in input order");
    }
    assert_eq!(g.selector_lists(), 1);
    for w in &g.workloads {
        assert_eq!(g.traffic_services_of(w).len(), 4);
    }
    // Lookups by name: four Services `web` equally near are ambiguous from anywhere.
    assert!(matches!(
        g.service_from(g.workloads[0].obj, "default", "web"),
        Lookup::Ambiguous(found) if found.len() == 4
    ));
    // Past the memo's threshold, the memoised answer is the computed one, from any object of
    // the file.
    let (_docs, g) = graph(&one.repeat(40));
    for w in [&g.workloads[0], &g.workloads[39], &g.workloads[0]] {
        assert!(matches!(
            g.service_from(w.obj, "default", "web"),
            Lookup::Ambiguous(found) if found.len() == 40
        ));
    }
}

#[test]
fn find_returns_every_object_with_the_key_in_input_order_and_no_other() {
    // Kinds, namespaces and names that share prefixes and lengths, repeated in mixed order.
    let kinds = ["Service", "ConfigMap", "Secret"];
    let names = ["a", "b", "ab", "ba", "web", "we", ""];
    let namespaces = ["default", "shop", "sho"];
    let mut text = String::new();
    let mut all = Vec::new();
    for i in 0..300usize {
        let (kind, ns, name) = (kinds[i % 3], namespaces[i % 7 % 3], names[i % 11 % 7]);
        text.push_str(&format!(
            "---\napiVersion: v1\nkind: {kind}\nmetadata: {{name: \"{name}\", namespace: {ns}}}\n"
        ));
        all.push((kind, ns, name));
    }
    let (_docs, g) = graph(&text);
    assert_eq!(g.objects.len(), all.len());
    for kind in kinds.iter().chain(&["Deployment"]) {
        for ns in namespaces {
            for name in names {
                let want: Vec<ObjId> = (0..all.len())
                    .filter(|i| all[*i] == (*kind, ns, name))
                    .collect();
                assert_eq!(
                    g.find(kind, ns, name),
                    want.as_slice(),
                    "{kind} {ns}/{name}"
                );
            }
        }
    }
}

#[test]
fn workloads_selected_by_the_same_services_share_their_exposures() {
    // Three copies of a release in one stream: every copy's LoadBalancer Service selects every
    // copy's Deployment, so all three have one list of Services and one list of exposures.
    let release = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx}]\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  type: LoadBalancer\n  selector: {app: web}\n  ports: [{port: 80}]\n---\n";
    let mut lone = release.replace("web", "api");
    lone.push_str("apiVersion: v1\nkind: Service\nmetadata: {name: api-internal}\nspec:\n  selector: {app: api}\n  ports: [{port: 80}]\n");
    let (docs, g) = graph(&format!("{release}{release}{release}{lone}"));
    let services: Vec<ObjId> = g.services.iter().map(|s| s.obj).collect();
    let exposed = |w: &Workload| -> Vec<(ObjId, ObjId)> {
        pod::exposures(&g, &docs, w)
            .iter()
            .map(|e| (e.obj, e.service))
            .collect()
    };
    let copies = [&g.workloads[0], &g.workloads[1], &g.workloads[2]];
    let all = vec![
        (services[0], services[0]),
        (services[1], services[1]),
        (services[2], services[2]),
    ];
    for w in copies {
        assert_eq!(exposed(w), all);
        // Made once, for the first copy asked, and the same slice for the others.
        assert!(std::ptr::eq(
            pod::exposures(&g, &docs, w),
            pod::exposures(&g, &docs, copies[0])
        ));
    }
    // The other release: its own LoadBalancer, not its ClusterIP Service.
    assert_eq!(exposed(&g.workloads[3]), vec![(services[3], services[3])]);
}

#[test]
fn pdbs_with_one_selector_in_one_file_share_their_targets() {
    let copy = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx}]\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec:\n  maxUnavailable: 1\n  selector: {matchLabels: {app: web}}\n---\n";
    let other = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: api}\nspec:\n  maxUnavailable: 1\n  selector: {matchLabels: {app: api}}\n";
    let (_docs, g) = graph(&format!("{copy}{copy}{copy}{other}"));
    let lists: Vec<Option<usize>> = g.pdbs.iter().map(|p| g.pdb_target_list(p)).collect();
    assert_eq!(lists, [Some(0), Some(0), Some(0), Some(1)]);
    let all: Vec<ObjId> = g.workloads.iter().map(|w| w.obj).collect();
    for pdb in &g.pdbs[..3] {
        let targets: Vec<ObjId> = g.pdb_targets(pdb).iter().map(|w| w.obj).collect();
        assert_eq!(targets, all);
    }
    assert!(g.pdb_target_indices(&g.pdbs[3]).is_empty());
    assert!(g.workloads.iter().all(|w| g.has_pdb(w)));
}

#[test]
fn nearest_selected_workloads_are_those_of_a_scan_of_every_candidate() {
    // Services and PDBs selecting `app: web` from files that hold such a workload, from
    // directories that do (beside a workload of another namespace, and one in a
    // subdirectory), and from where only the whole run does. The file and directory
    // shortcuts must give what the nearness of every candidate gives.
    let dep = |name: &str, ns: &str| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: {ns}}}\nspec:\n  template:\n    metadata: {{labels: {{app: web, tier: {name}}}}}\n    spec:\n      containers: [{{name: c, image: nginx}}]\n---\n")
    };
    let svc = |name: &str, ns: &str| {
        format!("apiVersion: v1\nkind: Service\nmetadata: {{name: {name}, namespace: {ns}}}\nspec:\n  selector: {{app: web}}\n  ports: [{{port: 80}}]\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: {name}, namespace: {ns}}}\nspec:\n  maxUnavailable: 1\n  selector: {{matchLabels: {{app: web}}}}\n---\n")
    };
    let files: Vec<(&str, String)> = vec![
        ("a/dep1.yaml", dep("d1", "ns")),
        ("a/dep2.yaml", dep("d2", "ns") + &svc("s2", "ns")),
        ("a/other.yaml", dep("o1", "other")),
        ("a/sub/dep3.yaml", dep("d3", "ns")),
        ("a/svc.yaml", svc("s1", "ns")),
        ("b/svc.yaml", svc("s3", "ns")),
        ("b/deep/svc.yaml", svc("s4", "ns")),
        ("c/dep.yaml", dep("d4", "ns") + &dep("d5", "ns")),
        ("c/svc.yaml", svc("s5", "ns") + &svc("s6", "other")),
        // More candidates than directory a has objects, so that its directory is looked at.
        (
            "e/many.yaml",
            dep("d6", "ns") + &dep("d7", "ns") + &dep("d8", "ns"),
        ),
    ];
    // Once in file order, once with the files numbered backwards (workloads then not in
    // file order: no shortcut).
    for backwards in [false, true] {
        let (_docs, g) = graph_of_files(&files, backwards);
        assert_eq!(g.objects_by_file, !backwards);
        let scan = |from: ObjId, ns: &str| -> Vec<usize> {
            let matching = (0..g.workloads.len()).filter(|wi| {
                let w = &g.workloads[*wi];
                g.objects[w.obj].namespace == ns
                    && w.labels.get("app").map(|v| v.as_str()) == Some("web")
            });
            g.nearest(from, matching, |wi| g.workloads[wi].obj).0
        };
        let name_of = |wi: &usize| g.objects[g.workloads[*wi].obj].name.to_string();
        let mut seen = Vec::new();
        for (s, p) in g.services.iter().zip(&g.pdbs) {
            let o = &g.objects[s.obj];
            let expected = scan(s.obj, &o.namespace);
            assert_eq!(g.service_target_indices(s), expected, "{}", o.name);
            assert_eq!(g.pdb_target_indices(p), expected, "{}", o.name);
            seen.push((
                o.name.to_string(),
                expected.iter().map(name_of).collect::<Vec<_>>(),
            ));
        }
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            seen,
            vec![
                ("s2".to_string(), names(&["d2"])),
                ("s1".to_string(), names(&["d1", "d2"])),
                (
                    "s3".to_string(),
                    names(&["d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8"])
                ),
                (
                    "s4".to_string(),
                    names(&["d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8"])
                ),
                ("s5".to_string(), names(&["d4", "d5"])),
                ("s6".to_string(), names(&["o1"])),
            ],
            "backwards: {backwards}"
        );
    }
}

#[test]
fn a_name_resolves_to_what_a_scan_of_every_same_named_object_gives() {
    // Services named `web` in one file, beside others in one directory, in a subdirectory and
    // elsewhere; every object of the input looks the name up.
    let svc = "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: ns}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n---\n";
    let ing = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web, namespace: ns}\nspec:\n  defaultBackend: {service: {name: web, port: {number: 80}}}\n---\n";
    let files: Vec<(&str, String)> = vec![
        ("a/both.yaml", format!("{svc}{ing}{svc}")),
        ("a/ingress.yaml", ing.to_string()),
        ("a/svc.yaml", svc.to_string()),
        ("a/sub/svc.yaml", svc.to_string()),
        ("b/ingress.yaml", ing.to_string()),
        ("c/svc.yaml", format!("{svc}{svc}")),
        ("c/d/ingress.yaml", ing.to_string()),
    ];
    for backwards in [false, true] {
        let (_docs, g) = graph_of_files(&files, backwards);
        assert_eq!(g.objects_by_file, !backwards);
        let candidates = g.find("Service", "ns", "web");
        assert_eq!(candidates.len(), 6);
        let mut near = Vec::new();
        for from in 0..g.object_count() {
            let (found, how) = g.nearest_named(from, candidates);
            let (scanned, scan_how) = g.nearest(from, candidates.iter().copied(), |o| o);
            assert_eq!((&*found, how), (&scanned[..], scan_how), "from {from}");
            near.push((found.len(), how));
        }
        // The file, the directory and the whole run each answered some lookup.
        for want in [Near::File, Near::Dir, Near::Run] {
            assert!(
                near.iter().any(|(_, how)| *how == Some(want)),
                "{want:?}: {near:?}"
            );
        }
    }
}

/// Many same-named objects in one file (copies of a release in one stream) are listed once for
/// every question asked from that file, not once per question: the answers share one list.
#[test]
fn a_file_s_many_same_named_objects_are_one_shared_answer() {
    let svc = "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: ns}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n---\n";
    let hpa = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: ns}\nspec:\n  scaleTargetRef: {kind: Deployment, name: web}\n---\n";
    let copies = MEMO_FROM + 8;
    let files: Vec<(&str, String)> = vec![
        ("a/copies.yaml", format!("{svc}{hpa}").repeat(copies)),
        ("a/other.yaml", format!("{hpa}{svc}")),
    ];
    let (_docs, g) = graph_of_files(&files, false);
    let candidates = g.find("Service", "ns", "web");
    assert_eq!(candidates.len(), copies + 1);
    let asked_from = |file: usize| -> Vec<ObjId> {
        (0..g.object_count())
            .filter(|o| g.objects[*o].place.file == Some(FileId(file as u32)))
            .collect()
    };
    for (file, want) in [(0, copies), (1, 1)] {
        let from = asked_from(file);
        assert!(from.len() > 1);
        let answers: Vec<_> = from
            .iter()
            .map(|o| g.nearest_named(*o, candidates))
            .collect();
        for (o, (found, how)) in from.iter().zip(&answers) {
            let (scanned, scan_how) = g.nearest(*o, candidates.iter().copied(), |c| c);
            assert_eq!((&**found, *how), (&scanned[..], scan_how), "from {o}");
            assert_eq!((found.len(), *how), (want, Some(Near::File)));
            assert!(std::sync::Arc::ptr_eq(found, &answers[0].0), "from {o}");
        }
    }
}

/// The backends and HPA targets are resolved while the graph is built, beside the Services'
/// selections (before those, the files' indexes and the patches' marks are taken in): each
/// answer is the one the finished graph gives when asked again, with same-named Services and
/// Deployments in several places, so that the nearest one decides.
#[test]
fn backends_and_hpa_targets_resolved_during_the_build_are_the_finished_graphs() {
    let svc = "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: ns}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n---\n";
    let ing = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web, namespace: ns}\nspec:\n  defaultBackend: {service: {name: web, port: {number: 80}}}\n---\n";
    let route = "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: web, namespace: ns}\nspec:\n  to: {kind: Service, name: web}\n---\n";
    let app = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ns}\nspec:\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: web:1}]}\n---\n";
    let hpa = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: ns}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 3\n---\n";
    let files: Vec<(&str, String)> = vec![
        ("a/all.yaml", format!("{app}{svc}{ing}{hpa}")),
        ("a/route.yaml", route.to_string()),
        ("a/sub/svc.yaml", svc.to_string()),
        ("b/app.yaml", format!("{app}{svc}")),
        ("b/ingress.yaml", format!("{ing}{hpa}")),
        ("c/ingress.yaml", format!("{ing}{route}{hpa}")),
        ("d/two.yaml", format!("{app}{app}{svc}{svc}{hpa}{ing}")),
    ];
    for backwards in [false, true] {
        let (docs, g) = graph_of_files(&files, backwards);
        // Asked again of the finished graph.
        let mut again: BTreeMap<ObjId, Vec<(ObjId, At)>> = BTreeMap::new();
        let refs = g
            .ingresses
            .iter()
            .flat_map(|i| i.backends.iter().map(|b| (i.obj, b.service_name)))
            .chain(g.routes.iter().filter_map(|r| r.to.map(|to| (r.obj, to))));
        for (owner, at) in refs {
            let name = docs[at.doc].node(at.node).as_str().unwrap().to_string();
            if let Lookup::Found(s, _) = g.service_from(owner, &g.objects[owner].namespace, &name) {
                again.entry(s.obj).or_default().push((owner, at));
            }
        }
        assert_eq!(g.backend_refs, again, "backwards: {backwards}");
        // Some resolved and some did not (d's two Services are equally near).
        assert!(!again.is_empty());
        assert!(again.values().map(Vec::len).sum::<usize>() < 7);
        for h in &g.hpas {
            assert_eq!(
                g.hpa_target(h).map(|w| w.obj),
                g.resolve_hpa_target(h).map(|w| w.obj),
                "backwards: {backwards}"
            );
        }
        assert!(g.hpas.iter().any(|h| g.hpa_target(h).is_some()));
    }
}
