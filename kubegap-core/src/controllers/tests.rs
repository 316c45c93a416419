//! Tests of the controller model: discovery, precedence, sources, long-lived detection.

use super::*;
use crate::source::{SourceFile, SourceMap};

fn model(text: &str) -> (SourceMap, Vec<Document>, Graph, Model) {
    let mut files = SourceMap::default();
    let id = files.add(SourceFile::new(
        "t.yaml",
        None,
        text.to_string(),
        crate::source::FileKind::Yaml,
    ));
    let (docs, errors) = crate::yaml::parse(id, text);
    assert!(errors.is_empty(), "{errors:?}");
    let g = Graph::build(&docs);
    let m = Model::build(&g, &docs);
    (files, docs, g, m)
}

const NGINX: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
spec:
  template:
    spec:
      containers:
        - name: controller
          image: registry.k8s.io/ingress-nginx/controller:v1.15.1@sha256:594ceea7
          args:
            - /nginx-ingress-controller
            - --configmap=$(POD_NAMESPACE)/ingress-nginx-controller
            - --ingress-class=nginx
            - --controller-class=k8s.io/ingress-nginx
            - --watch-namespace
            - shop
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
data:
  worker-shutdown-timeout: "600s"
  proxy-read-timeout: "120"
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: chat
  namespace: shop
  annotations:
    nginx.ingress.kubernetes.io/proxy-send-timeout: "3600"
spec:
  ingressClassName: nginx
  rules:
    - http:
        paths:
          - path: /api
            pathType: Prefix
            backend: {service: {name: chat, port: {number: 80}}}
"#;

#[test]
fn discovers_ingress_nginx_from_image_and_args() {
    let (_, _, g, m) = model(NGINX);
    assert_eq!(m.controllers.len(), 1);
    let c = &m.controllers[0];
    assert_eq!(c.product, Product::IngressNginx);
    assert_eq!(c.version, Version::parse("1.15.1"));
    assert_eq!(c.ingress_class.as_deref(), Some("nginx"));
    assert_eq!(c.controller_class.as_deref(), Some("k8s.io/ingress-nginx"));
    assert_eq!(c.watch_namespace.as_deref(), Some("shop"));
    let cm = c
        .config_map
        .expect("ConfigMap resolved through $(POD_NAMESPACE)");
    assert_eq!(g.objects[cm].name, "ingress-nginx-controller");
}

#[test]
fn precedence_annotation_then_config_map_then_default() {
    let (files, _, _, m) = model(NGINX);
    let route = &m.routes[0];
    assert_eq!(
        route.binding.as_ref().map(|b| b.product),
        Some(Product::IngressNginx)
    );
    assert!(route.binding.as_ref().is_some_and(Binding::confident));
    assert_eq!(route.controller, Some(0));
    // Annotation wins.
    let send = route.send_timeout.as_ref().unwrap();
    assert_eq!(send.value, crate::value::duration::Millis(3_600_000));
    assert!(matches!(*send.source, Source::Annotation { .. }));
    // ConfigMap next.
    let read = route.read_timeout.as_ref().unwrap();
    assert_eq!(read.value, crate::value::duration::Millis(120_000));
    assert_eq!(
        read.source.cite(&files),
        "ConfigMap key `proxy-read-timeout` at t.yaml:24"
    );
    let deadline = route.reload_deadline.as_ref().unwrap();
    assert_eq!(deadline.value, crate::value::duration::Millis(600_000));
    // Default last, with product and version.
    let keepalive = route.upstream_keepalive_timeout.as_ref().unwrap();
    assert_eq!(keepalive.value, crate::value::duration::Millis(60_000));
    assert_eq!(
        keepalive.source.cite(&files),
        "default of ingress-nginx v1.15.1"
    );
    assert!(route.long_lived.is_some(), "3600s send timeout is a sign");
}

