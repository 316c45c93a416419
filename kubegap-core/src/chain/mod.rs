//! Cross-layer timeout chains: for every route kubegap can see, the hops from the outside in
//! (declared outer hops, the cloud load balancer, the in-cluster proxy, the Service, the
//! application server), each with its idle keep-alive and timeouts and the source of each value.
//!
//! A hop has two sides. As a *server* it closes an idle connection from the hop in front after
//! `keepalive`; as a *client* it keeps idle pooled connections to the next hop for `pool_idle`.
//! A pool that outlives the next hop's keep-alive sends requests on connections the next hop is
//! closing: random 502s (seed 003, nodejs/node#27363).

pub mod app;
mod files;
mod ingress;

use crate::k8s::{Service, Workload};
use crate::model::Model;
use crate::source::{SourceMap, Span};
use crate::value::duration::Millis;
use crate::value::provenance::{Setting, Source};
use std::sync::Arc;

pub use app::Range;

/// What the chains are built from: the model and the controllers layer built before them.
#[derive(Clone, Copy)]
pub struct Stage<'a> {
    /// The read-only model.
    pub model: &'a Model<'a>,
    /// Ingress controllers, routes and load balancers.
    pub controllers: &'a crate::controllers::Model,
}

impl<'a> std::ops::Deref for Stage<'a> {
    type Target = Model<'a>;

    fn deref(&self) -> &Model<'a> {
        self.model
    }
}

/// Which layer a hop is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// Declared in the configuration (`topology.outer`), e.g. a CDN.
    Outer,
    /// A cloud load balancer configured by annotations.
    LoadBalancer,
    /// An in-cluster proxy: ingress controller, haproxy.cfg, nginx.conf, OpenShift router.
    Proxy,
    /// A Kubernetes Service (pass-through: kube-proxy holds no idle pool).
    Service,
    /// The application server.
    App,
}

/// A duration (a range, for a version-dependent default) and where it came from. The source keeps spans; lines are computed only
/// when a message or a chain line is rendered ([`Value::show`], [`Value::brief`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    /// The value.
    pub range: Range,
    /// Where it came from: a directive, an annotation, a declaration, the default of a product.
    /// Behind a pointer: a hop has six optional values, most of them absent (a chain of three
    /// hops was 2.9 KB when sources were inline). An `Arc`, not a `Box`: a chain copies its
    /// route's hops, and the copies share their sources.
    pub source: Arc<Source>,
}

impl Value {
    /// An exact value with its source.
    pub fn new(value: Millis, source: impl Into<Arc<Source>>) -> Value {
        Value {
            range: Range::exact(value),
            source: source.into(),
        }
    }

    /// A controller or load balancer setting as a chain value.
    pub fn of(setting: &Setting<Millis>) -> Value {
        Value::new(setting.value, Arc::clone(&setting.source))
    }

    /// The span to point at or label: where the value is written, else what implies a default.
    pub fn span(&self) -> Option<Span> {
        match &*self.source {
            Source::Default(d) => d.implied_by.as_ref().map(|(_, span)| *span),
            other => other.span(),
        }
    }

    /// Whether two values are the same but for where they are written ([`Source::same_but_where`]).
    pub fn same_but_where(&self, other: &Value) -> bool {
        self.range == other.range && self.source.same_but_where(&other.source)
    }

    /// `60s (annotation `…` at api.yaml:9)`, `5s (default of CloudFront origin settings)`.
    pub fn show(&self, files: &SourceMap) -> String {
        format!("{} ({})", self.range.show(), self.source.cite(files))
    }

    /// `60s (api.yaml:9)`, `5s (default)`: for chain lines.
    pub fn brief(&self, files: &SourceMap) -> String {
        format!("{} ({})", self.range.show(), self.source.brief(files))
    }
}

/// One hop of a chain.
#[derive(Clone, Debug, PartialEq)]
pub struct Hop {
    /// The layer.
    pub layer: Layer,
    /// Display name: `ALB`, `ingress-nginx`, `nginx (nginx.conf)`, `Service shop/web`,
    /// `web: gunicorn`.
    pub name: String,
    /// Idle keep-alive as a server (towards the hop in front).
    pub keepalive: Option<Value>,
    /// Idle time of pooled connections as a client (towards the next hop).
    pub pool_idle: Option<Value>,
    /// How long it waits for the next hop's response.
    pub read_timeout: Option<Value>,
    /// Idle limit once a connection is a tunnel (WebSocket): HAProxy `timeout tunnel`, a
    /// controller's tunnel timeout. `None` when the read timeout applies to tunnels too.
    pub tunnel_timeout: Option<Value>,
    /// A cap on a connection's whole lifetime (GCP `timeoutSec` for WebSockets, reload deadlines).
    pub lifetime: Option<Value>,
    /// Node's `headersTimeout`, when declared (app hops only).
    pub headers_timeout: Option<Value>,
    /// Where the hop is defined.
    pub span: Option<Span>,
    /// Whether it is a Google Cloud HTTP(S) load balancer (fixed 600 s backend keep-alive pool).
    pub gclb: bool,
}

/// Whether two optional values are both absent, or both present and `same`.
fn both_same<T>(a: &Option<T>, b: &Option<T>, same: impl Fn(&T, &T) -> bool) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => same(a, b),
        (a, b) => a.is_none() && b.is_none(),
    }
}

impl Hop {
    /// Whether two hops are the same but for where they and their values are written (the app
    /// hops of two copies of one manifest).
    pub fn same_but_where(&self, other: &Hop) -> bool {
        self.layer == other.layer
            && self.name == other.name
            && self.gclb == other.gclb
            && self.span.is_some() == other.span.is_some()
            && [
                (&self.keepalive, &other.keepalive),
                (&self.pool_idle, &other.pool_idle),
                (&self.read_timeout, &other.read_timeout),
                (&self.tunnel_timeout, &other.tunnel_timeout),
                (&self.lifetime, &other.lifetime),
                (&self.headers_timeout, &other.headers_timeout),
            ]
            .iter()
            .all(|(a, b)| both_same(a, b, Value::same_but_where))
    }

    /// The hop's name, then each of its values with its source, `|`-separated, then a newline:
    /// a part of [`Chain::signature`].
    pub fn signature(&self, files: &SourceMap) -> String {
        let mut out = self.name.clone();
        for v in [
            &self.keepalive,
            &self.pool_idle,
            &self.read_timeout,
            &self.tunnel_timeout,
            &self.lifetime,
            &self.headers_timeout,
        ] {
            out.push('|');
            if let Some(v) = v {
                out.push_str(&v.show(files));
            }
        }
        out.push('\n');
        out
    }

    /// A hop with no values yet.
    pub fn new(layer: Layer, name: impl Into<String>, span: Option<Span>) -> Hop {
        Hop {
            layer,
            name: name.into(),
            keepalive: None,
            pool_idle: None,
            read_timeout: None,
            tunnel_timeout: None,
            lifetime: None,
            headers_timeout: None,
            span,
            gclb: false,
        }
    }
}

