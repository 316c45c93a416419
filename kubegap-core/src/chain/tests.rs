//! Tests of application keep-alive detection.

use crate::config::Settings;
use crate::k8s::Graph;
use crate::source::{FileId, FileKind, SourceFile, SourceMap};

use super::app::{detect, Range, Server};
use crate::value::duration::Millis;

fn detect_in(text: &str) -> Option<(Server, Range, String)> {
    let mut files = SourceMap::default();
    files.add(SourceFile::new(
        "app.yaml",
        None,
        text.to_string(),
        FileKind::Yaml,
    ));
    let (docs, errors) = crate::yaml::parse(FileId(0), text);
    assert!(errors.is_empty(), "{errors:?}");
    let graph = Graph::build(&docs);
    let settings = Settings::default();
    let model = crate::model::Model {
        files: &files,
        documents: &docs,
        k8s: &graph,
        haproxy: &[],
        nginx: &[],
        settings: &settings,
    };
    let cx = super::Stage {
        model: &model,
        controllers: &crate::controllers::Model::default(),
    };
    detect(&cx, &graph.workloads[0], None).map(|a| (a.server, a.range, a.source.cite(&files)))
}

fn pod(container: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers:\n  - {container}\n"
    )
}

#[test]
fn gunicorn_flag_env_default_and_config_file() {
    let (s, v, src) = detect_in(&pod(
        "{name: a, image: python:3.12, command: [gunicorn, --keep-alive, '75', app:app]}",
    ))
    .unwrap();
    assert_eq!(
        (s, v),
        (Server::Gunicorn, Range::exact(Millis::from_secs(75)))
    );
    assert!(
        src.contains("argument `--keep-alive 75` at app.yaml:6"),
        "{src}"
    );
    let (_, v, _) = detect_in(&pod(
        "{name: a, image: x, args: [\"gunicorn --keep-alive=10 app:app\"]}",
    ))
    .unwrap();
    assert_eq!(v, Range::exact(Millis::from_secs(10)));
    let (_, v, src) = detect_in(&pod("{name: a, image: x, command: [gunicorn, app:app], env: [{name: GUNICORN_CMD_ARGS, value: \"--workers 3 --keep-alive 30\"}]}")).unwrap();
    assert_eq!(v, Range::exact(Millis::from_secs(30)));
    assert!(src.contains("GUNICORN_CMD_ARGS"));
    let (_, v, src) = detect_in(&pod(
        "{name: a, image: x, command: [gunicorn, -k, uvicorn.workers.UvicornWorker, app:app]}",
    ))
    .unwrap();
    assert_eq!(v, Range::exact(Millis::from_secs(2)));
    assert!(src.starts_with("default `keepalive` of gunicorn"), "{src}");
    assert_eq!(
        detect_in(&pod(
            "{name: a, image: x, command: [gunicorn, -c, /etc/gunicorn.conf.py, app:app]}"
        )),
        None
    );
}

#[test]
fn node_versions_and_next() {
    let (s, v, src) = detect_in(&pod(
        "{name: a, image: 'node:20-alpine', command: [node, server.js]}",
    ))
    .unwrap();
    assert_eq!((s, v), (Server::Node, Range::exact(Millis::from_secs(5))));
    assert!(
        src.contains("Node.js v20; image `node:20-alpine` at app.yaml:6"),
        "{src}"
    );
    let (_, v, _) = detect_in(&pod(
        "{name: a, image: 'node:26', command: [node, server.js]}",
    ))
    .unwrap();
    assert_eq!(v, Range::exact(Millis::from_secs(65)));
    let (_, v, _) = detect_in(&pod(
        "{name: a, image: 'registry/app:1.0', command: [npm, start]}",
    ))
    .unwrap();
    assert_eq!(
        v,
        Range {
            low: Millis::from_secs(5),
            high: Millis::from_secs(65)
        }
    );
    let (_, v, _) = detect_in(&pod(
        "{name: a, image: 'node:22', args: [next, start, --keepAliveTimeout, '65000']}",
    ))
    .unwrap();
    assert_eq!(v, Range::exact(Millis::from_secs(65)));
}