#[test]
fn defaults_without_controller_in_input() {
    let (files, _, _, m) = model(
        r#"
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: chat
  annotations:
    nginx.ingress.kubernetes.io/proxy-read-timeout: "3600"
spec:
  ingressClassName: nginx
  defaultBackend: {service: {name: chat, port: {number: 80}}}
"#,
    );
    let route = &m.routes[0];
    let binding = route.binding.as_ref().unwrap();
    assert_eq!(binding.product, Product::IngressNginx);
    // `ingressClassName: nginx` and no IngressClass in the input: ingress-nginx's class.
    assert_eq!(binding.via, Via::ClassName);
    let deadline = route.reload_deadline.as_ref().unwrap();
    assert_eq!(deadline.value, crate::value::duration::Millis(240_000));
    assert_eq!(deadline.source.cite(&files), "default of ingress-nginx");
    assert_eq!(deadline.describe(&files), "240s (default of ingress-nginx)");
}

#[test]
fn haproxy_ingress_settings() {
    let (files, _, _, m) = model(
        r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: haproxy-ingress, namespace: ingress}
spec:
  template:
    spec:
      containers:
        - name: haproxy-ingress
          image: quay.io/jcmoraisjr/haproxy-ingress:v0.14.5
          args: [--configmap=ingress/haproxy-ingress, --track-old-instances, --sort-endpoints-by, ip]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: haproxy-ingress, namespace: ingress}
data:
  timeout-stop: 20m
  close-sessions-duration: "25%"
"#,
    );
    let c = &m.controllers[0];
    assert_eq!(c.product, Product::HaproxyIngress);
    assert!(c.flag("track-old-instances").is_some());
    let sort = c.arg("sort-endpoints-by").unwrap();
    assert_eq!(sort.value.as_deref(), Some("ip"));
    assert_eq!(sort.text, "--sort-endpoints-by ip");
    assert_eq!(
        c.settings.reload_deadline.as_ref().map(|s| s.value),
        Some(crate::value::duration::Millis(1_200_000))
    );
    assert_eq!(
        c.settings.close_spread.as_ref().map(|s| s.value),
        Some(crate::value::duration::Millis(300_000))
    );
    let balance = c.settings.balance.as_ref().unwrap();
    assert_eq!(balance.value, "roundrobin");
    assert_eq!(
        balance.source.cite(&files),
        "default of haproxy-ingress v0.14.5"
    );
}

#[test]
fn haproxy_ingress_balance_by_version() {
    assert_eq!(
        haproxy_ingress_balance_default(Version::parse("0.16.0").as_ref()),
        "random(2)"
    );
    assert_eq!(
        haproxy_ingress_balance_default(Version::parse("v0.15").as_ref()),
        "roundrobin"
    );
    assert_eq!(haproxy_ingress_balance_default(None), "roundrobin");
}

#[test]
fn images_and_classes() {
    assert_eq!(
        Product::of_image("haproxytech/kubernetes-ingress:1.11"),
        Some(Product::HaproxyTech)
    );
    assert_eq!(
        Product::of_image("openshift/origin-haproxy-router:v4.0.0"),
        Some(Product::OpenShift)
    );
    assert_eq!(
        Product::of_image("nginx/nginx-ingress:3.4.0"),
        Some(Product::NginxInc)
    );
    assert_eq!(Product::of_image("nginx:1.25"), None);
    assert_eq!(
        Product::of_image("localhost:5000/ingress-nginx/controller"),
        Some(Product::IngressNginx)
    );
    assert_eq!(image_version("localhost:5000/x/y"), None);
    assert_eq!(
        image_version("quay.io/jcmoraisjr/haproxy-ingress:v0.6"),
        Version::parse("0.6")
    );
    assert_eq!(
        Product::of_controller_name("haproxy.org/ingress-controller/haproxy"),
        Some(Product::HaproxyTech)
    );
    assert_eq!(
        Product::of_annotation("nginx.org/websocket-services"),
        Some(Product::NginxInc)
    );
    assert_eq!(Product::of_annotation("kubernetes.io/ingress.class"), None);
}