/// Which values a rendered chain shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// Idle keep-alive (as a server) and pool idle (as a client).
    Idle,
    /// Request (read) and tunnel timeouts.
    Timeouts,
    /// Lifetime caps (reload deadlines, GCP `timeoutSec` for WebSockets).
    Lifetime,
}

/// The span that names an object (its `metadata.name` value), else the whole object: hops
/// point at one line, not at a whole manifest.
pub fn object_anchor(cx: &Stage<'_>, obj: crate::k8s::ObjId) -> Span {
    let o = cx.obj(obj);
    cx.node(o.at)
        .path(&["metadata", "name"])
        .map_or_else(|| cx.span(o.at), |n| n.span())
}

/// What a route is. A route written in a config file keeps the span of its line; the
/// `nginx.conf:12` prefix is computed only when the label is rendered ([`Route::label`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    /// The proxy line of a file route (`proxy_pass`, `server`), rendered as `nginx.conf:12`;
    /// `None` for a route written in an object (`Ingress shop/web /api`).
    pub at: Option<Span>,
    /// `proxy_pass http://api`, `server orders`, `Ingress shop/web /api`: shared by the
    /// route's chains.
    pub text: Arc<str>,
}

impl Route {
    /// A route named by an object.
    pub fn object(text: String) -> Route {
        Route {
            at: None,
            text: text.into(),
        }
    }

    /// `nginx.conf:12 proxy_pass http://api`, `Ingress shop/web /api`.
    pub fn label(&self, files: &SourceMap) -> String {
        match self.at {
            Some(at) => {
                let file = files.get(at.file);
                let line = file.line_col(at.start).line;
                format!("{}:{line} {}", file.base_name(), self.text)
            }
            None => self.text.to_string(),
        }
    }
}

/// A route through the layers, outermost hop first: a view into [`Chains`].
///
/// Two references: to what the chains of one route to one Service share (the route, its front
/// hops and the Service hop, its declarations) and to what the chain takes from the workload it
/// ends at (its app hop and declarations), when the Service selects several (else the head
/// holds it too). N routes to N workloads named apart under one label are N² chains; each held
/// its route, front hops and values inline (about 180 bytes a chain, most of the peak for 400
/// such apps) before they were shared, and two shared pointers (16 bytes a chain: 123 MB of
/// the 184 MiB peak for 1,600 such apps) before [`Chains`] kept one run per route to a Service
/// instead of one record per chain.
#[derive(Clone, Copy, Debug)]
pub struct Chain<'a> {
    head: &'a Arc<Head>,
    tail: Option<&'a Arc<Tail>>,
}

/// Every chain of the input, in order ([`build`]), as runs: a route to a Service and the
/// workloads it reaches, whose chains are the head with each of the run's tails in turn. The
/// runs to the Services of one selector share one list of tails, so N routes to N workloads
/// under one label are 3N runs and N tails, not 3N² records, while rules still see every
/// chain ([`Chains::iter`], [`Chains::get`]).
#[derive(Debug, Default)]
pub struct Chains {
    runs: Vec<Run>,
    /// The number of chains up to and including each run: [`Chains::get`] finds a chain's run
    /// by a binary search.
    ends: Vec<usize>,
}

impl<'a> IntoIterator for &'a Chains {
    type Item = Chain<'a>;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The chains of runs, in order ([`Chains::iter`]).
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    runs: std::slice::Iter<'a, Run>,
    /// The head of the run whose `tails` are being visited.
    head: Option<&'a Arc<Head>>,
    tails: std::slice::Iter<'a, Arc<Tail>>,
}

impl<'a> Iter<'a> {
    fn new(runs: &'a [Run]) -> Iter<'a> {
        Iter {
            runs: runs.iter(),
            head: None,
            tails: [].iter(),
        }
    }
}

impl<'a> Iterator for Iter<'a> {
    type Item = Chain<'a>;

    fn next(&mut self) -> Option<Chain<'a>> {
        loop {
            if let Some(head) = self.head {
                if let Some(tail) = self.tails.next() {
                    return Some(Chain {
                        head,
                        tail: Some(tail),
                    });
                }
            }
            let run = self.runs.next()?;
            match &run.tails {
                Some(tails) => {
                    self.head = Some(&run.head);
                    self.tails = tails.iter();
                }
                None => {
                    self.head = None;
                    return Some(Chain {
                        head: &run.head,
                        tail: None,
                    });
                }
            }
        }
    }
}

/// Chains that share a head ([`Chains`]): one without a tail, or one for each tail in turn.
#[derive(Debug)]
struct Run {
    head: Arc<Head>,
    tails: Option<Arc<[Arc<Tail>]>>,
    /// Whether its chains after the first differ from it only in an app hop
    /// ([`Layer::App`], not a proxy's) and declare nothing of their own ([`Chains::iter_seen`]).
    plain: bool,
}

impl Run {
    fn len(&self) -> usize {
        self.tails.as_ref().map_or(1, |t| t.len())
    }

    fn get(&self, i: usize) -> Chain<'_> {
        Chain {
            head: &self.head,
            tail: self.tails.as_ref().and_then(|t| t.get(i)),
        }
    }

    fn chains(&self) -> Iter<'_> {
        Iter::new(std::slice::from_ref(self))
    }
}

/// The chains of one route to one Service, as rules see them ([`Chains::runs`]): they share
/// their first [`RunOf::shared`] hops and differ in the workload they end at.
#[derive(Clone, Copy, Debug)]
pub struct RunOf<'a> {
    run: &'a Run,
    first: usize,
}

impl<'a> RunOf<'a> {
    /// The index of its first chain ([`Chains::get`]).
    pub fn first(&self) -> usize {
        self.first
    }

    /// Its chains, in order.
    pub fn chains(&self) -> Iter<'a> {
        self.run.chains()
    }

    /// How many chains.
    pub fn len(&self) -> usize {
        self.run.len()
    }

    /// Whether it has none (never: a run has one chain at least).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Its first chain.
    pub fn head(&self) -> Chain<'a> {
        self.run.get(0)
    }

    /// How many hops, from the outside, its chains share: the hops after them (an app hop) are
    /// each chain's own.
    pub fn shared(&self) -> usize {
        self.run.head.hops.len()
    }
}

impl Chains {
    fn new(runs: Vec<Run>) -> Chains {
        let mut total = 0;
        let ends = runs
            .iter()
            .map(|r| {
                total += r.len();
                total
            })
            .collect();
        Chains { runs, ends }
    }