#[test]
fn others_and_unknowns() {
    assert_eq!(
        detect_in(&pod("{name: a, image: x, command: [uvicorn, main:app]}"))
            .unwrap()
            .1,
        Range::exact(Millis::from_secs(5))
    );
    assert_eq!(
        detect_in(&pod(
            "{name: a, image: x, command: [uvicorn, main:app, --timeout-keep-alive, '90']}"
        ))
        .unwrap()
        .1,
        Range::exact(Millis::from_secs(90))
    );
    assert_eq!(
        detect_in(&pod("{name: a, image: x, command: [bundle, exec, puma]}"))
            .unwrap()
            .1,
        Range::exact(Millis::from_secs(20))
    );
    assert_eq!(
        detect_in(&pod("{name: a, image: 'httpd:2.4'}")).unwrap().1,
        Range::exact(Millis::from_secs(5))
    );
    assert_eq!(
        detect_in(&pod(
            "{name: a, image: x, env: [{name: SERVER_TOMCAT_KEEP_ALIVE_TIMEOUT, value: '65s'}]}"
        ))
        .unwrap()
        .1,
        Range::exact(Millis::from_secs(65))
    );
    assert_eq!(
        detect_in(&pod(
            "{name: a, image: x, env: [{name: SERVER_TOMCAT_KEEP_ALIVE_TIMEOUT, value: '70000'}]}"
        ))
        .unwrap()
        .1,
        Range::exact(Millis::from_secs(70))
    );
    // Go and unknown servers: unknown, never guessed.
    assert_eq!(
        detect_in(&pod("{name: a, image: 'golang-app:1.0', command: [/app]}")),
        None
    );
    // The annotation always wins over the detected server: on the workload, on the pod
    // template only, and cited at its key's line when the value is on the next one.
    let head = "apiVersion: apps/v1\nkind: Deployment\n";
    let node = "spec: {containers: [{name: a, image: 'node:20', command: [node, s.js]}]}";
    let cases = [
        (
            format!("{head}metadata:\n  name: d\n  annotations: {{kubegap.io/keepalive-timeout: 65s}}\nspec:\n  template:\n    metadata: {{labels: {{a: b}}}}\n    {node}\n"),
            65,
            "app.yaml:5",
        ),
        (
            format!("{head}metadata: {{name: d}}\nspec:\n  template:\n    metadata:\n      labels: {{a: b}}\n      annotations: {{kubegap.io/keepalive-timeout: 90s}}\n    {node}\n"),
            90,
            "app.yaml:8",
        ),
        (
            format!("{head}metadata:\n  name: d\n  annotations:\n    kubegap.io/keepalive-timeout:\n      75s\nspec:\n  template:\n    metadata: {{labels: {{a: b}}}}\n    {node}\n"),
            75,
            "app.yaml:6",
        ),
    ];
    for (text, secs, cited) in cases {
        let (s, v, src) = detect_in(&text).unwrap();
        assert_eq!(
            (s, v),
            (Server::Declared, Range::exact(Millis::from_secs(secs))),
            "{text}"
        );
        assert!(src.contains(cited), "{src} in {text}");
    }
}

