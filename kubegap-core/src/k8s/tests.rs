//! Tests of the object graph.

use super::*;
use crate::source::FileId;

fn graph(text: &str) -> (Vec<Document>, Graph) {
    let (docs, errors) = crate::yaml::parse(FileId(0), text);
    assert!(errors.is_empty(), "{errors:?}");
    let g = Graph::build(&docs);
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

#[test]
fn documents_without_kind_are_skipped() {
    let (_docs, g) = graph("foo: bar\n---\n- 1\n---\n");
    assert_eq!(g.object_count(), 0);
}