    /// How many chains.
    pub fn len(&self) -> usize {
        self.ends.last().copied().unwrap_or(0)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The runs of chains that share their route, front and Service hops, in order.
    pub fn runs(&self) -> impl Iterator<Item = RunOf<'_>> + '_ {
        let firsts = std::iter::once(0).chain(self.ends.iter().copied());
        self.runs
            .iter()
            .zip(firsts)
            .map(|(run, first)| RunOf { run, first })
    }

    /// The chains a rule that reads hops one by one or in pairs, and skips app hops, has to
    /// read, each after how many of its hops (from the outside) the chain before it had too: 0
    /// for the first chain of a run, else [`RunOf::shared`]. Such a rule need only read, in a
    /// later chain of a run, the hops after those: the others are the same hops at the same
    /// places, already read. A run's later chains that differ from its first only in an app
    /// hop, and declare nothing of their own, are left out: N routes to N apps named apart
    /// under one label are N² chains but 3N such runs.
    pub fn iter_seen(&self) -> impl Iterator<Item = (usize, Chain<'_>)> + '_ {
        self.runs().flat_map(|run| {
            let shared = run.shared();
            let read = if run.run.plain { 1 } else { run.run.len() };
            run.chains()
                .take(read)
                .enumerate()
                .map(move |(n, chain)| (if n == 0 { 0 } else { shared }, chain))
        })
    }

    /// Every chain, in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter::new(&self.runs)
    }

    /// The chain at `k` (counted as [`Chains::iter`] counts); panics past the last, as indexing
    /// a slice does (indices come from [`Chains::iter`], not from the input).
    pub fn get(&self, k: usize) -> Chain<'_> {
        let run = self.ends.partition_point(|end| *end <= k);
        let start = run.checked_sub(1).map_or(0, |r| self.ends[r]);
        match self.runs.get(run) {
            Some(r) => r.get(k - start),
            None => panic!("chain {k} of {}", self.len()),
        }
    }
}

/// What the chains of one route to one Service share ([`Chain`]). A Service that selects one
/// workload (most do) has one chain, whose head holds all of it: the app hop after the Service
/// hop, the workload's declarations folded into the route's, and no tail.
#[derive(Debug)]
struct Head {
    route: Route,
    anchor: Span,
    /// The front hops and the Service hop (and the app hop, for a chain without a tail).
    hops: Box<[Arc<Hop>]>,
    long_lived: Option<Arc<str>>,
    /// The declarations that apply before the tail's, if any does (most routes have none).
    declared: Option<Box<Declared>>,
}

/// A head's declarations ([`Head`]): the route's or the Service's, when either has one
/// (`Some(None)`: declared, but not a duration), else the tail's applies.
#[derive(Debug)]
struct Declared {
    ping_interval: Option<Option<Value>>,
    session_lifetime: Option<Option<Value>>,
}

/// The hops of a chain from the outside in ([`Chain::hops`]): the shared front and Service
/// hops, then the app hop, if the chain has one.
#[derive(Clone, Copy, Debug)]
pub struct Hops<'a> {
    front: &'a [Arc<Hop>],
    app: Option<&'a Arc<Hop>>,
}

impl<'a> Hops<'a> {
    /// How many hops.
    pub fn len(&self) -> usize {
        self.front.len() + usize::from(self.app.is_some())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The hop at `i`, counted from the outside.
    pub fn get(&self, i: usize) -> Option<&'a Arc<Hop>> {
        match self.front.get(i) {
            Some(hop) => Some(hop),
            None if i == self.front.len() => self.app,
            None => None,
        }
    }

    /// The innermost hop.
    pub fn last(&self) -> Option<&'a Arc<Hop>> {
        self.app.or(self.front.last())
    }

    /// The hops from the outside in.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &'a Arc<Hop>> + Clone + 'a {
        self.front.iter().chain(self.app)
    }
}

impl<'a> IntoIterator for Hops<'a> {
    type Item = &'a Arc<Hop>;
    type IntoIter =
        std::iter::Chain<std::slice::Iter<'a, Arc<Hop>>, std::option::IntoIter<&'a Arc<Hop>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.front.iter().chain(self.app)
    }
}

impl<'a> Chain<'a> {
    /// What the route is: `Ingress shop/web /api`, `nginx.conf:12 proxy_pass http://api`.
    pub fn route(&self) -> &'a Route {
        &self.head.route
    }

    /// Where the route is written (the Ingress path, the `proxy_pass`, the `server` line).
    pub fn anchor(&self) -> Span {
        self.head.anchor
    }

    /// Hops from the outside in. Shared: the chains of one route share its front hops and
    /// Service hop, the chains to one workload its app hop (N routes to N workloads are N²
    /// chains but only 2N hops).
    pub fn hops(&self) -> Hops<'a> {
        Hops {
            front: &self.head.hops,
            app: self.tail.and_then(|t| t.app.as_ref()),
        }
    }

    /// The hop at `i`, counted from the outside; panics past the last, as indexing a slice does
    /// (indices come from [`Hops::len`] and [`pairs`], not from the input).
    pub fn hop(&self, i: usize) -> &'a Arc<Hop> {
        match self.hops().get(i) {
            Some(hop) => hop,
            None => panic!("hop {i} of a chain of {} hops", self.hops().len()),
        }
    }

    /// Why kubegap treats it as long-lived, if it does.
    pub fn long_lived(&self) -> Option<&'a str> {
        self.head.long_lived.as_deref()
    }

    /// Declared client ping interval (`kubegap.io/ping-interval`): the route's or the
    /// Service's, else the workload's.
    pub fn ping_interval(&self) -> Option<&'a Value> {
        self.declaration(|d| &d.ping_interval, |t| &t.ping_interval)
    }

    /// Declared expected session lifetime (`kubegap.io/session-lifetime`): the route's or the
    /// Service's, else the workload's.
    pub fn session_lifetime(&self) -> Option<&'a Value> {
        self.declaration(|d| &d.session_lifetime, |t| &t.session_lifetime)
    }

    /// Whether two chains read the very same declared values (ping interval, session
    /// lifetime), not merely equal ones: the chains of a run do, unless their workloads declare
    /// their own.
    pub fn declares_as(&self, other: Chain<'_>) -> bool {
        let same =
            |a: Option<&Value>, b: Option<&Value>| both_same(&a, &b, |a, b| std::ptr::eq(*a, *b));
        same(self.ping_interval(), other.ping_interval())
            && same(self.session_lifetime(), other.session_lifetime())
    }

    /// A declaration: the head's, when it has one (`Some(None)` is declared but not a duration),
    /// else the tail's.
    fn declaration(
        &self,
        head: fn(&Declared) -> &Option<Option<Value>>,
        tail: fn(&Tail) -> &Option<Value>,
    ) -> Option<&'a Value> {
        let this: &'a Head = self.head;
        match this.declared.as_deref().and_then(|d| head(d).as_ref()) {
            Some(declared) => declared.as_ref(),
            None => tail(self.tail?).as_ref(),
        }
    }

    /// Every hop with every value and source: two chains with the same signature are the same.
    pub fn signature(&self, files: &SourceMap) -> String {
        self.hops().iter().map(|hop| hop.signature(files)).collect()
    }

    /// The chain, one hop per line from the outside in (`CloudFront pool 5s (default)`,
    /// `→ ALB idle 60s (api.yaml:9)`, …), marking the hop at `bad` with ✗. Each hop shows its
    /// keep-alive and pool idle with their compact sources.
    pub fn render(&self, files: &SourceMap, bad: Option<usize>) -> String {
        self.render_values(files, bad, Shown::Idle)
    }

    /// Like [`Chain::render`], showing the values a rule compares: idle keep-alive and pools,
    /// request and tunnel timeouts, or lifetime caps.
    pub fn render_values(&self, files: &SourceMap, bad: Option<usize>, shown: Shown) -> String {
        let parts: Vec<String> = self
            .hops()
            .iter()
            .enumerate()
            .map(|(i, hop)| {
                let values: Vec<String> = match (hop.layer, shown) {
                    (Layer::Service, _) => Vec::new(),
                    (_, Shown::Idle) => match (&hop.keepalive, &hop.pool_idle) {
                        (Some(k), Some(p)) if k == p => vec![format!("idle {}", k.brief(files))],
                        (k, p) => [("keep-alive", k), ("pool", p)]
                            .into_iter()
                            .filter_map(|(what, v)| {
                                v.as_ref().map(|v| format!("{what} {}", v.brief(files)))
                            })
                            .collect(),
                    },
                    (_, Shown::Timeouts) => [
                        ("timeout", &hop.read_timeout),
                        ("tunnel timeout", &hop.tunnel_timeout),
                    ]
                    .into_iter()
                    .filter_map(|(what, v)| {
                        v.as_ref().map(|v| format!("{what} {}", v.brief(files)))
                    })
                    .collect(),
                    (_, Shown::Lifetime) => hop
                        .lifetime
                        .iter()
                        .map(|v| format!("lifetime {}", v.brief(files)))
                        .collect(),
                };
                let mark = if bad == Some(i) { " ✗" } else { "" };
                if values.is_empty() {
                    format!("{}{mark}", hop.name)
                } else {
                    format!("{} {}{mark}", hop.name, values.join(", "))
                }
            })
            .collect();
        parts.join("\n→ ")
    }
}