/// A ping interval declared on both an Ingress and its Service resolves to the Ingress's value
/// (the one lookup order of `value::declarations`) in the controllers' route settings and in
/// the chain alike; Go-style `1m30s` reads as 90 s on both paths.
#[test]
fn declarations_resolve_the_same_for_controllers_and_chains() {
    let text = r#"apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: chat
  annotations:
    kubegap.io/ping-interval: 1m30s
    kubegap.io/session-lifetime: 2h
spec:
  ingressClassName: nginx
  rules: [{http: {paths: [{path: /ws, pathType: Prefix, backend: {service: {name: chat, port: {number: 80}}}}]}}]
---
apiVersion: v1
kind: Service
metadata:
  name: chat
  annotations: {kubegap.io/ping-interval: 45s}
spec: {selector: {app: chat}, ports: [{port: 80}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: chat, annotations: {kubegap.io/session-lifetime: 8h}}
spec:
  template:
    metadata: {labels: {app: chat}}
    spec: {containers: [{name: a, image: 'node:20'}]}
"#;
    on_stage(text, |cx, files| {
        let controllers = cx.controllers;
        let route = &controllers.routes[0];
        assert_eq!(
            route.ping_interval.as_ref().map(|s| s.value),
            Some(crate::value::duration::Millis(90_000))
        );
        assert_eq!(
            route.session_lifetime.as_ref().map(|s| s.value),
            Some(crate::value::duration::Millis(7_200_000))
        );
        let chains = super::build(cx);
        assert!(!chains.is_empty());
        for chain in &chains {
            assert_eq!(
                chain.ping_interval().map(|v| v.range.low),
                Some(Millis::from_secs(90))
            );
            assert_eq!(
                chain.session_lifetime().map(|v| v.range.low),
                Some(Millis::from_secs(7200))
            );
            assert_eq!(
                chain.ping_interval().map(|v| v.show(files)),
                Some("90s (annotation `kubegap.io/ping-interval` at t.yaml:6)".to_string())
            );
        }
    });
}

/// A Service selecting three Deployments in one file (N copies of a release in one stream) ends
/// one chain per route for copies of one Deployment whose chains would be equal, or equal but
/// for the lines their values are written at, and one per Deployment where they differ (other
/// names, another keep-alive or ping interval); the Deployments are read once for every Service
/// of the group.
#[test]
fn copies_of_one_deployment_end_one_chain_per_route() {
    let nginx = |_: usize| "image: nginx:1.25".to_string();
    let gunicorn = |i: usize| {
        format!("image: python:3.12\n          command: [gunicorn, --keep-alive, '{i}', app:app]")
    };
    let none = |_: usize| String::new();
    let ping = |i: usize| format!(", annotations: {{kubegap.io/ping-interval: {i}s}}");
    let copies = ["web", "web", "web"];
    let distinct = ["web0", "web1", "web2"];
    type Case<'a> = (
        &'a [&'a str; 3],
        &'a dyn Fn(usize) -> String,
        &'a dyn Fn(usize) -> String,
        usize,
    );
    let cases: [Case<'_>; 8] = [
        (&copies, &nginx, &none, 1),
        (&copies, &|_| gunicorn(5), &none, 1),
        (&copies, &|i| gunicorn(5 + i), &none, 3),
        (&distinct, &|_| gunicorn(5), &none, 3),
        (&distinct, &nginx, &none, 1),
        (&copies, &nginx, &|_| ping(45), 1),
        (&copies, &nginx, &|i| ping(45 + i), 3),
        (&distinct, &nginx, &|_| ping(45), 3),
    ];
    for (names, container, annotations, per_route) in cases {
        let text: String = (0..3)
            .map(|i| {
                format!(
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: shop{annotations}}}\nspec:\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec:\n      containers:\n        - name: web\n          {container}\n          ports: [{{containerPort: 8080}}]\n---\napiVersion: v1\nkind: Service\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  selector: {{app: web}}\n  ports: [{{port: 80, targetPort: 8080}}]\n---\n",
                    name = names[i],
                    container = container(i),
                    annotations = annotations(i),
                )
            })
            .collect();
        // The lines of the copies' keep-alives and ping intervals, the first `per_route`.
        let lines_with = |what: &str| -> Vec<Option<u32>> {
            let lines = text.lines().enumerate().filter(|(_, l)| l.contains(what));
            let lines: Vec<_> = lines.map(|(n, _)| u32::try_from(n + 1).ok()).collect();
            match lines.len() {
                0 => vec![None; per_route],
                _ => lines[..per_route].to_vec(),
            }
        };
        let want: Vec<_> = lines_with("--keep-alive")
            .into_iter()
            .zip(lines_with("ping-interval"))
            .collect();
        on_stage(&text, |cx, files| {
            let graph = cx.k8s;
            assert_eq!((graph.workloads.len(), graph.services.len()), (3, 3));
            let line = |s: Option<crate::source::Span>| {
                s.map(|s| files.get(s.file).line_col(s.start).line)
            };
            let tails = super::Tails::default();
            for service in &graph.services {
                assert_eq!(graph.service_targets(service).len(), 3);
                let end = super::RouteEnd {
                    route: super::Route::object("route".to_string()),
                    anchor: cx.span(cx.obj(service.obj).at),
                    object: None,
                    service,
                    port: super::PortRef::Unknown,
                    long_lived: None,
                };
                let mut out = Vec::new();
                super::finish_chains(cx, &end, &[], &tails, &mut out);
                let found: Vec<_> = out
                    .iter()
                    .flat_map(super::Run::chains)
                    .map(|c| {
                        let app = c.hops().get(1).and_then(|h| h.keepalive.as_ref());
                        let ping = c.ping_interval();
                        (
                            line(app.and_then(|v| v.span())),
                            line(ping.and_then(|v| v.span())),
                        )
                    })
                    .collect();
                assert_eq!(found, want, "{text}");
            }
            let target = super::target_port_for(cx, &graph.services[0], &super::PortRef::Unknown);
            let first = tails.of(cx, &graph.services[0], target.as_deref());
            let last = tails.of(cx, &graph.services[2], target.as_deref());
            assert!(std::sync::Arc::ptr_eq(&first, &last));
        });
    }
}

