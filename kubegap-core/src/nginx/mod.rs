//! nginx configs: a parser with spans, includes, and effective settings (issue #4).
//!
//! - [`load_all`] parses every nginx input, follows `include`s (adding the included files to the
//!   [`SourceMap`](crate::source::SourceMap), so findings point into them) and returns one [`NginxConfig`] per main file.
//! - A [`NginxConfig`] is an arena of [`Directive`]s in which each `include` is followed by the
//!   directives of the files it includes, spliced into the including block: walking the tree is
//!   walking the configuration nginx sees.
//! - [`NginxConfig::effective`] and the typed helpers ([`NginxConfig::proxy_read_timeout`], …)
//!   follow nginx's inheritance (http → server → location → nested location / `if`) and fall back
//!   to nginx's built-in defaults, returning the value together with its [`crate::value::provenance::Source`].
//! - [`NginxConfig::upstreams`], [`NginxConfig::servers`] and [`NginxConfig::proxy_passes`] are the
//!   typed views rules (and, later, links to Kubernetes Services) use.
//!
//! Decisions worth knowing:
//! - **Inputs included by another input**: when a file given on the command line is also included
//!   by another nginx input, it is linted only as part of the including configuration (it gets no
//!   [`NginxConfig`] of its own), so its findings are not reported twice. Syntax errors are
//!   reported once per file whatever the number of configurations that include it; include errors
//!   (missing file, cycle) only for the configurations that are reported.
//! - **Include paths** (see `load.rs`): relative to the main file's directory, as nginx does;
//!   absolute paths only under `Settings::nginx_prefix` (never the linting machine's `/etc`);
//!   a fragment (no `http`/`events`/`stream` at the top) also looks in three parent directories,
//!   and what it cannot find is recorded in [`NginxConfig::unresolved_includes`], not reported.
//! - **Parse errors** follow `nginx -t` for syntax (quotes, braces, `;`), argument counts of the
//!   common directives, and directive names one edit away from a known one (`proxy_passs`).
//!   Other unknown directives are accepted: third-party modules add hundreds.
//! - **Unknown nginx version**: defaults that changed in 1.29.7 (`proxy_http_version`) are taken
//!   from the older version, the worst plausible case, and the value's source says so.

mod directives;
mod load;
mod longlived;
mod parse;
mod values;

#[cfg(test)]
mod tests;

pub use directives::is_known;
pub use load::{load_all, load_all_canonical, Canonical, Loaded};
pub use longlived::{LongLived, LONG_LIVED_MARK};
pub use parse::{Arg, Comment};
pub use values::{parse_size, parse_time, HTTP11_DEFAULT_SINCE};

use crate::source::{FileId, Span};

/// Index of a [`Directive`] in its [`NginxConfig`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DirectiveId(pub u32);

/// One directive of the effective configuration.
#[derive(Clone, Debug)]
pub struct Directive {
    /// The directive name (`proxy_pass`), unquoted.
    pub name: String,
    /// Span of the name.
    pub name_span: Span,
    /// The arguments, unquoted and unescaped, each with its span.
    pub args: Vec<Arg>,
    /// From the name to the `;` (or to the `{` of a block).
    pub span: Span,
    /// The enclosing block directive (`None` in the main context).
    pub parent: Option<DirectiveId>,
    /// Children for a block (`None` for a simple directive). For a Lua block, empty.
    pub children: Option<Vec<DirectiveId>>,
    /// For a block: the span of its closing `}` when there is one.
    pub close: Option<Span>,
    /// For `*_by_lua_block`: the opaque body.
    pub raw_body: Option<Span>,
    /// The `include` directive this one was spliced in by (the nearest one), if any.
    pub included_by: Option<DirectiveId>,
    /// For an `include`: the files it included, in order.
    pub included_files: Vec<FileId>,
}

impl Directive {
    /// The value of argument `i`, if present.
    pub fn arg(&self, i: usize) -> Option<&str> {
        self.args.get(i).map(|a| a.value.as_str())
    }

    /// Whether this directive opens a block.
    pub fn is_block(&self) -> bool {
        self.children.is_some()
    }

    /// The span from the name to the closing `}` (or the `;`).
    pub fn full_span(&self) -> Span {
        match self.close {
            Some(close) if close.file == self.span.file => self.span.to(close),
            _ => self.span,
        }
    }
}