/// The outer hops declared in the settings, with product defaults (CloudFront: origin
/// keep-alive 5 s, read timeout 30 s).
pub fn outer_hops(cx: &Stage<'_>) -> Vec<Arc<Hop>> {
    cx.settings
        .topology
        .iter()
        .map(|outer| {
            let product = outer.product.to_ascii_lowercase();
            let name = if product == "cloudfront" {
                "CloudFront".to_string()
            } else {
                outer.product.clone()
            };
            let mut hop = Hop::new(Layer::Outer, name, None);
            let defaults: Option<(Millis, Millis, &str)> = (product == "cloudfront").then_some((
                Millis::from_secs(5),
                Millis::from_secs(30),
                "CloudFront origin settings",
            ));
            let declared = || Source::Declaration {
                what: outer.source.clone(),
            };
            hop.pool_idle = match (outer.keepalive, defaults) {
                (Some(v), _) => Some(Value::new(v, declared())),
                (None, Some((k, _, src))) => Some(Value::new(k, Source::default_of(src, None))),
                _ => None,
            };
            hop.read_timeout = match (outer.read_timeout, defaults) {
                (Some(v), _) => Some(Value::new(v, declared())),
                (None, Some((_, r, src))) => Some(Value::new(r, Source::default_of(src, None))),
                _ => None,
            };
            Arc::new(hop)
        })
        .collect()
}

/// The Service hop.
pub fn service_hop(cx: &Stage<'_>, service: &Service) -> Hop {
    let o = cx.obj(service.obj);
    Hop::new(
        Layer::Service,
        format!("Service {}/{}", o.namespace, o.name),
        Some(object_anchor(cx, service.obj)),
    )
}

/// The app hop of one workload, if its server's keep-alive is known. An ingress controller
/// behind the Service (a GKE Ingress in front of ingress-nginx) is a proxy hop with its client
/// keep-alive (ingress-nginx `keep-alive`, 75 s by default).
pub fn app_hop(cx: &Stage<'_>, workload: &Workload, port: Option<&str>) -> Option<Hop> {
    if let Some(controller) = cx
        .controllers
        .controllers
        .iter()
        .find(|c| c.obj == workload.obj)
    {
        let o = cx.obj(workload.obj);
        let mut hop = Hop::new(
            Layer::Proxy,
            format!("{} ({})", controller.product.name(), o.name),
            Some(object_anchor(cx, workload.obj)),
        );
        hop.keepalive = controller
            .settings
            .client_keepalive_timeout
            .as_ref()
            .map(Value::of)
            .or_else(|| ingress::default_client_keepalive(controller.product));
        return Some(hop);
    }
    let detected = app::detect(cx, workload, port)?;
    let o = cx.obj(workload.obj);
    let mut hop = Hop::new(
        Layer::App,
        format!("{}: {}", o.name, detected.server.name()),
        Some(detected.span),
    );
    hop.keepalive = Some(Value {
        range: detected.range,
        source: Arc::new(detected.source.clone()),
    });
    hop.headers_timeout = detected.headers_timeout.map(|(ms, span)| {
        Value::new(
            ms,
            Source::Annotation {
                key: crate::value::declarations::HEADERS_TIMEOUT.to_string(),
                key_span: span,
                value_span: span,
            },
        )
    });
    Some(hop)
}

/// Resolves a host written in a proxy config (in `file`) to a Service of the input through
/// cluster DNS: `name`, `name.ns`, `name.ns.svc`, `name.ns.svc.cluster.local`. Among Services
/// with that name, the one nearest to the config file is taken (see `k8s::scope`); two equally
/// near ones (a bare name in two namespaces, say) resolve to none.
pub fn resolve_service<'a>(
    cx: &Stage<'a>,
    file: crate::source::FileId,
    host: &str,
) -> Option<&'a Service> {
    let (name, ns) = service_host(host)?;
    let candidates = cx.k8s.services.iter().filter(|s| {
        let o = cx.obj(s.obj);
        o.name == name && ns.is_none_or(|ns| o.namespace == ns)
    });
    cx.k8s.nearest_to_file(file, candidates)
}

/// The Service name and namespace a cluster DNS host names (`api`, `api.shop`,
/// `api.shop.svc.cluster.local.`); `None` for an IPv4 address or a longer name.
pub fn service_host(host: &str) -> Option<(&str, Option<&str>)> {
    let host = host.trim_end_matches('.');
    let host = host.strip_suffix(".cluster.local").unwrap_or(host);
    let host = host.strip_suffix(".svc").unwrap_or(host);
    let mut parts = host.split('.');
    let name = parts.next()?;
    let ns = parts.next();
    if parts.next().is_some() || name.is_empty() || name.parse::<std::net::Ipv4Addr>().is_ok() {
        return None;
    }
    Some((name, ns))
}