/// Runs `f` with the chains' stage over `text`, parsed as `t.yaml`, its graph and controllers
/// built.
fn on_stage(text: &str, f: impl FnOnce(&super::Stage<'_>, &SourceMap)) {
    let mut files = SourceMap::default();
    files.add(SourceFile::new(
        "t.yaml",
        None,
        text.to_string(),
        FileKind::Yaml,
    ));
    let (docs, errors) = crate::yaml::parse(FileId(0), text);
    assert!(errors.is_empty(), "{errors:?}");
    let graph = Graph::build(&docs);
    let settings = Settings::default();
    let controllers = crate::controllers::Model::build(&graph, &docs);
    let model = crate::model::Model {
        files: &files,
        documents: &docs,
        k8s: &graph,
        haproxy: &[],
        nginx: &[],
        settings: &settings,
    };
    let cx = super::Stage {
        model: &model,
        controllers: &controllers,
    };
    f(&cx, &files);
}

/// Of the pairs of one cause, [`super::Causes`] keeps the one whose label sorts first in the
/// engine's order (no label, then by file name and position, not by file id), the earliest of
/// equal ones, and hands them back in chain order.
#[test]
fn causes_keep_the_pair_the_engine_would_keep() {
    use crate::source::Span;
    let mut files = SourceMap::default();
    for name in ["b.yaml", "a.yaml"] {
        files.add(SourceFile::new(
            name,
            None,
            "x: 1\n".repeat(4),
            FileKind::Yaml,
        ));
    }
    let at = |file: u32, start: usize| Some(Span::new(FileId(file), start, start + 1));
    let kept = |offers: &[(&str, usize, Option<Span>)]| {
        let mut causes = super::Causes::default();
        for (key, chain, label) in offers {
            causes.offer(&files, *key, (*chain, 0, 1), *label, |_| true);
        }
        causes
            .in_order()
            .iter()
            .map(|c| (c.chain, c.outer, c.inner))
            .collect::<Vec<_>>()
    };
    // a.yaml (file 1) sorts before b.yaml (file 0); the earlier of two equal labels stays.
    assert_eq!(
        kept(&[("x", 0, at(0, 0)), ("x", 1, at(1, 5)), ("x", 2, at(1, 5))]),
        vec![(1, 0, 1)]
    );
    // Position within a file; no label before any.
    assert_eq!(
        kept(&[
            ("x", 0, at(1, 5)),
            ("x", 1, at(1, 2)),
            ("y", 2, None),
            ("y", 3, at(1, 0))
        ]),
        vec![(1, 0, 1), (2, 0, 1)]
    );
    assert_eq!(kept(&[("x", 4, at(0, 0)), ("x", 5, None)]), vec![(5, 0, 1)]);
    // Pairs whose messages differ (`same` says no) are kept apart, in chain order.
    let mut causes = super::Causes::default();
    causes.offer(&files, "x", (3, 0, 1), at(0, 0), |_| true);
    causes.offer(&files, "x", (1, 0, 2), at(1, 0), |_| false);
    let order: Vec<usize> = causes.in_order().iter().map(|c| c.chain).collect();
    assert_eq!(order, vec![1, 3]);
}

/// The chains of one route are ordered by what they read (route label, then signature), not by
/// the order their workloads are written in: three apps under one label written c, a, b are
/// printed a, b, c.
#[test]
fn the_chains_of_one_route_are_in_the_order_they_read() {
    let text: String = ["web-c", "web-a", "web-b"]
        .iter()
        .map(|name| {
            format!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec:\n      containers:\n        - name: web\n          image: python:3.12\n          command: [gunicorn, --keep-alive, '5', app:app]\n          ports: [{{containerPort: 8080}}]\n---\n"
            )
        })
        .chain(std::iter::once(
            "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop, annotations: {service.beta.kubernetes.io/aws-load-balancer-type: nlb}}\nspec:\n  type: LoadBalancer\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n".to_string(),
        ))
        .collect();
    on_stage(&text, |cx, _| {
        let chains = super::build(cx);
        let apps: Vec<&str> = chains
            .iter()
            .filter_map(|c| c.hops().last())
            .map(|h| h.name.as_str())
            .collect();
        assert_eq!(
            apps,
            ["web-a: gunicorn", "web-b: gunicorn", "web-c: gunicorn"]
        );
    });
}