/// A parsed nginx configuration: a main file and everything it includes.
#[derive(Debug)]
pub struct NginxConfig {
    /// The main file.
    pub file: FileId,
    /// Every file of the configuration, the main file first, then included files in the order
    /// they were first included.
    pub files: Vec<FileId>,
    /// Every directive (the arena).
    pub directives: Vec<Directive>,
    /// Directives of the main context, in order (includes spliced in).
    pub roots: Vec<DirectiveId>,
    /// Comments of every file of the configuration.
    pub comments: Vec<Comment>,
    /// `include` patterns that were not read because they are absolute and no
    /// `Settings::nginx_prefix` maps them to a local directory (the files live on the server).
    pub unresolved_includes: Vec<DirectiveId>,
}

/// An `upstream` block.
#[derive(Clone, Debug)]
pub struct Upstream {
    /// The `upstream` directive.
    pub directive: DirectiveId,
    /// Its name.
    pub name: String,
    /// Span of the name.
    pub name_span: Span,
    /// Its `server` entries in order.
    pub servers: Vec<UpstreamServer>,
    /// The `keepalive` directive, if any.
    pub keepalive: Option<DirectiveId>,
    /// The balancing directive (`least_conn`, `ip_hash`, `hash`, `random`, …), if any.
    pub balancer: Option<DirectiveId>,
}

/// A `server` line of an upstream.
#[derive(Clone, Debug)]
pub struct UpstreamServer {
    /// The `server` directive.
    pub directive: DirectiveId,
    /// The address as written (`10.0.0.1:8080`, `app.ns.svc.cluster.local:80`, `unix:/x`).
    pub address: String,
    /// Span of the address.
    pub address_span: Span,
    /// Host part of the address.
    pub host: String,
    /// Port, if written.
    pub port: Option<u16>,
}

/// An http `server` block.
#[derive(Clone, Debug)]
pub struct Server {
    /// The `server` directive.
    pub directive: DirectiveId,
    /// `server_name` values with spans.
    pub names: Vec<Arg>,
    /// `listen` directives.
    pub listens: Vec<DirectiveId>,
}

/// A `proxy_pass` (or `grpc_pass`) and what it points to.
#[derive(Clone, Debug)]
pub struct ProxyPass {
    /// The directive.
    pub directive: DirectiveId,
    /// The URL as written.
    pub url: String,
    /// Span of the URL.
    pub url_span: Span,
    /// `http`, `https`, `grpc`, … (`None` without a scheme: a stream `proxy_pass`, a variable).
    pub scheme: Option<String>,
    /// Host part (an upstream name, a host name or an address); empty for variables.
    pub host: String,
    /// Port, if written.
    pub port: Option<u16>,
    /// Index into [`NginxConfig::upstreams`] when the host names an upstream block.
    pub upstream: Option<usize>,
    /// The innermost enclosing `location`.
    pub location: Option<DirectiveId>,
    /// The enclosing `server`.
    pub server: Option<DirectiveId>,
    /// Whether it is in the `stream` (TCP/UDP) context.
    pub stream: bool,
}

impl NginxConfig {
    /// The directive with this id.
    ///
    /// # Panics
    /// Only on an id from another config, which is a bug.
    pub fn get(&self, id: DirectiveId) -> &Directive {
        &self.directives[id.0 as usize]
    }

    /// Children of a block (empty for a simple directive); `None` means the main context.
    pub fn children(&self, block: Option<DirectiveId>) -> &[DirectiveId] {
        match block {
            None => &self.roots,
            Some(id) => self.get(id).children.as_deref().unwrap_or(&[]),
        }
    }

    /// Every directive with its id, in document order of the effective configuration.
    pub fn iter(&self) -> impl Iterator<Item = (DirectiveId, &Directive)> {
        self.walk().into_iter().map(|id| (id, self.get(id)))
    }

    /// Ids in pre-order (document order of the spliced configuration). Iterative.
    pub fn walk(&self) -> Vec<DirectiveId> {
        let mut out = Vec::with_capacity(self.directives.len());
        let mut stack: Vec<DirectiveId> = self.roots.iter().rev().copied().collect();
        while let Some(id) = stack.pop() {
            out.push(id);
            stack.extend(self.children(Some(id)).iter().rev().copied());
        }
        out
    }