#[test]
fn openshift_routes_and_ingress_controller() {
    let (files, _, _, m) = model(
        r#"
apiVersion: operator.openshift.io/v1
kind: IngressController
metadata:
  name: default
  namespace: openshift-ingress-operator
  annotations:
    ingress.operator.openshift.io/hard-stop-after: 30m
spec:
  tuningOptions:
    tunnelTimeout: 2h
---
apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: chat
  annotations:
    haproxy.router.openshift.io/timeout: 45s
spec:
  path: /socket.io
  to: {kind: Service, name: chat}
"#,
    );
    let route = &m.routes[0];
    assert_eq!(route.kind, RouteKind::Route);
    assert_eq!(route.controller, Some(0));
    assert_eq!(
        route.read_timeout.as_ref().map(|s| s.value),
        Some(crate::value::duration::Millis(45_000))
    );
    let tunnel = route.tunnel_timeout.as_ref().unwrap();
    assert_eq!(tunnel.value, crate::value::duration::Millis(7_200_000));
    assert_eq!(
        tunnel.source.cite(&files),
        "`spec.tuningOptions.tunnelTimeout` at t.yaml:11"
    );
    assert_eq!(
        route.reload_deadline.as_ref().map(|s| s.value),
        Some(crate::value::duration::Millis(1_800_000))
    );
    assert_eq!(
        route.client_timeout.as_ref().map(|s| s.source.is_default()),
        Some(true)
    );
    let policy = m.controllers[0]
        .settings
        .idle_connection_termination
        .as_ref()
        .unwrap();
    assert_eq!(policy.value, "Immediate");
    assert!(policy.source.is_default());
    let ll = route.long_lived.as_ref().unwrap();
    assert_eq!(ll.kind, LongLivedKind::WebSocket);
    assert!(!ll.declared);
}