/// The chains of one route share its route, front hops and Service hop, the chains to one
/// workload its app hop, and the chains of one route to one Service are one run of
/// [`super::Chains`]. Three apps under one label behind an NLB are three chains of three hops
/// (NLB, Service, app) that share the first two, in one run; a Service whose pods are not in
/// the input ends its chain at the Service, a run of its own.
#[test]
fn the_chains_of_one_route_share_its_hops() {
    let text: String = ["web-a", "web-b", "web-c"]
        .iter()
        .map(|name| {
            format!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec:\n      containers:\n        - name: web\n          image: python:3.12\n          command: [gunicorn, --keep-alive, '5', app:app]\n          ports: [{{containerPort: 8080}}]\n---\n"
            )
        })
        .chain(["web", "gone"].iter().map(|name| format!(
            "apiVersion: v1\nkind: Service\nmetadata: {{name: {name}, namespace: shop, annotations: {{service.beta.kubernetes.io/aws-load-balancer-type: nlb}}}}\nspec:\n  type: LoadBalancer\n  selector: {{app: {name}}}\n  ports: [{{port: 80, targetPort: 8080}}]\n---\n",
        )))
        .collect();
    on_stage(&text, |cx, _| {
        let chains = super::build(cx);
        let names =
            |c: super::Chain| -> Vec<String> { c.hops().iter().map(|h| h.name.clone()).collect() };
        let all: Vec<Vec<String>> = chains.iter().map(names).collect();
        assert_eq!((chains.runs.len(), chains.len()), (2, 4));
        let got: Vec<Vec<String>> = (0..chains.len()).map(|k| names(chains.get(k))).collect();
        assert_eq!(got, all);
        assert_eq!(
            all,
            [
                vec!["AWS NLB", "Service shop/web", "web-a: gunicorn"],
                vec!["AWS NLB", "Service shop/web", "web-b: gunicorn"],
                vec!["AWS NLB", "Service shop/web", "web-c: gunicorn"],
                vec!["AWS NLB", "Service shop/gone"],
            ]
        );
        for c in chains.iter().take(3) {
            for i in 0..2 {
                assert!(std::sync::Arc::ptr_eq(c.hop(i), chains.get(0).hop(i)));
            }
            let hops = c.hops();
            assert_eq!(hops.len(), 3);
            assert!(hops.get(3).is_none());
            assert!(std::sync::Arc::ptr_eq(hops.last().unwrap(), c.hop(2)));
            assert_eq!(hops.iter().rev().count(), 3);
        }
        let gone = chains.get(3).hops();
        assert_eq!((gone.len(), gone.get(2).is_none()), (2, true));
        assert_eq!(
            gone.last().map(|h| h.name.as_str()),
            Some("Service shop/gone")
        );
    });
}

/// The route's declaration comes before the workload's, even when it is not a duration: the
/// workload's is not asked (as for controllers), so a chain to a workload declaring 45s has no
/// ping interval when its Service declares `soon`; a chain whose route declares none takes the
/// workload's.
#[test]
fn a_route_declaration_that_is_not_a_duration_hides_the_workloads() {
    let text: String = ["soon", ""]
        .iter()
        .enumerate()
        .map(|(i, ping)| {
            let nlb = "service.beta.kubernetes.io/aws-load-balancer-type: nlb";
            let annotations = if ping.is_empty() {
                format!("{{{nlb}}}")
            } else {
                format!("{{{nlb}, kubegap.io/ping-interval: {ping}}}")
            };
            format!(
                "apiVersion: v1\nkind: Service\nmetadata: {{name: web{i}, namespace: shop, annotations: {annotations}}}\nspec:\n  type: LoadBalancer\n  selector: {{app: web{i}}}\n  ports: [{{port: 80, targetPort: 8080}}]\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web{i}, namespace: shop, annotations: {{kubegap.io/ping-interval: 45s}}}}\nspec:\n  template:\n    metadata: {{labels: {{app: web{i}}}}}\n    spec:\n      containers:\n        - name: web\n          image: python:3.12\n          command: [gunicorn, --keep-alive, '5', app:app]\n          ports: [{{containerPort: 8080}}]\n---\n"
            )
        })
        .collect();
    on_stage(&text, |cx, _| {
        let chains = super::build(cx);
        let pings: Vec<_> = chains
            .iter()
            .map(|c| c.ping_interval().map(|v| v.range.low))
            .collect();
        assert_eq!(pings, [None, Some(Millis::from_secs(45))]);
    });
}

