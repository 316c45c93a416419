//! Effective settings: what HAProxy will actually use for a proxy, and where it came from.

use std::collections::BTreeMap;

use super::duration::{parse_time, Duration, DurationError};
use super::lexer::Word;
use super::logic;
use super::{HaproxyConfig, Line, Section, SectionKind};
use crate::config::Version;
use crate::source::{SourceMap, Span};
use crate::value::duration::Millis;
use crate::value::provenance::Source;

/// An effective value and the line that set it (`None`: HAProxy's built-in default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Effective<'a, T> {
    /// The value.
    pub value: T,
    /// The line that set it, if any.
    pub line: Option<&'a Line>,
    /// The section that line is in (the proxy itself or a defaults section).
    pub section: Option<usize>,
}

impl<T> Effective<'_, T> {
    /// Where the value comes from: the directive (`` `timeout client` at haproxy.cfg:2 ``), else
    /// HAProxy's default.
    pub fn origin(&self) -> Source {
        match self.line {
            Some(line) => {
                let n = if matches!(line.keyword(), "timeout" | "option" | "no") {
                    2
                } else {
                    1
                };
                let name: Vec<&str> = line.texts().take(n).collect();
                Source::Directive {
                    name: name.join(" "),
                    span: line.span,
                }
            }
            None => Source::default_of("HAProxy", None),
        }
    }

    /// `` `retries 3` at haproxy.cfg:5 `` or `` `retries 3` (default of HAProxy) ``: the value
    /// as written (`written`) with its [`Source::cite`].
    pub fn cite_as(&self, files: &SourceMap, written: &str) -> String {
        match self.origin() {
            Source::Directive { span, .. } => Source::Directive {
                name: written.to_string(),
                span,
            }
            .cite(files),
            default => format!("`{written}` ({})", default.cite(files)),
        }
    }

    /// Whether this is HAProxy's built-in default.
    pub fn is_builtin(&self) -> bool {
        self.line.is_none()
    }
}

/// A `host[:port]` address of a `server` line, with spans for linking to Kubernetes Services.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Address {
    /// The host part: an IP, a DNS name, a path for `unix@`, or a variable.
    pub host: String,
    /// Where the host is written (the whole word when quoted or escaped).
    pub host_span: Span,
    /// The port part, if any (`8080`, `+1`, `${PORT}`).
    pub port: Option<String>,
    /// Where the port is written.
    pub port_span: Option<Span>,
    /// An address family prefix such as `ipv4@` or `unix@`, without the `@`.
    pub prefix: Option<String>,
    /// Whether the address contains an environment variable.
    pub symbolic: bool,
}

impl Address {
    /// Splits an address word.
    pub fn parse(word: Word<'_>) -> Address {
        let text = word.text;
        let (prefix, rest_at) = match text.find('@') {
            Some(at) if text[..at].bytes().all(|b| b.is_ascii_alphanumeric()) => {
                (Some(text[..at].to_string()), at + 1)
            }
            _ => (None, 0),
        };
        let rest = &text[rest_at..];
        let no_port = matches!(
            prefix.as_deref(),
            Some("unix" | "abns" | "abnsz" | "fd" | "sockpair" | "uxst" | "uxdg")
        );
        let (host_range, port_range) = if no_port {
            ((rest_at, text.len()), None)
        } else if rest.starts_with('[') {
            match rest.find(']') {
                Some(close) => {
                    let host = (rest_at + 1, rest_at + close);
                    let after = rest_at + close + 1;
                    let port = text[after..]
                        .strip_prefix(':')
                        .map(|_| (after + 1, text.len()));
                    (host, port)
                }
                None => ((rest_at, text.len()), None),
            }
        } else if rest.bytes().filter(|&b| b == b':').nth(1).is_some()
            && rest.parse::<std::net::Ipv6Addr>().is_ok()
        {
            // (An IPv6 address has two colons at least: `host:port` is not tried as one.)
            ((rest_at, text.len()), None)
        } else {
            match rest.rfind(':') {
                Some(colon) => (
                    (rest_at, rest_at + colon),
                    Some((rest_at + colon + 1, text.len())),
                ),
                None => ((rest_at, text.len()), None),
            }
        };
        Address {
            host: text[host_range.0..host_range.1].to_string(),
            host_span: word.sub_span(host_range.0, host_range.1),
            port: port_range.map(|(s, e)| text[s..e].to_string()),
            port_span: port_range.map(|(s, e)| word.sub_span(s, e)),
            prefix,
            symbolic: word.symbolic,
        }
    }
}