/// How a proxy names the Service port it reaches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PortRef {
    /// By number (`port`).
    Number(u16),
    /// By name (Ingress `port.name`).
    Name(String),
    /// Not written.
    Unknown,
}

/// The targetPort (as text) of the Service port a proxy reaches (any port when unknown and the
/// Service has exactly one).
pub fn target_port_for(cx: &Stage<'_>, service: &Service, port: &PortRef) -> Option<String> {
    let sp = match port {
        PortRef::Number(p) => service
            .ports
            .iter()
            .find(|sp| sp.port == Some(i64::from(*p)))?,
        PortRef::Name(n) => service
            .ports
            .iter()
            .find(|sp| sp.name.as_deref() == Some(n.as_str()))?,
        PortRef::Unknown if service.ports.len() == 1 => &service.ports[0],
        PortRef::Unknown => return None,
    };
    match sp.target_port {
        Some(at) => cx.node(at).as_str().map(str::to_string),
        None => sp.port.map(|p| p.to_string()),
    }
}

/// Where chains end: a route and the Service it reaches.
pub struct RouteEnd<'a> {
    /// What the route is: `Ingress shop/web /api`, `nginx.conf:12 proxy_pass http://api`.
    pub route: Route,
    /// Where the route is written.
    pub anchor: Span,
    /// The Ingress or Route object of the route, when it is one (its declarations come first).
    pub object: Option<crate::k8s::ObjId>,
    /// The Service reached.
    pub service: &'a Service,
    /// The Service port reached.
    pub port: PortRef,
    /// Why the route is long-lived, if it is.
    pub long_lived: Option<Arc<str>>,
}

/// A route declaration (`kubegap.io/ping-interval: 45s`) found on `places`, in the lookup order
/// of [`crate::value::declarations`], as a chain value cited like every controller setting.
/// `None` when no place has the key; `Some(None)` when the first that has it does not hold a
/// duration (the places after it are not asked).
fn declared(cx: &Stage<'_>, places: &[crate::k8s::ObjId], key: &str) -> Option<Option<Value>> {
    let (k, v) = crate::value::declarations::lookup(cx.k8s, cx.documents, places, key)?;
    Some(v.as_str().and_then(crate::value::duration::go).map(|ms| {
        let setting =
            crate::controllers::Setting::new(ms, crate::controllers::annotation_source(key, k, v));
        Value::of(&setting)
    }))
}

/// What a chain takes from the workload it ends at: its app hop and the route declarations
/// on it (used when the route and the Service declare none).
#[derive(Debug, PartialEq)]
struct Tail {
    app: Option<Arc<Hop>>,
    ping_interval: Option<Value>,
    session_lifetime: Option<Value>,
}

/// The distinct [`Tail`]s of the workloads a Service selects, by (the Service's list of
/// selected workloads, target port), in the order of their first workload. Every Service of
/// a group shares its list, and every route to it its target: the tails are read once, not
/// once per route, and workloads whose tails are equal, or copies of one workload whose tails
/// are the same but for where they are written ([`Tail::same_but_where`]), make one chain
/// per route, not one each (N copies of a release in one stream, each Service selecting all
/// N Deployments, made 3N² chains: 2,000 copies took 12 s and 2.5 GiB).
#[derive(Default)]
pub(crate) struct Tails(std::sync::Mutex<TailsByList>);

/// List of selected workloads → (target port, its distinct tails) ([`Tails`]): looked up
/// without allocating a key.
type TailsByList = std::collections::HashMap<usize, Vec<(Option<String>, Arc<[Arc<Tail>]>)>>;

impl Tail {
    /// Whether two tails are the same but for where they are written.
    fn same_but_where(&self, other: &Tail) -> bool {
        both_same(&self.app, &other.app, |a, b| a.same_but_where(b))
            && both_same(
                &self.ping_interval,
                &other.ping_interval,
                Value::same_but_where,
            )
            && both_same(
                &self.session_lifetime,
                &other.session_lifetime,
                Value::same_but_where,
            )
    }

    /// The tail of one workload.
    fn of(cx: &Stage<'_>, workload: &Workload, target: Option<&str>) -> Tail {
        use crate::value::declarations::{PING_INTERVAL, SESSION_LIFETIME};
        let place = [workload.obj];
        Tail {
            app: app_hop(cx, workload, target).map(Arc::new),
            ping_interval: declared(cx, &place, PING_INTERVAL).flatten(),
            session_lifetime: declared(cx, &place, SESSION_LIFETIME).flatten(),
        }
    }
}

impl Tails {
    /// The distinct tails of the workloads `service` selects.
    fn of(&self, cx: &Stage<'_>, service: &Service, target: Option<&str>) -> Arc<[Arc<Tail>]> {
        let Some(list) = cx.k8s.service_target_list(service) else {
            return Arc::from([]);
        };
        let hit = |memo: &TailsByList| {
            memo.get(&list)?
                .iter()
                .find(|(t, _)| t.as_deref() == target)
                .map(|(_, tails)| Arc::clone(tails))
        };
        if let Some(tails) = self.0.lock().ok().and_then(|memo| hit(&memo)) {
            return tails;
        }
        let mut tails: Vec<Arc<Tail>> = Vec::new();
        // Equal tails have equal spans: only those with the same spans are compared.
        let mut equal: std::collections::HashMap<[Option<Span>; 3], Vec<usize>> =
            std::collections::HashMap::new();
        // Definitions of one object (kind, namespace, name) that differ only in where they are
        // written are copies of one manifest (N copies of a release in one stream): the first
        // stands for them all, as it would for equal ones.
        let mut copies: std::collections::HashMap<(&str, &str, &str), Vec<usize>> =
            std::collections::HashMap::new();
        for w in cx.k8s.service_targets(service) {
            let tail = Tail::of(cx, w, target);
            let spans = [
                tail.app.as_ref().and_then(|h| h.span),
                tail.ping_interval.as_ref().and_then(Value::span),
                tail.session_lifetime.as_ref().and_then(Value::span),
            ];
            let equal = equal.entry(spans).or_default();
            if equal.iter().any(|i| *tails[*i] == tail) {
                continue;
            }
            let o = cx.obj(w.obj);
            let copies = copies
                .entry((o.kind.as_str(), o.namespace.as_str(), o.name.as_str()))
                .or_default();
            if copies.iter().any(|i| tails[*i].same_but_where(&tail)) {
                continue;
            }
            equal.push(tails.len());
            copies.push(tails.len());
            tails.push(Arc::new(tail));
        }
        let tails: Arc<[Arc<Tail>]> = tails.into();
        if let Ok(mut memo) = self.0.lock() {
            if hit(&memo).is_none() {
                memo.entry(list)
                    .or_default()
                    .push((target.map(str::to_string), Arc::clone(&tails)));
            }
        }
        tails
    }
}