/// The build orders a route's chains by their label and signature as if each were rendered
/// whole, though it renders a head's front hops and an app hop once: a front that is a prefix
/// of another is compared with the app hop after it (`ab` + `x` sorts after `abc` + `d`),
/// equal fronts by their app hops, and a chain without an app hop before one with.
#[test]
fn chains_compare_as_their_rendered_signatures() {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let rendered = super::Rendered {
        texts: ["route", "ab", "abc", "x", "d", "ab"]
            .map(str::to_string)
            .to_vec(),
        ..Default::default()
    };
    let key = |front, app| super::Key {
        label: 0,
        front,
        app,
    };
    let cmp = |a, b| rendered.cmp(&a, &b);
    assert_eq!(cmp(key(1, Some(3)), key(2, Some(4))), Greater);
    assert_eq!(cmp(key(2, Some(4)), key(1, Some(3))), Less);
    assert_eq!(cmp(key(1, Some(4)), key(1, Some(3))), Less);
    assert_eq!(cmp(key(1, None), key(1, Some(4))), Less);
    assert_eq!(cmp(key(1, Some(3)), key(5, Some(3))), Equal);
    let other_label = super::Key {
        label: 3,
        ..key(1, None)
    };
    assert_eq!(cmp(other_label, key(2, Some(3))), Greater);
}

/// A chain's pairs are its neighbouring hops, the pass-through Service hops skipped: a CDN,
/// a load balancer, a proxy, a Service and an app pair CDN with load balancer, load balancer
/// with proxy, and proxy with app.
#[test]
fn pairs_are_neighbours_but_for_services() {
    use super::{Chain, Head, Hop, Layer, Route, Tail};
    use std::sync::Arc;
    let hop = |layer, name: &str| Arc::new(Hop::new(layer, name, None));
    let head = Arc::new(Head {
        route: Route::object("route".to_string()),
        anchor: crate::source::Span::new(FileId(0), 0, 1),
        hops: [
            hop(Layer::Outer, "cdn"),
            hop(Layer::LoadBalancer, "lb"),
            hop(Layer::Proxy, "proxy"),
            hop(Layer::Service, "svc"),
        ]
        .into(),
        long_lived: None,
        declared: None,
    });
    let tail = |app: Option<Arc<Hop>>| {
        Some(Arc::new(Tail {
            app,
            ping_interval: None,
            session_lifetime: None,
        }))
    };
    let chain = |tail| Chain { head: &head, tail };
    let app = tail(Some(hop(Layer::App, "app")));
    let to_app = chain(app.as_ref());
    assert_eq!(super::layered(to_app).collect::<Vec<_>>(), [0, 1, 2, 4]);
    assert_eq!(
        super::pairs(to_app).collect::<Vec<_>>(),
        [(0, 1), (1, 2), (2, 4)]
    );
    let no_app = tail(None);
    for ends_at_service in [chain(no_app.as_ref()), chain(None)] {
        assert_eq!(
            super::pairs(ends_at_service).collect::<Vec<_>>(),
            [(0, 1), (1, 2)]
        );
    }
}

/// A run's tails are ordered as its chains read, by their app hops' signatures (a tail without
/// an app hop first), and of tails whose app hops read the same only the first is kept: the
/// order and dedup `build` gives the chains of one route.
#[test]
fn a_runs_tails_order_by_their_app_hops() {
    use super::{Hop, Layer, Tail};
    use std::sync::Arc;
    let tail = |app: Option<&str>| {
        Arc::new(Tail {
            app: app.map(|name| Arc::new(Hop::new(Layer::App, name, None))),
            ping_interval: None,
            session_lifetime: None,
        })
    };
    let tails = [
        tail(Some("web-b")),
        tail(Some("web-a")),
        tail(None),
        tail(Some("web-a")),
        tail(None),
    ];
    let files = SourceMap::default();
    let ordered = super::order_tails(&files, &mut super::Rendered::default(), &tails);
    let kept: Vec<usize> = ordered
        .iter()
        .filter_map(|t| tails.iter().position(|u| Arc::ptr_eq(t, u)))
        .collect();
    assert_eq!(kept, [2, 1, 0]);
}