#[test]
fn long_lived_detection() {
    let (_, docs, g, m) = model(
        r#"
apiVersion: v1
kind: Service
metadata:
  name: feed
  annotations: {kubegap.io/long-lived: sse}
spec:
  selector: {app: feed}
  ports: [{port: 80}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: feed}
spec:
  defaultBackend: {service: {name: feed, port: {number: 80}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: optout
  annotations:
    kubegap.io/long-lived: none
    nginx.ingress.kubernetes.io/proxy-read-timeout: "3600"
spec:
  defaultBackend: {service: {name: other, port: {number: 80}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: plain
  annotations:
    nginx.ingress.kubernetes.io/proxy-read-timeout: "120"
spec:
  rules:
    - http:
        paths:
          - {path: /api/wsdl, pathType: Prefix, backend: {service: {name: x, port: {number: 80}}}}
"#,
    );
    let feed = m.routes[0].long_lived.as_ref().unwrap();
    assert_eq!(feed.kind, LongLivedKind::Sse);
    assert!(feed.declared, "declared on the backend Service");
    assert!(m.routes[1].long_lived.is_none(), "opt-out wins over signs");
    assert!(
        m.routes[2].long_lived.is_none(),
        "120s and /api/wsdl are no signs"
    );
    let svc = g.services[0].obj;
    assert!(long_lived(&g, &docs, svc).is_some());
    assert_eq!(path_hint("/ws"), Some(LongLivedKind::WebSocket));
    assert_eq!(path_hint("/v1/socket.io/"), Some(LongLivedKind::WebSocket));
    assert_eq!(path_hint("/events"), Some(LongLivedKind::Sse));
    assert_eq!(path_hint("/news"), None);
    assert_eq!(path_hint("/(ws|api)"), None);
}

/// Declarations are looked up only on objects whose annotations (or pod template's) may hold
/// one: those written on a pod template only, or merged in with `<<`, are still found.
#[test]
fn declarations_on_pod_templates_and_merged_in_are_found() {
    let (files, _, g, m) = model(
        r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: chat}
spec:
  selector: {matchLabels: {app: chat}}
  template:
    metadata:
      labels: {app: chat}
      annotations: {kubegap.io/long-lived: websocket, kubegap.io/ping-interval: 20s}
    spec: {containers: [{name: app, image: chat:1}]}
---
apiVersion: v1
kind: Service
metadata: {name: chat}
spec:
  selector: {app: chat}
  ports: [{port: 80}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: chat}
spec:
  defaultBackend: {service: {name: chat, port: {number: 80}}}
---
x-declared: &declared {kubegap.io/session-lifetime: 1h}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: merged
  annotations:
    <<: *declared
    example.com/team: chat
spec:
  defaultBackend: {service: {name: other, port: {number: 80}}}
---
apiVersion: v1
kind: Service
metadata:
  name: plain
  annotations: {example.com/kubegap.io/long-lived: websocket}
spec:
  ports: [{port: 80}]
"#,
    );
    let declares: Vec<(&str, bool)> = g
        .objects
        .iter()
        .map(|o| (o.name.as_str(), o.declarations))
        .collect();
    assert_eq!(
        declares,
        [
            ("chat", true),
            ("chat", false),
            ("chat", false),
            ("merged", true),
            ("plain", false)
        ]
    );
    assert!(g.declares_any());
    let chat = &m.routes[0];
    let ll = chat.long_lived.as_ref().unwrap();
    assert_eq!((ll.kind, ll.declared), (LongLivedKind::WebSocket, true));
    let ping = chat.ping_interval.as_ref().unwrap();
    assert_eq!(ping.value, Millis::from_secs(20));
    assert!(
        ping.source.cite(&files).contains("t.yaml:10"),
        "{}",
        ping.source.cite(&files)
    );
    let merged = &m.routes[1];
    let lifetime = merged.session_lifetime.as_ref().unwrap();
    assert_eq!(lifetime.value, Millis::from_secs(3600));
    // Nothing declared anywhere: no lookup reads an object.
    let (_, _, g, m) = model(
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: a, annotations: {x: y}}\nspec: {defaultBackend: {service: {name: a, port: {number: 80}}}}\n",
    );
    assert!(!g.declares_any());
    assert!(m.routes[0].long_lived.is_none() && m.routes[0].ping_interval.is_none());
}

#[test]
fn load_balancers() {
    let (files, _, _, m) = model(
        r#"
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: alb
  annotations:
    alb.ingress.kubernetes.io/load-balancer-attributes: routing.http2.enabled=true,idle_timeout.timeout_seconds=600
    alb.ingress.kubernetes.io/target-type: ip
    kubegap.io/ping-interval: 30s
spec:
  ingressClassName: alb
  defaultBackend: {service: {name: web, port: {number: 80}}}
---
apiVersion: v1
kind: Service
metadata:
  name: web
  annotations:
    cloud.google.com/backend-config: '{"ports": {"80": "web"}}'
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: cloud.google.com/v1
kind: BackendConfig
metadata: {name: web}
spec: {timeoutSec: 120, connectionDraining: {drainingTimeoutSec: 60}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: gke}
spec:
  defaultBackend: {service: {name: web, port: {number: 80}}}
"#,
    );
    let alb = m.routes[0].lb.as_ref().unwrap();
    assert_eq!(alb.kind, LbKind::Alb);
    assert_eq!(
        alb.idle_timeout.as_ref().map(|s| s.value),
        Some(crate::value::duration::Millis(600_000))
    );
    assert_eq!(
        alb.target_type.as_ref().map(|s| s.value.as_str()),
        Some("ip")
    );
    assert_eq!(
        alb.deregistration_delay
            .as_ref()
            .map(|s| s.source.cite(&files)),
        Some("default of AWS target groups".to_string())
    );
    assert_eq!(
        m.routes[0].ping_interval.as_ref().map(|s| s.value),
        Some(crate::value::duration::Millis(30_000))
    );
    let gke = m.routes[1].lb.as_ref().unwrap();
    assert_eq!(gke.kind, LbKind::Gclb);
    assert_eq!(
        gke.lifetime_cap.as_ref().map(|s| s.value),
        Some(crate::value::duration::Millis(120_000))
    );
    assert_eq!(
        gke.backend_keepalive.as_ref().map(|s| s.value),
        Some(crate::value::duration::Millis(600_000))
    );
}

#[test]
fn service_load_balancers() {
    let (_, docs, g, _) = model(
        r#"
apiVersion: v1
kind: Service
metadata:
  name: az
  annotations: {service.beta.kubernetes.io/azure-load-balancer-tcp-idle-timeout: "10"}
spec: {type: LoadBalancer, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata:
  name: nlb
  annotations: {service.beta.kubernetes.io/aws-load-balancer-type: nlb}
spec: {type: LoadBalancer, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: plain}
spec: {type: LoadBalancer, ports: [{port: 80}]}
"#,
    );
    let reader = Reader {
        graph: &g,
        documents: &docs,
    };
    let az = lb::for_service(&reader, g.services[0].obj).unwrap();
    assert_eq!(az.kind, LbKind::Azure);
    assert_eq!(
        az.idle_timeout.map(|s| s.value),
        Some(crate::value::duration::Millis(600_000))
    );
    let nlb = lb::for_service(&reader, g.services[1].obj).unwrap();
    assert_eq!(
        nlb.idle_timeout.map(|s| s.value),
        Some(crate::value::duration::Millis(350_000))
    );
    assert!(lb::for_service(&reader, g.services[2].obj).is_none());
}

#[test]
fn binding_by_controller_default_class() {
    let base = r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: haproxy-ingress, namespace: ingress}
spec:
  template:
    spec:
      containers:
        - {name: c, image: "quay.io/jcmoraisjr/haproxy-ingress:v0.15.0", args: [--configmap=ingress/hi]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: hi, namespace: ingress}
data: {timeout-stop: 30m}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: chat}
spec:
  ingressClassName: haproxy
  defaultBackend: {service: {name: chat, port: {number: 80}}}
"#;
    let (_, _, _, m) = model(base);
    let route = &m.routes[0];
    assert_eq!(
        route.binding,
        Some(Binding {
            product: Product::HaproxyIngress,
            via: Via::Controller(None)
        })
    );
    assert_eq!(
        route.reload_deadline.as_ref().map(|s| s.value),
        Some(crate::value::duration::Millis(1_800_000))
    );
    // A second HAProxy product on the same default class makes the class ambiguous.
    let both = format!(
        "{base}---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: hk}}\nspec:\n  template:\n    spec:\n      containers: [{{name: c, image: haproxytech/kubernetes-ingress:1.11}}]\n"
    );
    let (_, _, _, m) = model(&both);
    assert_eq!(m.routes[0].binding, None);
}

#[test]
fn nginx_class_without_ingress_class_is_ingress_nginx() {
    let ingress = r#"
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: chat}
spec:
  ingressClassName: nginx
  defaultBackend: {service: {name: chat, port: {number: 80}}}
"#;
    let (_, _, _, m) = model(ingress);
    assert_eq!(
        m.routes[0].binding,
        Some(Binding {
            product: Product::IngressNginx,
            via: Via::ClassName
        })
    );
    // An IngressClass `nginx` in the input decides instead (here: a controller kubegap does
    // not know, so no binding).
    let with_class = format!(
        "{ingress}---\napiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {{name: nginx}}\nspec: {{controller: example.com/other}}\n"
    );
    let (_, _, _, m) = model(&with_class);
    assert_eq!(m.routes[0].binding, None);
    // No class at all: only the annotations' prefix says which controller, a guess.
    let (_, _, _, m) = model(
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: chat\n  annotations: {nginx.ingress.kubernetes.io/proxy-read-timeout: \"3600\"}\nspec: {defaultBackend: {service: {name: chat, port: {number: 80}}}}\n",
    );
    let binding = m.routes[0].binding.as_ref().unwrap();
    assert_eq!(binding.via, Via::Annotations);
    assert!(!binding.confident());
}

#[test]
fn openshift_cluster_ingress_config_hard_stop() {
    let (_, _, _, m) = model(
        r#"
apiVersion: config.openshift.io/v1
kind: Ingress
metadata:
  name: cluster
  annotations: {ingress.operator.openshift.io/hard-stop-after: 45m}
spec: {domain: apps.example.com}
---
apiVersion: operator.openshift.io/v1
kind: IngressController
metadata: {name: default, namespace: openshift-ingress-operator}
spec: {}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: chat}
spec:
  to: {kind: Service, name: chat}
"#,
    );
    // The cluster config is not a route; its hard stop applies through the IngressController.
    assert_eq!(m.routes.len(), 1);
    assert_eq!(
        m.routes[0].reload_deadline.as_ref().map(|s| s.value),
        Some(crate::value::duration::Millis(2_700_000))
    );
}