/// A `server` or `server-template` line of a backend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Server<'a> {
    /// The line.
    pub line: &'a Line,
    /// The server name (the prefix for `server-template`).
    pub name: Option<Word<'a>>,
    /// For `server-template`: how many servers it declares (`None` when not a plain number
    /// or range).
    pub template_count: Option<u64>,
}

impl Server<'_> {
    /// The address, if given, split when asked: most callers count servers or read their
    /// parameters, and splitting every server's address on each [`View::servers`] call was a
    /// fifth of a run over a 300,000-line haproxy.cfg (an allocation for the host and the
    /// port each, an IP parse).
    pub fn address(&self) -> Option<Address> {
        let at = if self.line.is(0, "server-template") {
            3
        } else {
            2
        };
        self.line.word(at).map(Address::parse)
    }

    /// Whether the line itself carries the word `w` among its parameters.
    pub fn has_param(&self, w: &str) -> bool {
        self.param_indexes().any(|i| self.line.is(i, w))
    }

    /// The indexes of the words after the name and the address (after the count, too, for
    /// `server-template`).
    fn param_indexes(&self) -> std::ops::Range<usize> {
        let first_param = if self.line.is(0, "server-template") {
            4
        } else {
            3
        };
        first_param.min(self.line.len())..self.line.len()
    }

    /// How many servers these lines declare, in total (saturating).
    pub fn total(servers: &[Server<'_>]) -> u64 {
        servers
            .iter()
            .fold(0u64, |sum, s| sum.saturating_add(s.count()))
    }

    /// How many servers the line declares (1, or the template count).
    pub fn count(&self) -> u64 {
        if self.line.is(0, "server-template") {
            self.template_count.unwrap_or(1)
        } else {
            1
        }
    }
}

/// A `use_backend` or `default_backend` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route<'a> {
    /// The line.
    pub line: &'a Line,
    /// The backend name word.
    pub backend: Word<'a>,
    /// The condition words after `if`/`unless` (empty for unconditional routes).
    pub condition: Vec<Word<'a>>,
    /// Whether the condition is an `unless`.
    pub unless: bool,
}

/// Why a proxy carries long-lived connections.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LongLived<'a> {
    /// An explicit timeout: `timeout tunnel` (WebSocket, CONNECT and TCP tunnels idle this
    /// long), or `timeout client`/`timeout server` in `mode tcp` (`tcp` is then true).
    Timeout {
        /// The `timeout` line (in the proxy or a defaults section).
        line: &'a Line,
        /// Its limit in milliseconds, `None` for no limit.
        limit: Option<Millis>,
        /// Whether it is a client or server timeout of a `mode tcp` proxy.
        tcp: bool,
    },
    /// WebSocket traffic is routed here (the route or ACL span).
    WebSocket(Span),
}

impl LongLived<'_> {
    /// The span to label: the timeout line or the WebSocket route.
    pub fn span(&self) -> Span {
        match self {
            LongLived::Timeout { line, .. } => line.span,
            LongLived::WebSocket(span) => *span,
        }
    }

    /// A description for messages: `` `timeout tunnel 1h` at haproxy.cfg:9 `` or
    /// `WebSocket traffic (routed at haproxy.cfg:12)`.
    pub fn describe(&self, files: &SourceMap) -> String {
        match self {
            LongLived::Timeout { line, tcp, .. } => {
                let mut text = cite(files, line);
                if *tcp {
                    text.push_str(" in `mode tcp`");
                }
                text
            }
            LongLived::WebSocket(span) => {
                let file = files.get(span.file);
                format!(
                    "WebSocket traffic (routed at {}:{})",
                    file.base_name(),
                    file.line_col(span.start).line
                )
            }
        }
    }
}

/// `` `timeout tunnel 1h` at haproxy.cfg:9 ``: a line's words, cited like every
/// [`Source::Directive`].
pub fn cite(files: &SourceMap, line: &Line) -> String {
    Source::Directive {
        name: line.texts().collect::<Vec<_>>().join(" "),
        span: line.span,
    }
    .cite(files)
}

