//! `haproxy-reload-not-seamless`: reloads without listener handover or server-state file.

use crate::haproxy::{logic, SectionKind};
use crate::rule::prelude::*;

declare_rule! {
    /// Reloads that are not seamless: neither `master-worker` nor `expose-fd listeners`, or
    /// many checked servers and no server-state file.
    ///
    /// ## What it does
    /// Reports on the `global` section when (a) the file shows the classic
    /// `haproxy -D -p PIDFILE -sf …` way of reloading (`daemon` and a `pidfile`) with neither
    /// `master-worker` nor a `stats socket … expose-fd listeners`, so a reload cannot pass the
    /// listening sockets to the new process; or (b) ten or more servers are health-checked and there is no
    /// `server-state-file` / `load-server-state-from-file`, so after a reload every server
    /// starts again from its initial state.
    ///
    /// kubegap only sees the file: HAProxy started with `-W` or `-Ws` (as the official
    /// container image and Debian's systemd unit do) runs in master-worker mode without the
    /// keyword, so a file without `daemon` and `pidfile` is not evidence of unseamless reloads
    /// and (a) stays quiet.
    ///
    /// ## Why is this bad?
    /// Without socket handover, the new process binds its own sockets and the old one closes
    /// its own: connections arriving in between can be refused or reset, on every reload
    /// (HAProxy's "Truly Seamless Reloads" article; openshift/origin#9330 shows the 503s and
    /// drops of a router that reloads often). Without a server-state file, the new process
    /// forgets which servers were down, in maintenance or drained, and sends traffic to them
    /// until the checks catch up.
    ///
    /// `master-worker` and `expose-fd listeners` exist since HAProxy 1.8;
    /// `server-state-file` and `load-server-state-from-file` since 1.6.
    ///
    /// ## Example
    /// ```haproxy,invalid
    /// global
    ///     daemon
    ///     pidfile /var/run/haproxy.pid
    ///
    /// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 30s
    ///     timeout server 30s
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend app
    ///
    /// backend app
    ///     server app1 10.0.0.11:8080
    /// ```
    ///
    /// Use instead:
    /// ```haproxy,valid
    /// global
    ///     master-worker
    ///     stats socket /var/run/haproxy.sock mode 600 level admin expose-fd listeners
    ///     server-state-file /var/lib/haproxy/server-state
    ///
    /// defaults
    ///     mode http
    ///     load-server-state-from-file global
    ///     timeout connect 5s
    ///     timeout client 30s
    ///     timeout server 30s
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend app
    ///
    /// backend app
    ///     server app1 10.0.0.11:8080
    /// ```
    pub static HAPROXY_RELOAD_NOT_SEAMLESS = {
        id: "haproxy-reload-not-seamless",
        severity: Info,
        domain: Haproxy,
        summary: "reloads without listener handover (`master-worker`, `expose-fd listeners`) or server-state file",
        evidence: &[
            "https://www.haproxy.com/blog/truly-seamless-reloads-with-haproxy-no-more-hacks/",
            "https://github.com/openshift/origin/issues/9330",
            "https://docs.haproxy.org/2.8/configuration.html#3.1-server-state-file",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for view in cx.haproxy_views {
        let config = view.config;
        if view.proxies().next().is_none() {
            continue;
        }
        let globals: Vec<usize> = config
            .sections_of(SectionKind::Global)
            .map(|(i, _)| i)
            .collect();
        let global_lines = || globals.iter().flat_map(|i| view.lines(*i));
        let master_worker = global_lines().any(|l| l.keyword() == "master-worker");
        let expose_fd = global_lines().any(|l| {
            l.starts_with(&["stats", "socket"])
                && l.texts()
                    .zip(l.texts().skip(1))
                    .any(|(a, b)| a == "expose-fd" && b == "listeners")
        });
        // Evidence of the classic `haproxy -D -p PIDFILE -sf $(cat PIDFILE)` reload: `daemon`
        // with a `pidfile`. Without it, kubegap cannot see how HAProxy is started (`-W`/`-Ws`,
        // as the packaged systemd unit does, makes reloads seamless) and says nothing.
        let daemon_pidfile = global_lines().any(|l| l.keyword() == "daemon")
            && global_lines().any(|l| l.keyword() == "pidfile");
        let span = config.global_span();
        if !master_worker && !expose_fd && daemon_pidfile {
            sink.report(
                span,
                "neither `master-worker` nor `expose-fd listeners` on a `stats socket`: unless HAProxy is started with `-W`/`-Ws`, on reload the new process cannot take over the listening sockets, so connections arriving during the switch can be refused",
            )
            .help("run HAProxy in master-worker mode (`master-worker` in `global` or `-W`), or add `expose-fd listeners` to the admin `stats socket` and start the new process with `-x` (HAProxy 1.8+)");
        }
        let mut checked = 0usize;
        for (index, _) in view.backends() {
            let defaults = view.default_servers(index);
            for server in view.servers(index) {
                if view.server_checked(&defaults, &server) {
                    checked = checked
                        .saturating_add(usize::try_from(server.count()).unwrap_or(usize::MAX));
                }
            }
        }
        let state_file = view.global("server-state-file").is_some();
        let loads_state = config.sections.iter().any(|s| {
            s.lines
                .iter()
                .any(|l| l.keyword() == "load-server-state-from-file" && view.is_live(l))
        });
        if checked >= logic::MANY_CHECKED_SERVERS && !(state_file && loads_state) {
            let missing = match (state_file, loads_state) {
                (false, false) => "no `server-state-file` and no `load-server-state-from-file`",
                (true, false) => "a `server-state-file` but no `load-server-state-from-file`",
                _ => "`load-server-state-from-file` but no global `server-state-file`",
            };
            sink.report(
                span,
                format!(
                    "{checked} health-checked servers and {missing}: after every reload each server starts again from its initial state, so servers known to be down get traffic until checks catch up"
                ),
            )
            .help("dump the state before reloading (`show servers state` on the stats socket) to `server-state-file`, and add `load-server-state-from-file global` to the defaults section (HAProxy 1.6+)");
        }
    }
}