#[test]
fn missing_config_map_is_noted() {
    let (_, _, _, m) = model(
        r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: c, namespace: ingress-nginx}
spec:
  template:
    spec:
      containers:
        - {name: c, image: "registry.k8s.io/ingress-nginx/controller:v1.15.1", args: [--configmap=ingress-nginx/elsewhere]}
"#,
    );
    let c = &m.controllers[0];
    assert_eq!(c.missing_config_map(), Some("ingress-nginx/elsewhere"));
    let deadline = c.settings.reload_deadline.as_ref().unwrap();
    assert!(c
        .assumed_default_note(&deadline.source)
        .is_some_and(|n| n.contains("`ingress-nginx/elsewhere` is not in the input")));
}

#[test]
fn openshift_router_workload_environment() {
    let (files, _, _, m) = model(
        r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: router, namespace: default}
spec:
  template:
    spec:
      containers:
        - name: router
          image: openshift/origin-haproxy-router:v4.0.0
          env:
            - {name: ROUTER_HARD_STOP_AFTER, value: 2h}
            - {name: ROUTER_DEFAULT_TUNNEL_TIMEOUT, value: 30m}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: chat}
spec:
  to: {kind: Service, name: chat}
"#,
    );
    let route = &m.routes[0];
    assert_eq!(route.controller, Some(0));
    let deadline = route.reload_deadline.as_ref().unwrap();
    assert_eq!(deadline.value, crate::value::duration::Millis(7_200_000));
    assert_eq!(
        deadline.source.cite(&files),
        "env `ROUTER_HARD_STOP_AFTER` at t.yaml:12"
    );
    assert_eq!(
        route.tunnel_timeout.as_ref().map(|s| s.value),
        Some(crate::value::duration::Millis(1_800_000))
    );
    assert_eq!(
        route.read_timeout.as_ref().map(|s| s.value),
        Some(crate::value::duration::Millis(30_000))
    );
}