/// Appends Service and app hops for the route's Service to `front`: one chain per selected
/// workload, but one for workloads whose chains would be equal and for copies of one workload
/// that differ only in where they are written ([`Tails`]).
fn finish_chains(
    cx: &Stage<'_>,
    end: &RouteEnd<'_>,
    front: &[Arc<Hop>],
    tails: &Tails,
    out: &mut Vec<Run>,
) {
    use crate::value::declarations::{PING_INTERVAL, SESSION_LIFETIME};
    let service = end.service;
    let target = target_port_for(cx, service, &end.port);
    let mut places: Vec<crate::k8s::ObjId> = end.object.into_iter().collect();
    places.push(service.obj);
    // The route's and the Service's declarations come before the workload's.
    let ping_interval = declared(cx, &places, PING_INTERVAL);
    let session_lifetime = declared(cx, &places, SESSION_LIFETIME);
    let head = |app: Option<&Arc<Hop>>, declared: Declared| {
        let mut hops = Vec::with_capacity(front.len() + 1 + usize::from(app.is_some()));
        hops.extend_from_slice(front);
        hops.push(Arc::new(service_hop(cx, service)));
        hops.extend(app.cloned());
        let any = declared.ping_interval.is_some() || declared.session_lifetime.is_some();
        Arc::new(Head {
            route: end.route.clone(),
            anchor: end.anchor,
            hops: hops.into_boxed_slice(),
            long_lived: end.long_lived.clone(),
            declared: any.then(|| Box::new(declared)),
        })
    };
    let route_declared = || Declared {
        ping_interval: ping_interval.clone(),
        session_lifetime: session_lifetime.clone(),
    };
    match cx.k8s.service_target_indices(service) {
        // The pods are not in the input: the chain still ends at the Service.
        [] => out.push(Run {
            head: head(None, route_declared()),
            tails: None,
            plain: false,
        }),
        // A Service that selects one workload (most do) has its tail read here, not kept: its
        // one chain's head holds the app hop and the declarations that apply.
        [only] => {
            let tail = Tail::of(cx, &cx.k8s.workloads[*only], target.as_deref());
            // What applies, as declared on the route (no tail to ask): `None` when nothing does.
            let declared = Declared {
                ping_interval: ping_interval.unwrap_or(tail.ping_interval).map(Some),
                session_lifetime: session_lifetime.unwrap_or(tail.session_lifetime).map(Some),
            };
            out.push(Run {
                head: head(tail.app.as_ref(), declared),
                tails: None,
                plain: false,
            });
        }
        _ => {
            let tails = tails.of(cx, service, target.as_deref());
            out.push(Run {
                head: head(None, route_declared()),
                tails: (!tails.is_empty()).then_some(tails),
                plain: false,
            });
        }
    }
}

/// What the build orders the chains of one anchor by: the route's label, then the signature
/// ([`Chain::signature`]: every hop's part, [`Hop::signature`]), as indices into texts
/// rendered once per head and once per app hop, not per chain (N routes to N workloads named
/// apart under one label are N² chains of 3N heads and N app hops).
#[derive(Default)]
struct Rendered {
    texts: Vec<String>,
    /// Head → its label and its hops' signature. Keyed by the shared head's address; the entry
    /// holds the head, so the address stays its own while the map lives.
    heads: std::collections::HashMap<*const Head, (Arc<Head>, usize, usize)>,
    /// App hop → its signature, likewise.
    apps: std::collections::HashMap<*const Hop, (Arc<Hop>, usize)>,
    /// The last head asked for and its texts: the chains of a route to a Service are next to
    /// each other, and most share it.
    last: Option<(*const Head, usize, usize)>,
}

/// A chain's label and signature ([`Rendered`]): the signature is the front's text, then the
/// app hop's.
#[derive(Clone, Copy)]
struct Key {
    label: usize,
    front: usize,
    app: Option<usize>,
}

impl Rendered {
    fn push(texts: &mut Vec<String>, text: String) -> usize {
        texts.push(text);
        texts.len() - 1
    }

    fn key(&mut self, files: &SourceMap, chain: Chain<'_>) -> Key {
        let texts = &mut self.texts;
        let head = Arc::as_ptr(chain.head);
        let (label, front) = match self.last {
            Some((last, label, front)) if last == head => (label, front),
            _ => {
                let (_, label, front) = *self.heads.entry(head).or_insert_with(|| {
                    let label = Rendered::push(texts, chain.head.route.label(files));
                    let hops = chain.head.hops.iter().map(|h| h.signature(files)).collect();
                    (Arc::clone(chain.head), label, Rendered::push(texts, hops))
                });
                self.last = Some((head, label, front));
                (label, front)
            }
        };
        let app = chain
            .tail
            .and_then(|t| t.app.as_ref())
            .map(|hop| self.app(files, hop));
        Key { label, front, app }
    }

    /// The signature of an app hop, rendered once.
    fn app(&mut self, files: &SourceMap, hop: &Arc<Hop>) -> usize {
        let texts = &mut self.texts;
        self.apps
            .entry(Arc::as_ptr(hop))
            .or_insert_with(|| {
                let text = hop.signature(files);
                (Arc::clone(hop), Rendered::push(texts, text))
            })
            .1
    }

    /// The order of two chains' (label, signature), as if each were rendered whole.
    fn cmp(&self, a: &Key, b: &Key) -> std::cmp::Ordering {
        let text = |i: usize| self.texts[i].as_str();
        let app = |k: &Key| k.app.map_or("", text);
        // The chains of a group share their head, most of them: equal indices, equal texts.
        let label = if a.label == b.label {
            std::cmp::Ordering::Equal
        } else {
            text(a.label).cmp(text(b.label))
        };
        label.then_with(|| {
            let (fa, fb) = (text(a.front), text(b.front));
            if a.front == b.front || fa == fb {
                app(a).cmp(app(b))
            } else {
                fa.bytes()
                    .chain(app(a).bytes())
                    .cmp(fb.bytes().chain(app(b).bytes()))
            }
        })
    }
}