/// What `http-request set-timeout` rules do to a timeout ([`View::set_timeout`]).
#[derive(Clone, Debug)]
pub enum PerRequest<'a> {
    /// No rule changes it.
    Unchanged,
    /// The last rule run sets this constant for every request: the time, its line and the
    /// section of that line (the proxy or a defaults section).
    Fixed(Duration, &'a Line, usize),
    /// The last rule has a condition or an expression: some requests, or all, get a value
    /// the configuration alone does not tell.
    Varies(&'a Line),
}

/// Effective settings of one parsed configuration, for one HAProxy version.
#[derive(Clone, Debug)]
pub struct View<'a> {
    /// The configuration.
    pub config: &'a HaproxyConfig,
    /// The HAProxy version (`cluster.haproxy_version`), if known.
    pub version: Option<&'a Version>,
    /// For each conditional branch: whether lines in it may apply (false only when the branch,
    /// or one enclosing it, is known not to be taken for this version).
    live: Vec<bool>,
    /// [`View::websocket_proxies`], found on first use: five rules and the chains ask for it.
    websocket: std::sync::OnceLock<BTreeMap<usize, Span>>,
}

/// Kleene "and" over unknown (`None`) truth values.
fn and3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

impl<'a> View<'a> {
    /// A view for a version (`None`: unknown; version-dependent `.if` blocks count as live).
    ///
    /// Branch liveness is computed once, in file order, in time linear in the number of
    /// branches however deep or long the `.if` blocks are.
    pub fn new(config: &'a HaproxyConfig, version: Option<&'a Version>) -> View<'a> {
        let n = config.branches.len();
        let mut own: Vec<Option<bool>> = Vec::with_capacity(n);
        // Whether no earlier branch of the same block was taken.
        let mut none_before: Vec<Option<bool>> = Vec::with_capacity(n);
        let mut live: Vec<bool> = Vec::with_capacity(n);
        for (i, branch) in config.branches.iter().enumerate() {
            let value = if branch.line.keyword() == ".else" {
                Some(true)
            } else {
                logic::eval_condition(&branch.expr, version)
            };
            // Links always point backwards; anything else is ignored rather than trusted.
            let before = match branch.previous.filter(|p| *p < i) {
                Some(p) => and3(none_before[p], own[p].map(|v| !v)),
                None => Some(true),
            };
            let taken = and3(value, before);
            let parent_live = branch.parent.filter(|p| *p < i).is_none_or(|p| live[p]);
            own.push(value);
            none_before.push(before);
            live.push(parent_live && taken != Some(false));
        }
        View {
            config,
            version,
            live,
            websocket: std::sync::OnceLock::new(),
        }
    }

    /// The section at `index`.
    pub fn section(&self, index: usize) -> &'a Section {
        &self.config.sections[index]
    }

    /// Whether a line is live: not inside a conditional branch known to be skipped.
    pub fn is_live(&self, line: &Line) -> bool {
        line.cond()
            .and_then(|b| self.live.get(b))
            .copied()
            .unwrap_or(true)
    }

    /// Proxies (`frontend`, `backend`, `listen`) whose header is live, with their indexes.
    pub fn proxies(&self) -> impl Iterator<Item = (usize, &'a Section)> + '_ {
        self.config
            .proxies()
            .filter(move |(_, s)| self.is_live(&s.header))
    }

    /// Backends and listens (sections with servers) whose header is live: the entry point for
    /// linking `server` addresses to Kubernetes Services.
    pub fn backends(&self) -> impl Iterator<Item = (usize, &'a Section)> + '_ {
        self.proxies().filter(|(_, s)| s.kind.has_backend())
    }

    /// Live lines of a section.
    pub fn lines(&self, section: usize) -> impl Iterator<Item = &'a Line> + '_ {
        self.config.sections[section]
            .lines
            .iter()
            .filter(move |l| self.is_live(l))
    }

    /// The section followed by the defaults sections it inherits from, in lookup order.
    pub fn chain(&self, section: usize) -> Vec<usize> {
        let mut chain = vec![section];
        let mut current = self.config.sections.get(section).and_then(|s| s.inherits);
        while let Some(next) = current {
            if chain.contains(&next) || chain.len() > self.config.sections.len() {
                break;
            }
            chain.push(next);
            current = self.config.sections.get(next).and_then(|s| s.inherits);
        }
        chain
    }

    /// The last live line matching `pred` in the section, else in its defaults chain.
    pub fn find(&self, section: usize, pred: impl Fn(&Line) -> bool) -> Option<(usize, &'a Line)> {
        let last_in = |index: usize| {
            self.config
                .sections
                .get(index)?
                .lines
                .iter()
                .rev()
                .find(|l| pred(l) && self.is_live(l))
                .map(|line| (index, line))
        };
        // The chain walked without making it ([`View::chain`] allocates, and the rules look
        // settings up hundreds of thousands of times on a large file): a parsed section
        // inherits from one declared before it, so the walk cannot loop; any other link goes
        // through `chain` for the rest.
        let mut index = section;
        let mut walked = 0;
        loop {
            if let Some(found) = last_in(index) {
                return Some(found);
            }
            walked += 1;
            match self.config.sections.get(index).and_then(|s| s.inherits) {
                Some(next) if next < index => index = next,
                Some(_) => break,
                None => return None,
            }
        }
        self.chain(section)
            .into_iter()
            .skip(walked)
            .find_map(last_in)
    }

    fn effective<T>(&self, found: Option<(usize, &'a Line)>, value: T) -> Effective<'a, T> {
        Effective {
            value,
            line: found.map(|(_, l)| l),
            section: found.map(|(s, _)| s),
        }
    }

    /// The effective `timeout <name>` of a section: `None` when unset (HAProxy's built-in
    /// default, which is "no timeout" or a fallback to another timeout).
    pub fn timeout(&self, section: usize, name: &str) -> Effective<'a, Option<Duration>> {
        let found = self.find(section, |l| l.starts_with(&["timeout", name]));
        let value = found.and_then(|(_, l)| time_of(l, 2, false));
        self.effective(found, value)
    }

    /// How `http-request set-timeout <name>` rules change a timeout per request: the last
    /// such rule along the defaults chain (a proxy's own rules run after its defaults' ones)
    /// in a `mode http` proxy; `tcp` proxies ignore `http-request` rules.
    pub fn set_timeout(&self, section: usize, name: &str) -> PerRequest<'a> {
        let Some((found_in, line)) = self.find(section, |l| {
            l.starts_with(&["http-request", "set-timeout", name])
        }) else {
            return PerRequest::Unchanged;
        };
        if self.mode(section).value != "http" {
            return PerRequest::Unchanged;
        }
        // `http-request set-timeout connect 3s`: four words, no `if`/`unless` condition.
        match time_of(line, 3, false) {
            Some(time) if line.len() == 4 => PerRequest::Fixed(time, line, found_in),
            _ => PerRequest::Varies(line),
        }
    }

    /// A global setting: the last live line with this keyword in any `global` section.
    pub fn global(&self, keyword: &str) -> Option<&'a Line> {
        self.config
            .sections
            .iter()
            .filter(|s| s.kind == SectionKind::Global)
            .flat_map(|s| s.lines.iter())
            .rev()
            .find(|l| l.is(0, keyword) && self.is_live(l))
    }

    /// A global time setting (`hard-stop-after`, `close-spread-time`) with its line.
    pub fn global_time(&self, keyword: &str) -> Option<(Duration, &'a Line)> {
        let line = self.global(keyword)?;
        let allow_infinite = keyword == "close-spread-time";
        time_of(line, 1, allow_infinite).map(|d| (d, line))
    }

    /// Whether `option <name>` is in effect (`no option <name>` disables it), and where.
    /// Built-in: disabled.
    pub fn option(&self, section: usize, name: &str) -> Effective<'a, bool> {
        let found = self.find(section, |l| {
            l.starts_with(&["option", name]) || l.starts_with(&["no", "option", name])
        });
        let value = found.is_some_and(|(_, l)| l.is(0, "option"));
        self.effective(found, value)
    }

    /// The effective `mode` (`tcp`, `http`, ...). Built-in: `tcp`.
    pub fn mode(&self, section: usize) -> Effective<'a, &'a str> {
        let found = self.find(section, |l| l.is(0, "mode") && l.len() > 1);
        let value = found.map_or(logic::DEFAULT_MODE, |(_, l)| l.text(1));
        self.effective(found, value)
    }

    /// The effective `http-reuse` policy (`never`, `safe`, `aggressive`, `always`): whether
    /// idle server connections are pooled. Built-in: `safe` (pooled).
    pub fn http_reuse(&self, section: usize) -> Effective<'a, &'a str> {
        let found = self.find(section, |l| l.is(0, "http-reuse") && l.len() > 1);
        let value = found.map_or("safe", |(_, l)| l.text(1));
        self.effective(found, value)
    }

    /// The effective `balance` algorithm (`roundrobin`, `random(2)`, ...). Built-in:
    /// `roundrobin`.
    pub fn balance(&self, section: usize) -> Effective<'a, &'a str> {
        let found = self.find(section, |l| l.is(0, "balance") && l.len() > 1);
        let value = found.map_or(logic::DEFAULT_BALANCE, |(_, l)| l.text(1));
        self.effective(found, value)
    }

    /// The effective `retries` (`None` when not a number). Built-in: 3.
    pub fn retries(&self, section: usize) -> Effective<'a, Option<u64>> {
        let found = self.find(section, |l| l.is(0, "retries"));
        let value = match found {
            Some((_, l)) => l.text(1).parse().ok(),
            None => Some(logic::DEFAULT_RETRIES),
        };
        self.effective(found, value)
    }

    /// The live `server` and `server-template` lines of a section.
    pub fn servers(&self, section: usize) -> Vec<Server<'a>> {
        self.lines(section)
            .filter_map(|line| match line.keyword() {
                "server" => Some(Server {
                    line,
                    name: line.word(1),
                    template_count: None,
                }),
                "server-template" => Some(Server {
                    line,
                    name: line.word(1),
                    template_count: template_count(line.text(2)),
                }),
                _ => None,
            })
            .collect()
    }

    /// The `default-server` lines that apply to a section's servers (its own and its
    /// defaults chain).
    pub fn default_servers(&self, section: usize) -> Vec<&'a Line> {
        self.chain(section)
            .into_iter()
            .flat_map(|s| self.lines(s).collect::<Vec<_>>())
            .filter(|l| l.is(0, "default-server"))
            .collect()
    }

    /// Whether a server has health checks (`check` on the line or on one of the section's
    /// `default-server` lines from [`View::default_servers`], and no `no-check`).
    pub fn server_checked(&self, defaults: &[&Line], server: &Server<'_>) -> bool {
        // One pass over the line's parameters for both words (four rules ask, per server).
        let mut check = false;
        for i in server.param_indexes() {
            if server.line.is(i, "no-check") {
                return false;
            }
            check = check || server.line.is(i, "check");
        }
        check
            || defaults
                .iter()
                .any(|l| (1..l.len()).any(|i| l.is(i, "check")))
    }

    /// A time-valued server keyword (`pool-purge-delay 10s`) from the server's line, else from
    /// one of the section's `default-server` lines ([`View::default_servers`]).
    pub fn server_time(
        &self,
        defaults: &[&'a Line],
        server: &Server<'a>,
        param: &str,
    ) -> Option<Duration> {
        std::iter::once(server.line)
            .chain(defaults.iter().copied())
            .find_map(|line| {
                let i = line.texts().position(|w| w == param)?;
                time_of(line, i + 1, false)
            })
    }

    /// Whether a server has `<param> <value>` on its line or on one of the section's
    /// `default-server` lines from [`View::default_servers`].
    pub fn server_param(
        &self,
        defaults: &[&Line],
        server: &Server<'_>,
        param: &str,
        value: &str,
    ) -> bool {
        let has = |line: &Line| (1..line.len()).any(|i| line.is(i - 1, param) && line.is(i, value));
        has(server.line) || defaults.iter().any(|l| has(l))
    }

    /// The `use_backend` and `default_backend` lines of a section.
    pub fn routes(&self, section: usize) -> Vec<Route<'a>> {
        self.lines(section)
            .filter(|l| matches!(l.keyword(), "use_backend" | "default_backend"))
            .filter_map(|line| {
                let backend = line.word(1)?;
                let cond_at = line.texts().position(|w| w == "if" || w == "unless");
                let (condition, unless) = match cond_at {
                    Some(i) => (line.words().skip(i + 1).collect(), line.text(i) == "unless"),
                    None => (Vec::new(), false),
                };
                Some(Route {
                    line,
                    backend,
                    condition,
                    unless,
                })
            })
            .collect()
    }

    /// Why a proxy carries long-lived connections, if it does: an explicit `timeout tunnel`
    /// (backends) or, in `mode tcp`, an explicit `timeout server` (backends) or
    /// `timeout client` (frontends) whose limit satisfies `long` (`None` = no limit), else a
    /// WebSocket route (`websocket`, from [`View::websocket_proxies`]).
    pub fn long_lived(
        &self,
        section: usize,
        websocket: &BTreeMap<usize, Span>,
        long: impl Fn(Option<Millis>) -> bool,
    ) -> Option<LongLived<'a>> {
        let kind = self.config.sections.get(section)?.kind;
        let explicit_long = |e: Effective<'a, Option<Duration>>, tcp: bool| {
            let line = e.line?;
            let limit = e.value.as_ref().and_then(Duration::limit)?;
            long(limit).then_some(LongLived::Timeout { line, limit, tcp })
        };
        if kind.has_backend() {
            if let Some(found) = explicit_long(self.timeout(section, "tunnel"), false) {
                return Some(found);
            }
        }
        if self.mode(section).value == "tcp" {
            if kind.has_backend() {
                if let Some(found) = explicit_long(self.timeout(section, "server"), true) {
                    return Some(found);
                }
            }
            if kind.has_frontend() {
                if let Some(found) = explicit_long(self.timeout(section, "client"), true) {
                    return Some(found);
                }
            }
        }
        websocket.get(&section).map(|s| LongLived::WebSocket(*s))
    }

    /// The backend or listen section with this name.
    pub fn backend_named(&self, name: &str) -> Option<usize> {
        self.config
            .sections
            .iter()
            .position(|s| s.kind.has_backend() && s.name() == name)
    }

    /// Every live backend or listen by name (the first one when a name repeats), for
    /// resolving many routes at once.
    pub fn backends_by_name(&self) -> BTreeMap<&'a str, usize> {
        let mut map = BTreeMap::new();
        for (index, section) in self.backends() {
            map.entry(section.name()).or_insert(index);
        }
        map
    }

    /// Proxies that carry WebSocket traffic, with the span that shows it: a `use_backend`
    /// routed by an ACL on the `Upgrade` header, or such an ACL in the proxy itself. Found
    /// once per view (each rule finding it again was a tenth of a run over a 300,000-line
    /// haproxy.cfg).
    pub fn websocket_proxies(&self) -> &BTreeMap<usize, Span> {
        self.websocket.get_or_init(|| self.find_websocket_proxies())
    }

    fn find_websocket_proxies(&self) -> BTreeMap<usize, Span> {
        let mut out = BTreeMap::new();
        let by_name = self.backends_by_name();
        for (index, section) in self.proxies() {
            let acls: Vec<(&str, &Line)> = self
                .lines(index)
                .filter(|l| l.is(0, "acl") && l.len() > 2)
                .filter(|l| {
                    let words: Vec<&str> = l.texts().skip(2).collect();
                    logic::is_websocket_acl(&words)
                })
                .map(|l| (l.text(1), l))
                .collect();
            for route in self.routes(index) {
                if route.unless || route.condition.is_empty() {
                    continue;
                }
                if condition_mentions_websocket(&route.condition, &acls) {
                    if let Some(backend) = by_name.get(route.backend.text) {
                        out.entry(*backend).or_insert(route.line.span);
                    }
                }
            }
            if section.kind.has_backend() {
                if let Some((_, line)) = acls.first() {
                    out.entry(index).or_insert(line.span);
                }
            }
        }
        out
    }
}