#[test]
fn haproxytech_controller_class_suffix() {
    let (_, _, _, m) = model(
        r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: hk, namespace: haproxy-controller}
spec:
  template:
    spec:
      containers:
        - name: c
          image: haproxytech/kubernetes-ingress:3.0.1
          args: [--configmap=haproxy-controller/hk, --controller-class=internal]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: hk, namespace: haproxy-controller}
data: {hard-stop-after: 1h, timeout-tunnel: 2h}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: internal}
spec: {controller: haproxy.org/ingress-controller/internal}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: chat
  annotations: {haproxy.org/timeout-tunnel: 3h}
spec:
  ingressClassName: internal
  defaultBackend: {service: {name: chat, port: {number: 80}}}
"#,
    );
    let route = &m.routes[0];
    assert_eq!(route.controller, Some(0));
    assert_eq!(
        route.reload_deadline.as_ref().map(|s| s.value),
        Some(crate::value::duration::Millis(3_600_000))
    );
    let tunnel = route.tunnel_timeout.as_ref().unwrap();
    assert_eq!(tunnel.value, crate::value::duration::Millis(10_800_000));
    assert!(matches!(*tunnel.source, Source::Annotation { .. }));
}

#[test]
fn unversioned_defaults_are_one_allocation_per_product() {
    use crate::value::provenance::Source;
    use std::sync::Arc;
    for p in Product::ALL {
        let (a, b) = (super::default_of(p, None), super::default_of(p, None));
        assert!(Arc::ptr_eq(&a, &b), "{p:?}");
        assert!(matches!(&*a, Source::Default(d) if d.product == p.name() && d.version.is_none()));
        if let (Some((_, a)), Some((_, b))) = (
            super::default_client_keepalive(p),
            super::default_client_keepalive(p),
        ) {
            assert!(Arc::ptr_eq(&a, &b), "{p:?} keep-alive");
        }
    }
    // Distinct products never share one.
    let nginx = super::default_of(Product::IngressNginx, None);
    let haproxy = super::default_of(Product::HaproxyTech, None);
    assert!(!Arc::ptr_eq(&nginx, &haproxy));
    // A default at a version is its own value, with the version.
    let v = crate::config::Version::parse("1.9.4");
    let at = super::default_of(Product::IngressNginx, v.as_ref());
    assert!(matches!(&*at, Source::Default(d) if d.version == v));
    assert_ne!(at, nginx);
}

/// `Model::route` finds an Ingress and an OpenShift Route by object id (Ingresses come first in
/// `routes`, each part in object order), and nothing for an object that is neither.
#[test]
fn routes_are_found_by_object_id() {
    let (_, _, g, m) = model(
        r#"
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: first}
spec: {to: {kind: Service, name: a}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: second}
spec: {ingressClassName: nginx, defaultBackend: {service: {name: a, port: {number: 80}}}}
---
apiVersion: v1
kind: Service
metadata: {name: a}
spec: {ports: [{port: 80}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: fourth}
spec: {ingressClassName: nginx, defaultBackend: {service: {name: a, port: {number: 80}}}}
"#,
    );
    assert_eq!(m.ingress_routes().len(), 2);
    for (obj, kind) in [
        (0, RouteKind::Route),
        (1, RouteKind::Ingress),
        (3, RouteKind::Ingress),
    ] {
        let route = m.route(obj).expect("a route");
        assert_eq!((route.obj, route.kind), (obj, kind));
        assert_eq!(
            g.objects[obj].kind,
            if kind == RouteKind::Route {
                "Route"
            } else {
                "Ingress"
            }
        );
    }
    assert!(m.route(2).is_none());
}