/// Every chain kubegap can see in the input, in a deterministic order.
pub fn build(cx: &Stage<'_>) -> Chains {
    let mut runs = Vec::new();
    let file_routes = files::file_routes(cx);
    // Services that front an ingress controller: file routes to them continue through the
    // controller's Ingresses.
    let controller_services: Vec<usize> = cx
        .controllers
        .controllers
        .iter()
        .filter_map(|c| cx.k8s.workload(c.obj))
        .flat_map(|w| cx.k8s.services_of(w))
        .map(|s| s.obj)
        .collect();
    let tails = Tails::default();
    ingress::chains(cx, &file_routes, &controller_services, &tails, &mut runs);
    files::file_chains(cx, &file_routes, &controller_services, &tails, &mut runs);
    // Chains are ordered and deduplicated as they read: by file name and anchor, then by the
    // rendered route label and signature (the chains are the same when a reader cannot tell
    // them apart). Label and signature are rendered only where two chains share an anchor,
    // so the run does not hold a rendered key for every chain at once.
    let name = |r: &Run| cx.files.get(r.head.anchor.file).name.as_str();
    runs.sort_by(|a, b| {
        let (x, y) = (a.head.anchor, b.head.anchor);
        if x.file == y.file {
            x.start.cmp(&y.start)
        } else {
            (name(a), x.start).cmp(&(name(b), y.start))
        }
    });
    let mut rendered = Rendered::default();
    // The tails of a run in the order of their app hops' signatures, without repeats: one list
    // per list of tails, shared by the runs that share it.
    let mut ordered: std::collections::HashMap<*const Arc<Tail>, Ordered> =
        std::collections::HashMap::new();
    let at = |r: &Run| (name(r), r.head.anchor.start);
    // One route to one Service at an anchor (most): its chains share the label and the front,
    // so they order by their app hops alone, whatever the head. In place: a second vector of
    // the runs is needed only where several routes share an anchor.
    let mut several = false;
    let mut start = 0;
    while let Some(run) = runs.get(start) {
        let len = 1 + runs[start + 1..]
            .iter()
            .take_while(|r| at(r) == at(run))
            .count();
        if len > 1 {
            several = true;
            start += len;
            continue;
        }
        let run = &mut runs[start];
        start += 1;
        let Some(tails) = run.tails.as_mut().filter(|t| t.len() > 1) else {
            continue;
        };
        let entry = ordered.entry(tails.as_ptr()).or_insert_with(|| {
            let sorted = order_tails(cx.files, &mut rendered, tails);
            let apps = sorted
                .iter()
                .all(|t| t.app.as_ref().is_none_or(|h| h.layer == Layer::App));
            let declare = sorted
                .iter()
                .any(|t| t.ping_interval.is_some() || t.session_lifetime.is_some());
            (Arc::clone(tails), sorted, apps, declare)
        });
        *tails = Arc::clone(&entry.1);
        // The route's or the Service's declarations hide the workloads'.
        let hidden = run
            .head
            .declared
            .as_ref()
            .is_some_and(|d| d.ping_interval.is_some() && d.session_lifetime.is_some());
        run.plain = entry.2 && (!entry.3 || hidden);
    }
    if !several {
        runs.shrink_to_fit();
        return Chains::new(runs);
    }
    let mut out: Vec<Run> = Vec::with_capacity(runs.len());
    let mut runs = runs.into_iter().peekable();
    while let Some(first) = runs.next() {
        let first_at = at(&first);
        let mut group = vec![first];
        while let Some(next) = runs.next_if(|r| at(r) == first_at) {
            group.push(next);
        }
        if group.len() == 1 {
            // Ordered above.
            out.extend(group);
            continue;
        }
        // Several routes at one anchor (server lines of one upstream, a controller's Ingresses
        // behind one proxy line): their chains are ordered one by one, each kept as a run of
        // its own.
        let chains: Vec<Chain<'_>> = group.iter().flat_map(Run::chains).collect();
        let Ok(len) = u32::try_from(chains.len()) else {
            // More than u32 can count (not in memory): kept as is.
            out.extend(group);
            continue;
        };
        let keys: Vec<Key> = chains.iter().map(|c| rendered.key(cx.files, *c)).collect();
        let mut order: Vec<u32> = (0..len).collect();
        order.sort_by(|a, b| rendered.cmp(&keys[*a as usize], &keys[*b as usize]));
        // Several `server` lines or upstream servers reaching the same Service give the same
        // chain: the first of equal ones is kept.
        for (k, i) in order.iter().enumerate() {
            let c = chains[*i as usize];
            if k > 0 {
                let p = order[k - 1] as usize;
                if chains[p].anchor() == c.anchor()
                    && rendered.cmp(&keys[p], &keys[*i as usize]).is_eq()
                {
                    continue;
                }
            }
            out.push(Run {
                head: Arc::clone(c.head),
                tails: c.tail.map(|t| Arc::from([Arc::clone(t)])),
                plain: false,
            });
        }
    }
    out.shrink_to_fit();
    Chains::new(out)
}

/// A list of tails (kept, so that its address stays its own), the same in order
/// ([`order_tails`]), whether every hop of it is an app hop and whether any declares a value.
type Ordered = (Arc<[Arc<Tail>]>, Arc<[Arc<Tail>]>, bool, bool);

/// A list of tails in the order of their app hops' signatures (no app hop first), the first of
/// those with equal signatures kept: the order and the dedup of [`build`] for the chains of
/// one head, whose labels and fronts are the same.
fn order_tails(
    files: &SourceMap,
    rendered: &mut Rendered,
    tails: &[Arc<Tail>],
) -> Arc<[Arc<Tail>]> {
    let keys: Vec<Option<usize>> = tails
        .iter()
        .map(|t| t.app.as_ref().map(|hop| rendered.app(files, hop)))
        .collect();
    let text = |k: Option<usize>| k.map_or("", |i| rendered.texts[i].as_str());
    let mut order: Vec<usize> = (0..tails.len()).collect();
    order.sort_by(|a, b| text(keys[*a]).cmp(text(keys[*b])));
    order.dedup_by(|b, a| text(keys[*a]) == text(keys[*b]));
    order.iter().map(|i| Arc::clone(&tails[*i])).collect()
}

#[cfg(test)]
mod tests;

/// The indices of a chain's hops that are not pass-through Service hops, from the outside in.
pub fn layered<'a>(chain: Chain<'a>) -> impl Iterator<Item = usize> + 'a {
    chain
        .hops()
        .iter()
        .enumerate()
        .filter(|(_, h)| h.layer != Layer::Service)
        .map(|(i, _)| i)
}

/// Consecutive hop pairs `(outer, inner)` as indices, skipping pass-through Service hops. An
/// iterator, not a vector: chain rules ask for the pairs of every chain (N² of them for N routes
/// to N apps under one label).
pub fn pairs<'a>(chain: Chain<'a>) -> impl Iterator<Item = (usize, usize)> + 'a {
    let mut outer = None;
    layered(chain).filter_map(move |inner| outer.replace(inner).map(|outer| (outer, inner)))
}

/// The causes a chain rule has reported, by the addresses of the shared hops
/// ([`Chain::hops`]) and values and the span reported at. The chains of N routes to N workloads
/// named apart under one label are N² chains of 2N hops: the same hops (or the same hop and
/// declared value) at the same place give the same finding again, which the engine drops as
/// the same cause (keeping the first chain's). A rule asks before it renders a message, so it
/// renders one per cause, not one per chain.
#[derive(Default)]
pub struct Reported {
    pairs: std::collections::HashSet<(*const Hop, *const Hop, Span, bool)>,
    declared: std::collections::HashSet<(*const Hop, Span, Range, *const Source, bool)>,
}

