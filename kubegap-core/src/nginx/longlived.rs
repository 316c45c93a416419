//! Which proxied locations carry long-lived connections (WebSockets), and why kubegap thinks so.
//!
//! Hints, any of which is enough:
//! - the location's path has a WebSocket-like segment (`/ws`, `/socket.io/`, `/websocket`,
//!   `/cable`, `/hub`, `/sockjs`);
//! - the `proxy_pass` target (an upstream or a host) is named for WebSockets (`ws-backend`,
//!   `chat_websocket`);
//! - a `# kubegap: long-lived` comment sits in the location (or on the line above it), or in the
//!   upstream block it proxies to;
//! - the location itself forwards the `Upgrade` header (`proxy_set_header Upgrade …` written in
//!   the location; one inherited from the server or http level applies to every location and
//!   says nothing about this one). When every proxied location (three or more) writes it, as
//!   ingress-nginx's template does, the header is boilerplate and not a hint either.

use crate::source::SourceMap;

use super::{DirectiveId, NginxConfig};

/// Path or name words that mean WebSockets.
const WS_WORDS: &[&str] = &[
    "ws",
    "wss",
    "websocket",
    "websockets",
    "socket.io",
    "socketio",
    "cable",
    "hub",
    "hubs",
    "sockjs",
    "signalr",
];

/// The comment that declares a location or upstream long-lived.
pub const LONG_LIVED_MARK: &str = "kubegap: long-lived";

/// A proxied location that carries long-lived connections.
#[derive(Clone, Debug)]
pub struct LongLived {
    /// The `location` (or, outside any location, the block holding the `proxy_pass`).
    pub location: DirectiveId,
    /// The `proxy_pass`.
    pub proxy_pass: DirectiveId,
    /// Why kubegap thinks so, for messages (`its path `/ws` …`).
    pub reason: String,
}

fn words(text: &str, keep_dot: bool) -> impl Iterator<Item = String> + '_ {
    text.split(move |c: char| !(c.is_ascii_alphanumeric() || (keep_dot && c == '.')))
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
}

fn ws_word(text: &str, keep_dot: bool) -> bool {
    words(text, keep_dot).any(|w| WS_WORDS.contains(&w.as_str()))
}

impl NginxConfig {
    /// The location (or block) a directive belongs to, for reporting.
    fn anchor(&self, id: DirectiveId) -> DirectiveId {
        self.enclosing(id, "location")
            .or(self.get(id).parent)
            .unwrap_or(id)
    }

    fn marked(&self, block: DirectiveId, files: &SourceMap) -> bool {
        self.comments_of(block, files)
            .iter()
            .any(|c| c.text.contains(LONG_LIVED_MARK))
    }

    /// Proxied locations that carry long-lived connections, one per location, in order.
    pub fn long_lived(&self, files: &SourceMap) -> Vec<LongLived> {
        let upstreams = self.upstreams();
        let passes: Vec<_> = self
            .proxy_passes()
            .into_iter()
            // stream proxies pass bytes through: no handshake, no read timeout to configure here.
            .filter(|p| self.get(p.directive).name == "proxy_pass" && !p.stream)
            .collect();
        // Whether the location forwards `Upgrade` itself (not inherited from server or http).
        let own_upgrade = |pass: DirectiveId, location: DirectiveId| {
            self.proxy_header(Some(pass), "Upgrade").is_some_and(|h| {
                self.get(location).name != "location"
                    || self.enclosing(h, "location") == Some(location)
            })
        };
        // A template that writes the `Upgrade` header into every proxied location (ingress-nginx
        // does) says nothing about any of them: the hint only counts when some locations lack it.
        let mut anchors: Vec<(DirectiveId, DirectiveId)> = passes
            .iter()
            .map(|p| (self.anchor(p.directive), p.directive))
            .collect();
        anchors.dedup_by_key(|(location, _)| *location);
        let with_upgrade = anchors
            .iter()
            .filter(|(location, pass)| own_upgrade(*pass, *location))
            .count();
        let blanket_upgrade = anchors.len() >= 3 && with_upgrade == anchors.len();
        let mut out: Vec<LongLived> = Vec::new();
        for pass in passes {
            let location = self.anchor(pass.directive);
            if out.iter().any(|l| l.location == location) {
                continue;
            }
            let loc = self.get(location);
            let path = if loc.name == "location" {
                loc.args.last().map(|a| a.value.clone())
            } else {
                None
            };
            let upstream = pass.upstream.and_then(|i| upstreams.get(i));
            let reason = if let Some(path) = path.as_deref().filter(|p| ws_word(p, true)) {
                Some(format!("its path `{path}` looks like a WebSocket endpoint"))
            } else if self.marked(location, files) {
                Some(format!("it is marked `# {LONG_LIVED_MARK}`"))
            } else if upstream.is_some_and(|u| self.marked(u.directive, files)) {
                Some(format!(
                    "its upstream `{}` is marked `# {LONG_LIVED_MARK}`",
                    pass.host
                ))
            } else if !pass.host.is_empty() && ws_word(&pass.host, false) {
                Some(format!(
                    "it proxies to `{}`, named for WebSockets",
                    pass.host
                ))
            } else if !blanket_upgrade && own_upgrade(pass.directive, location) {
                Some("it forwards the `Upgrade` header".to_string())
            } else {
                None
            };
            if let Some(reason) = reason {
                out.push(LongLived {
                    location,
                    proxy_pass: pass.directive,
                    reason,
                });
            }
        }
        out
    }
}