/// Whether a condition (`is_ws`, `{ hdr(upgrade) -i websocket }`, `host_a is_ws`) holds a
/// non-negated WebSocket ACL.
fn condition_mentions_websocket(condition: &[Word<'_>], acls: &[(&str, &Line)]) -> bool {
    let mut i = 0;
    while i < condition.len() {
        let word = condition[i].text;
        if word == "{" {
            let end = condition[i..]
                .iter()
                .position(|w| w.text == "}")
                .map_or(condition.len(), |e| i + e);
            let negated = i > 0 && condition[i - 1].text == "!";
            let inner: Vec<&str> = condition[i + 1..end].iter().map(|w| w.text).collect();
            if !negated && logic::is_websocket_acl(&inner) {
                return true;
            }
            i = end + 1;
            continue;
        }
        if !word.starts_with('!') && acls.iter().any(|(name, _)| *name == word) {
            return true;
        }
        i += 1;
    }
    false
}

/// The time value at word `index` of a line.
fn time_of(line: &Line, index: usize, allow_infinite: bool) -> Option<Duration> {
    let word = line.word(index)?;
    // A time with trailing characters (`1min`) is reported as a parse error, but HAProxy 2.6
    // still uses its valid part, and so do effective values.
    let (value, unit) = match parse_time(word.text, allow_infinite) {
        Ok(parsed) => parsed,
        Err(DurationError::Trailing { value, unit }) => (value, unit),
        Err(_) => return None,
    };
    Some(Duration {
        value,
        text: word.text.to_string(),
        span: word.span,
        unit,
    })
}

/// `5` → 5, `1-10` → 10.
fn template_count(text: &str) -> Option<u64> {
    match text.split_once('-') {
        Some((a, b)) => {
            let (a, b): (u64, u64) = (a.parse().ok()?, b.parse().ok()?);
            b.checked_sub(a).map(|d| d.saturating_add(1))
        }
        None => text.parse().ok(),
    }
}