    /// Ancestors of a directive, innermost first.
    pub fn ancestors(&self, id: DirectiveId) -> impl Iterator<Item = DirectiveId> + '_ {
        std::iter::successors(self.get(id).parent, move |p| self.get(*p).parent)
    }

    /// The innermost enclosing block named `name` (the directive itself included).
    pub fn enclosing(&self, id: DirectiveId, name: &str) -> Option<DirectiveId> {
        std::iter::once(id)
            .chain(self.ancestors(id))
            .find(|a| self.get(*a).name == name)
    }

    /// Direct children of `block` named `name`.
    pub fn find_children<'a>(
        &'a self,
        block: Option<DirectiveId>,
        name: &'a str,
    ) -> impl Iterator<Item = DirectiveId> + 'a {
        self.children(block)
            .iter()
            .copied()
            .filter(move |c| self.get(*c).name == name)
    }

    /// Whether the configuration is a complete nginx.conf (it has a main context with `http`,
    /// `events` or `stream`), as opposed to a fragment such as a `conf.d/*.conf` server file.
    pub fn is_complete(&self) -> bool {
        self.roots
            .iter()
            .any(|r| matches!(self.get(*r).name.as_str(), "http" | "events" | "stream"))
    }

    /// `location /ws` (the name and arguments as written), for messages.
    pub fn describe(&self, id: DirectiveId) -> String {
        let d = self.get(id);
        let mut out = d.name.clone();
        for a in &d.args {
            out.push(' ');
            out.push_str(&a.value);
        }
        out
    }

    /// Comments that say the configuration is generated (by an ingress controller, a template,
    /// `confd`…), or `# kubegap: generated`.
    pub fn generated_marker(&self) -> Option<&Comment> {
        const MARKS: &[&str] = &[
            "generated",
            "do not edit",
            "don't edit",
            "do not modify",
            "managed by",
            "kubegap: generated",
        ];
        self.comments.iter().find(|c| {
            let t = c.text.to_ascii_lowercase();
            MARKS.iter().any(|m| t.contains(m))
        })
    }

    /// Directives of the main context named `name` (e.g. `worker_shutdown_timeout`).
    pub fn main_directive(&self, name: &str) -> Option<DirectiveId> {
        self.find_children(None, name).next()
    }

    /// Every `upstream` block (http and stream), in order.
    pub fn upstreams(&self) -> Vec<Upstream> {
        const BALANCERS: &[&str] = &[
            "least_conn",
            "ip_hash",
            "hash",
            "random",
            "least_time",
            "sticky",
            "ntlm",
            "balancer_by_lua_block",
            "balancer_by_lua_file",
            "fair",
            "consistent_hash",
        ];
        self.iter()
            .filter(|(_, d)| d.name == "upstream" && d.is_block())
            .map(|(id, d)| {
                let (name, name_span) = d
                    .args
                    .first()
                    .map_or((String::new(), d.name_span), |a| (a.value.clone(), a.span));
                let mut servers = Vec::new();
                let mut keepalive = None;
                let mut balancer = None;
                for c in self.children(Some(id)) {
                    let cd = self.get(*c);
                    match cd.name.as_str() {
                        "server" => {
                            if let Some(a) = cd.args.first() {
                                let (host, port) = split_host_port(&a.value);
                                servers.push(UpstreamServer {
                                    directive: *c,
                                    address: a.value.clone(),
                                    address_span: a.span,
                                    host,
                                    port,
                                });
                            }
                        }
                        "keepalive" => keepalive = Some(*c),
                        n if BALANCERS.contains(&n) => balancer = balancer.or(Some(*c)),
                        _ => {}
                    }
                }
                Upstream {
                    directive: id,
                    name,
                    name_span,
                    servers,
                    keepalive,
                    balancer,
                }
            })
            .collect()
    }

    /// Every http `server` block.
    pub fn servers(&self) -> Vec<Server> {
        self.iter()
            .filter(|(id, d)| {
                d.name == "server"
                    && d.is_block()
                    && d.parent.is_none_or(|p| self.get(p).name != "upstream")
                    && self.enclosing(*id, "stream").is_none()
            })
            .map(|(id, _)| Server {
                directive: id,
                names: self
                    .find_children(Some(id), "server_name")
                    .flat_map(|s| self.get(s).args.iter().cloned())
                    .collect(),
                listens: self.find_children(Some(id), "listen").collect(),
            })
            .collect()
    }

    /// Every `location` block.
    pub fn locations(&self) -> Vec<DirectiveId> {
        self.iter()
            .filter(|(_, d)| d.name == "location" && d.is_block())
            .map(|(id, _)| id)
            .collect()
    }

    /// Every `proxy_pass` / `grpc_pass` with its parsed target.
    pub fn proxy_passes(&self) -> Vec<ProxyPass> {
        let upstreams = self.upstreams();
        self.iter()
            .filter(|(_, d)| matches!(d.name.as_str(), "proxy_pass" | "grpc_pass"))
            .filter_map(|(id, d)| {
                let a = d.args.first()?;
                let (scheme, rest) = match a.value.split_once("://") {
                    Some((s, r)) => (Some(s.to_ascii_lowercase()), r),
                    None if d.name == "grpc_pass" => (Some("grpc".to_string()), a.value.as_str()),
                    // stream `proxy_pass backend;` / `proxy_pass 10.0.0.1:53;`: no scheme.
                    None => (None, a.value.as_str()),
                };
                let authority = rest.split('/').next().unwrap_or("");
                let (host, port) = if authority.contains('$') {
                    (String::new(), None)
                } else {
                    split_host_port(authority)
                };
                // `proxy_pass http://name` names an upstream when no port is written.
                let upstream = if port.is_none() && !host.is_empty() {
                    upstreams.iter().position(|u| u.name == host)
                } else {
                    upstreams
                        .iter()
                        .position(|u| !host.is_empty() && u.name == authority)
                };
                Some(ProxyPass {
                    directive: id,
                    url: a.value.clone(),
                    url_span: a.span,
                    scheme,
                    host,
                    port,
                    upstream,
                    location: self.enclosing(id, "location"),
                    server: self.enclosing(id, "server"),
                    stream: self.enclosing(id, "stream").is_some(),
                })
            })
            .collect()
    }

    /// Comments inside a block's braces, plus those on the line just above the block and at the
    /// end of its first line (where people write `# kubegap: long-lived`).
    pub fn comments_of(&self, block: DirectiveId, files: &crate::SourceMap) -> Vec<&Comment> {
        let d = self.get(block);
        let file = files.get(d.span.file);
        let full = d.full_span();
        let line = file.line_index(d.span.start);
        // From the start of the line above the block to the end of the block (or of its first
        // line, whichever is later). Comments are sorted by (file, offset).
        let from = file.line_start(line.saturating_sub(1)).unwrap_or(0);
        let to = file.line_start(line + 1).unwrap_or(u32::MAX).max(full.end);
        let key = |c: &Comment| (c.span.file, c.span.start);
        let lo = self
            .comments
            .partition_point(|c| key(c) < (d.span.file, from));
        let hi = self
            .comments
            .partition_point(|c| key(c) < (d.span.file, to));
        self.comments[lo..hi.max(lo)].iter().collect()
    }

    /// The addresses a `proxy_pass` sends to: the servers of its upstream block, or the host
    /// and port of its URL. For linking to Kubernetes Services (`name.namespace.svc…:port`).
    pub fn targets(&self, pass: &ProxyPass, upstreams: &[Upstream]) -> Vec<Target> {
        match pass.upstream.and_then(|i| upstreams.get(i)) {
            Some(upstream) => upstream
                .servers
                .iter()
                .map(|s| Target {
                    host: s.host.clone(),
                    port: s.port,
                    span: s.address_span,
                })
                .collect(),
            None if !pass.host.is_empty() => vec![Target {
                host: pass.host.clone(),
                port: pass.port,
                span: pass.url_span,
            }],
            None => Vec::new(),
        }
    }
}

/// One address a `proxy_pass` can reach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Host name or address.
    pub host: String,
    /// Port, if written (nginx then uses 80 or 443 from the scheme).
    pub port: Option<u16>,
    /// Where the address is written (an upstream `server` line or the `proxy_pass` URL).
    pub span: Span,
}

/// Splits `host:port` (also `[v6]:port`, `unix:/path`).
pub fn split_host_port(address: &str) -> (String, Option<u16>) {
    if address.starts_with("unix:") {
        return (address.to_string(), None);
    }
    if let Some(rest) = address.strip_prefix('[') {
        if let Some((h, tail)) = rest.split_once(']') {
            let port = tail.strip_prefix(':').and_then(|p| p.parse().ok());
            return (h.to_string(), port);
        }
    }
    match address.rsplit_once(':') {
        Some((h, p)) if !h.contains(':') => match p.parse() {
            Ok(port) => (h.to_string(), Some(port)),
            Err(_) => (address.to_string(), None),
        },
        _ => (address.to_string(), None),
    }
}