/// The objects whose declarations apply to an Ingress: the Ingress, its Service, then the
/// Service's workloads that declare something, in that order; a workload that declares
/// nothing is not listed, the one that does is, wherever it sits among the Service's.
#[test]
fn declaring_lists_the_route_its_services_and_their_declaring_workloads() {
    let app = |name: &str, annotations: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}{annotations}}}\nspec:\n  template:\n    metadata: {{labels: {{app: shop}}}}\n    spec: {{containers: [{{name: c, image: app}}]}}\n---\n"
        )
    };
    let text = [
        app("a", ""),
        app("b", ", annotations: {kubegap.io/keepalive-timeout: 75s}"),
        app("c", ""),
        app("d", ", annotations: {kubegap.io/long-lived: websocket}"),
        "apiVersion: v1\nkind: Service\nmetadata: {name: shop, annotations: {kubegap.io/ping-interval: 20s}}\nspec: {selector: {app: shop}, ports: [{port: 80}]}\n---\n".to_string(),
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec:\n  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: shop, port: {number: 80}}}}]}}]\n".to_string(),
    ]
    .concat();
    let (_, docs, g, _) = model(&text);
    let reader = Reader {
        graph: &g,
        documents: &docs,
    };
    let name = |o: &ObjId| g.objects[*o].name.to_string();
    let ingress = g.ingresses[0].obj;
    let related: Vec<String> = reader.related(ingress).iter().map(name).collect();
    assert_eq!(related, ["web", "shop", "a", "b", "c", "d"]);
    let declaring: Vec<String> = reader.declaring(ingress).iter().map(name).collect();
    assert_eq!(declaring, ["shop", "b", "d"]);
    let service = g.services[0].obj;
    let declaring: Vec<String> = reader.declaring(service).iter().map(name).collect();
    assert_eq!(declaring, ["shop", "b", "d"]);
}

/// Of several IngressClasses named alike, the first whose controller kubegap knows binds an
/// Ingress of that class; an Ingress without a class takes the first class marked as the
/// cluster default, whatever sits before it.
#[test]
fn ingress_classes_bind_by_their_first_known_controller_and_the_default() {
    let class = |name: &str, controller: &str, default: bool| {
        let annotations = if default {
            ", annotations: {ingressclass.kubernetes.io/is-default-class: \"true\"}"
        } else {
            ""
        };
        format!("apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {{name: {name}{annotations}}}\nspec: {{controller: {controller}}}\n---\n")
    };
    let ingress = |name: &str, class: &str| {
        format!("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {{name: {name}}}\nspec: {{{class}defaultBackend: {{service: {{name: web, port: {{number: 80}}}}}}}}\n---\n")
    };
    let text = [
        class("edge", "example.com/other", false),
        class("edge", "k8s.io/ingress-nginx", false),
        class("edge", "haproxy.org/ingress-controller", false),
        class("plain", "example.com/other", false),
        class("cloud", "k8s.io/ingress-nginx", true),
        class("later", "haproxy.org/ingress-controller", true),
        ingress("named", "ingressClassName: edge, "),
        ingress("unnamed", ""),
        ingress("unknown", "ingressClassName: plain, "),
    ]
    .concat();
    let (_, _, g, m) = model(&text);
    let class_obj = |i: usize| g.ingress_classes[i].0;
    let binding = |i: usize| m.routes[i].binding.clone();
    assert_eq!(
        binding(0),
        Some(Binding {
            product: Product::IngressNginx,
            via: Via::IngressClass(class_obj(1)),
        })
    );
    assert_eq!(
        binding(1),
        Some(Binding {
            product: Product::IngressNginx,
            via: Via::IngressClass(class_obj(4)),
        })
    );
    assert_eq!(binding(2), None);
}