impl Reported {
    /// Whether `chain`'s hops `outer` and `inner` are reported at `at` for the first time.
    /// `also` is whatever else of the chain the rule's message reads (whether the route is
    /// long-lived), `false` when it reads nothing else.
    pub fn first(
        &mut self,
        chain: Chain<'_>,
        outer: usize,
        inner: usize,
        at: Span,
        also: bool,
    ) -> bool {
        self.pairs.insert((
            Arc::as_ptr(chain.hop(outer)),
            Arc::as_ptr(chain.hop(inner)),
            at,
            also,
        ))
    }

    /// Whether `chain`'s hop `hop` is reported at `at` against the declared value `declared`
    /// (its duration and where it is written) for the first time. `also` tells the rule's
    /// checks apart (a ping interval, a session lifetime).
    pub fn first_declared(
        &mut self,
        chain: Chain<'_>,
        hop: usize,
        at: Span,
        declared: &Value,
        also: bool,
    ) -> bool {
        self.declared.insert((
            Arc::as_ptr(chain.hop(hop)),
            at,
            declared.range,
            Arc::as_ptr(&declared.source),
            also,
        ))
    }
}

/// One finding per cause for a chain rule whose finding is labelled at a place that differs
/// from chain to chain (the load balancer in front of each route): the chains of N routes to
/// N workloads named apart under one label pair N outer hops with N app hops, N² findings
/// that the engine reduces to one per (rule, span, message), keeping the one whose label
/// sorts first. A rule offers each pair with its class (a key for everything its message
/// reads) and label, and reports the kept pairs, in chain order, once all are offered: the
/// same findings the engine would keep, rendered once per cause.
pub struct Causes<K> {
    classes: std::collections::HashMap<K, Vec<Cause>>,
}

/// A pair of hops of a chain a rule reports on ([`Causes`]).
#[derive(Clone, Copy, Debug)]
pub struct Cause {
    /// The chain, an index into the chains.
    pub chain: usize,
    /// The outer hop.
    pub outer: usize,
    /// The inner hop.
    pub inner: usize,
    /// Where its finding's label is.
    label: Option<Span>,
}

impl<K: std::hash::Hash + Eq> Default for Causes<K> {
    fn default() -> Self {
        Causes {
            classes: std::collections::HashMap::new(),
        }
    }
}

impl<K: std::hash::Hash + Eq> Causes<K> {
    /// Offers the pair `(outer, inner)` of chain `chain`, whose finding is labelled at `label`.
    /// `same` tells whether an earlier pair of the same key has the same message (what the key
    /// does not hold, compared). Of a cause's pairs, the one whose label sorts first in the
    /// engine's order (no label first, then file name and position) is kept, the earliest of
    /// equal ones.
    pub fn offer(
        &mut self,
        files: &SourceMap,
        key: K,
        (chain, outer, inner): (usize, usize, usize),
        label: Option<Span>,
        same: impl Fn(&Cause) -> bool,
    ) {
        let new = Cause {
            chain,
            outer,
            inner,
            label,
        };
        let order = |s| label_order(files, s);
        let class = self.classes.entry(key).or_default();
        match class.iter_mut().find(|c| same(c)) {
            Some(kept) if order(label) < order(kept.label) => *kept = new,
            Some(_) => {}
            None => class.push(new),
        }
    }

    /// The kept pairs in chain order: the order the rule would have reported them in.
    pub fn in_order(self) -> Vec<Cause> {
        let mut kept: Vec<Cause> = self.classes.into_values().flatten().collect();
        kept.sort_by_key(|c| (c.chain, c.outer, c.inner));
        kept
    }
}

/// Where a finding's label sorts in the engine's order: no label first, then by file name and
/// position ([`Causes`], [`workload_pairs`]).
fn label_order(files: &SourceMap, label: Option<Span>) -> Option<(&str, u32, u32)> {
    label.map(|s| (files.get(s.file).name.as_str(), s.start, s.end))
}

/// Which runs' chains a [`Causes`] rule has to offer the pairs with their workloads' hops of
/// (the hops after [`RunOf::shared`]; a run's own pairs are the same in each of its chains, and
/// its first offers them). Not those of a run whose head the rule reads nothing from for such
/// a pair (`class` gives `None`: no such pair makes a cause). Not those of a run that ends at
/// the same list of workloads (the runs to the Services of one selector) as another whose head
/// reads the same to the rule: the two give the same causes for each workload, each labelled
/// at its own run's place, and the engine keeps the one whose label sorts first, the earliest
/// of equal ones, so only that run offers them. `class` is what the rule reads from a run's
/// head for such a pair and the label of its findings; `same` compares what the class key does
/// not hold. N routes to N workloads named apart under one label offered N² pairs for 2N
/// findings.
pub fn workload_pairs<'a, K: std::hash::Hash + Eq>(
    files: &SourceMap,
    chains: &'a Chains,
    class: impl Fn(RunOf<'a>) -> Option<(K, Option<Span>)>,
    same: impl Fn(RunOf<'a>, RunOf<'a>) -> bool,
) -> Vec<bool> {
    let order = |s| label_order(files, s);
    let mut read = vec![true; chains.runs.len()];
    type Kept<'a> = (usize, RunOf<'a>, Option<Span>);
    let mut classes: std::collections::HashMap<(*const Arc<Tail>, K), Vec<Kept<'a>>> =
        std::collections::HashMap::new();
    // Whether every workload's hop of a list has a span: a finding at a hop without one would
    // point at each run's own anchor, a cause of its own.
    let mut spanned: std::collections::HashMap<*const Arc<Tail>, bool> =
        std::collections::HashMap::new();
    for (r, run) in chains.runs().enumerate() {
        let Some(tails) = run.run.tails.as_ref() else {
            continue;
        };
        let Some((key, label)) = class(run) else {
            read[r] = false;
            continue;
        };
        if tails.len() < 2 {
            continue;
        }
        let all_spanned = *spanned.entry(tails.as_ptr()).or_insert_with(|| {
            tails
                .iter()
                .all(|t| t.app.as_ref().is_none_or(|h| h.span.is_some()))
        });
        if !all_spanned {
            continue;
        }
        let class = classes.entry((tails.as_ptr(), key)).or_default();
        match class.iter_mut().find(|(_, kept, _)| same(*kept, run)) {
            Some(kept) if order(label) < order(kept.2) => {
                read[kept.0] = false;
                *kept = (r, run, label);
            }
            Some(_) => read[r] = false,
            None => class.push((r, run, label)),
        }
    }
    read
}

/// A run's upstream: its last hop before the workloads' (the Service hop skipped), the outer
/// hop of every pair with a workload's hop.
pub fn upstream(run: RunOf<'_>) -> Option<&Arc<Hop>> {
    let head = run.head();
    layered(head)
        .take_while(|i| *i < run.shared())
        .last()
        .map(|i| head.hop(i))
}

/// The span a chain finding points at for a value: the value's own span, else the hop's, else
/// the route's anchor.
pub fn point(chain: Chain<'_>, hop: usize, value: Option<&Value>) -> Span {
    value
        .and_then(Value::span)
        .or(chain.hop(hop).span)
        .unwrap_or(chain.anchor())
}
