//! Parser and effective-value tests.

use super::*;
use crate::config::Version;
use crate::source::{FileKind, SourceFile};
use crate::value::duration::Millis;

fn parsed(text: &str) -> (HaproxyConfig, Vec<ParseError>) {
    parse(FileId(0), text)
}

fn clean(text: &str) -> HaproxyConfig {
    let (config, errors) = parsed(text);
    assert!(errors.is_empty(), "unexpected errors: {errors:?}");
    config
}

#[test]
fn sections_and_names() {
    let config = clean(
        "global\n  daemon\ndefaults base\n  mode http\ndefaults child from base\n  timeout client 5s\nfrontend fe\n  bind :80\nbackend be from base\n  server s1 10.0.0.1:80\nresolvers dns\n  nameserver a 1.1.1.1:53\nlog-forward lf\n  bind :514\n",
    );
    let kinds: Vec<SectionKind> = config.sections.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [
            SectionKind::Global,
            SectionKind::Defaults,
            SectionKind::Defaults,
            SectionKind::Frontend,
            SectionKind::Backend,
            SectionKind::Resolvers,
            SectionKind::Other
        ]
    );
    assert_eq!(config.sections[2].name(), "child");
    assert_eq!(config.sections[2].from_word().unwrap().text, "base");
    assert_eq!(config.sections[2].inherits, Some(1));
    // A proxy without `from` uses the last defaults section, named or not.
    assert_eq!(config.sections[3].inherits, Some(2));
    assert_eq!(config.sections[4].inherits, Some(1));
}

#[test]
fn errors_do_not_stop_parsing() {
    let (config, errors) = parsed(
        "daemon\nglobal\n  log \"unterminated\ndefaults\n  timeout client 30x\n  timeout server 1min\n  timeout connect 5s\nbackend b from nowhere\n  retries 2\n",
    );
    let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(errors.len(), 5, "{messages:?}");
    assert!(messages[0].contains("outside any section"));
    assert!(messages[1].contains("unterminated double quote"));
    assert!(messages[2].contains("invalid time `30x`"));
    assert!(messages[3].contains("invalid time `1min`"));
    assert!(messages[3].contains("HAProxy 2.6 ignores them"));
    assert!(messages[4].contains("nowhere"));
    assert_eq!(config.sections.len(), 3);
    assert_eq!(config.sections[2].lines.len(), 1);
    // HAProxy 2.6 still uses `1min` as one minute, and so do effective values.
    let view = config.view(None);
    let server = view.timeout(1, "server").value.and_then(|d| d.ms());
    assert_eq!(server, Some(Millis(60_000)));
    assert_eq!(view.timeout(1, "client").value, None);
    assert_eq!(
        view.timeout(1, "connect").value.and_then(|d| d.ms()),
        Some(Millis(5000))
    );
}

#[test]
fn conditional_blocks() {
    let text = "global\n.if version_atleast(2.6)\n  close-spread-time 10s\n.elif 1\n  grace 1s\n.else\n  daemon\n.endif\n";
    let config = clean(text);
    assert_eq!(config.branches.len(), 3);
    let lines = &config.sections[0].lines;
    let v28 = Version::parse("2.8").unwrap();
    let v24 = Version::parse("2.4").unwrap();
    let live = |v: Option<&Version>| -> Vec<String> {
        let view = config.view(v);
        lines
            .iter()
            .filter(|l| view.is_live(l))
            .map(|l| l.keyword().to_string())
            .collect()
    };
    assert_eq!(live(Some(&v28)), ["close-spread-time"]);
    assert_eq!(live(Some(&v24)), ["grace"]);
    // Unknown version: the first branch may or may not be taken; `.else` is known dead.
    assert_eq!(live(None), ["close-spread-time", "grace"]);
    let (_, errors) = parsed("global\n.if 1\n.endif\n.endif\n.else\n.if 0\n");
    assert_eq!(errors.len(), 3, "{errors:?}");
}

#[test]
fn effective_values_and_origins() {
    let text = "defaults base\n  timeout client 50s\n  retries 2\n  option redispatch\ndefaults\n  timeout client 30s\nbackend a from base\n  no option redispatch\nbackend b\n  timeout server 1h\nfrontend c\n";
    let config = clean(text);
    let view = config.view(None);
    let a = 2;
    let b = 3;
    let client_a = view.timeout(a, "client");
    assert_eq!(
        client_a.value.as_ref().and_then(Duration::ms),
        Some(Millis(50_000))
    );
    assert_eq!(client_a.section, Some(0));
    let client_b = view.timeout(b, "client");
    assert_eq!(
        client_b.value.as_ref().and_then(Duration::ms),
        Some(Millis(30_000))
    );
    assert!(view.timeout(b, "tunnel").origin().is_default());
    assert_eq!(view.retries(a).value, Some(2));
    assert_eq!(view.retries(b).value, Some(3));
    assert!(view.retries(b).is_builtin());
    assert!(!view.option(a, "redispatch").value);
    assert!(!view.option(a, "redispatch").is_builtin());
    assert_eq!(view.mode(b).value, "tcp");
    assert_eq!(view.balance(b).value, "roundrobin");
    let mut files = crate::source::SourceMap::default();
    files.add(SourceFile::new(
        "t",
        None,
        text.to_string(),
        FileKind::Haproxy,
    ));
    assert_eq!(client_a.origin().cite(&files), "`timeout client` at t:2");
    assert_eq!(
        view.timeout(b, "tunnel").origin().cite(&files),
        "default of HAProxy"
    );
}

#[test]
fn durations_keep_text_and_span() {
    let text = "defaults\n  timeout tunnel \"1h\"\n  timeout client ${T}\n";
    let config = clean(text);
    let view = config.view(None);
    let tunnel = view.timeout(0, "tunnel").value.unwrap();
    assert_eq!(tunnel.ms(), Some(Millis(3_600_000)));
    assert_eq!(tunnel.text, "1h");
    assert_eq!(
        &text[tunnel.span.start as usize..tunnel.span.end as usize],
        "\"1h\""
    );
    assert_eq!(tunnel.unit, Some(TimeUnit::Hours));
    let client = view.timeout(0, "client").value.unwrap();
    assert_eq!(client.value, DurationValue::Symbolic);
}

#[test]
fn servers_and_addresses() {
    let text = "backend b\n  default-server check\n  server s1 10.0.0.1:8080 weight 10\n  server s2 [::1]:80 no-check\n  server s3 unix@/run/x.sock\n  server s4 ${HOST}:${PORT}\n  server-template web 1-5 app.svc.cluster.local:8080 check\n";
    let config = clean(text);
    let view = config.view(None);
    let servers = view.servers(0);
    assert_eq!(servers.len(), 5);
    let a = servers[0].address().unwrap();
    assert_eq!(a.host, "10.0.0.1");
    assert_eq!(a.port.as_deref(), Some("8080"));
    let port = a.port_span.unwrap();
    assert_eq!(&text[port.start as usize..port.end as usize], "8080");
    assert_eq!(servers[1].address().unwrap().host, "::1");
    assert_eq!(servers[2].address().unwrap().port, None);
    assert!(servers[3].address().unwrap().symbolic);
    assert_eq!(servers[4].count(), 5);
    assert_eq!(servers[4].address().unwrap().host, "app.svc.cluster.local");
    let defaults = view.default_servers(0);
    assert!(view.server_checked(&defaults, &servers[0]));
    assert!(!view.server_checked(&defaults, &servers[1]));
}

/// An IPv6 address without brackets is a host without a port; one colon is `host:port`.
#[test]
fn bare_ipv6_addresses_have_no_port() {
    let text = "backend b\n  server a fe80::1\n  server b ::1\n  server c ipv6@2001:db8::7\n  server d db:5432\n  server e 1:2\n";
    let config = clean(text);
    let view = config.view(None);
    let servers = view.servers(0);
    let split = |i: usize| {
        let a: Address = servers[i].address().unwrap();
        (a.host, a.port)
    };
    assert_eq!(split(0), ("fe80::1".to_string(), None));
    assert_eq!(split(1), ("::1".to_string(), None));
    assert_eq!(split(2), ("2001:db8::7".to_string(), None));
    assert_eq!(split(3), ("db".to_string(), Some("5432".to_string())));
    assert_eq!(split(4), ("1".to_string(), Some("2".to_string())));
}

#[test]
fn websocket_routes() {
    let text = "frontend fe\n  acl is_ws hdr(Upgrade) -i WebSocket\n  use_backend ws if is_ws\n  use_backend inline if { req.hdr(upgrade) -i websocket }\n  use_backend not_ws if !is_ws\n  default_backend web\nbackend ws\nbackend inline\nbackend not_ws\nbackend web\n";
    let config = clean(text);
    let view = config.view(None);
    let ws = view.websocket_proxies();
    let names: Vec<&str> = ws.keys().map(|i| config.sections[*i].name()).collect();
    assert_eq!(names, ["ws", "inline"]);
}

#[test]
fn crlf_bom_and_comments() {
    let config = clean("\u{feff}global # c\r\n  daemon\r\n# x\r\n\r\n");
    assert_eq!(config.sections[0].lines[0].keyword(), "daemon");
}

#[test]
fn sections_inside_dead_branches_are_not_proxies() {
    let config = clean(
        ".if version_before(2.0)\nbackend legacy\n  server s 10.0.0.1:80\n.endif\nbackend current\n  server s 10.0.0.2:80\n",
    );
    let v26 = Version::parse("2.6").unwrap();
    let names = |v: Option<&Version>| -> Vec<String> {
        config
            .view(v)
            .backends()
            .map(|(_, s)| s.name().to_string())
            .collect()
    };
    assert_eq!(names(Some(&v26)), ["current"]);
    assert_eq!(names(None), ["legacy", "current"]);
}

#[test]
fn deep_and_long_conditionals_stay_linear() {
    // 20k nested `.if` blocks and a 20k-branch `.elif` chain, each with a line inside: the
    // parser and View must neither recurse nor go quadratic.
    let mut text = String::from("global\n");
    for _ in 0..20_000 {
        text.push_str(".if 1\n  daemon\n");
    }
    for _ in 0..20_000 {
        text.push_str(".endif\n");
    }
    text.push_str(".if 0\n");
    for _ in 0..20_000 {
        text.push_str("  maxconn 1\n.elif 0\n");
    }
    text.push_str(".else\n  nbthread 2\n.endif\n");
    let config = clean(&text);
    let view = config.view(None);
    let live: Vec<&str> = config.sections[0]
        .lines
        .iter()
        .filter(|l| view.is_live(l))
        .map(Line::keyword)
        .collect();
    assert_eq!(live.len(), 20_001);
    assert_eq!(live.last(), Some(&"nbthread"));
}

#[test]
fn too_many_words_is_an_error() {
    let values = |n: usize| (0..n).map(|i| format!(" /p{i}")).collect::<String>();
    // 64 words (keyword, name, fetch and 61 values) is HAProxy's limit.
    let ok = format!("frontend f\n  acl a path_beg{}\n", values(61));
    assert!(parsed(&ok).1.is_empty());
    let (_, errors) = parsed(&format!("frontend f\n  acl a path_beg{}\n", values(62)));
    assert_eq!(errors.len(), 1);
    assert!(errors[0].message.contains("too many words"));
}

#[test]
fn missing_time_values_are_errors() {
    let (_, errors) = parsed("global\n  hard-stop-after\ndefaults\n  timeout client\n  timeout\n");
    let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "`hard-stop-after` needs a time value",
            "`timeout client` needs a time value",
            "`timeout` needs a name and a time value"
        ]
    );
}

#[test]
fn lookups_follow_the_defaults_chain_as_chain_lists_it() {
    let text = "defaults a\n    timeout client 5s\n    mode http\n\ndefaults b from a\n    timeout server 7s\n\nbackend be from b\n    server s 10.0.0.1:80\n\nbackend other\n    timeout connect 3s\n";
    let mut config = clean(text);
    let be = config
        .sections
        .iter()
        .position(|s| s.name() == "be")
        .unwrap();
    let other = config
        .sections
        .iter()
        .position(|s| s.name() == "other")
        .unwrap();
    let found = |config: &HaproxyConfig, section: usize, keyword: &str| {
        let view = config.view(None);
        let by_chain = view.chain(section).into_iter().find_map(|index| {
            let line = view
                .lines(index)
                .filter(|l| l.keyword() == keyword)
                .last()?;
            Some((index, line.span))
        });
        let by_find = view
            .find(section, |l| l.keyword() == keyword)
            .map(|(index, line)| (index, line.span));
        assert_eq!(by_find, by_chain, "{keyword} from section {section}");
        by_find.map(|(index, _)| index)
    };
    // The parsed chain: be, b, a.
    assert_eq!(found(&config, be, "timeout"), Some(1));
    assert_eq!(found(&config, be, "mode"), Some(0));
    assert_eq!(found(&config, be, "balance"), None);
    // Links no parse makes (forward, and a loop): the same answers as `chain` gives.
    config.sections[0].inherits = Some(other);
    assert_eq!(found(&config, be, "mode"), Some(0));
    assert_eq!(found(&config, be, "timeout"), Some(1));
    assert_eq!(config.view(None).chain(be).len(), 4);
    assert_eq!(found(&config, be, "balance"), None);
    config.sections[other].inherits = Some(be);
    assert_eq!(found(&config, be, "balance"), None);
    // Nothing left in be, b and a: the looked-up line is the forward link's.
    for section in [be, 1, 0] {
        config.sections[section].lines.clear();
    }
    assert_eq!(found(&config, be, "timeout"), Some(other));
}

/// `Line::is(i, want)` is `Line::text(i) == want` for every word of lines with plain, quoted,
/// escaped, variable, long (16 KiB) and far (past 64 KiB) words, and past the last word: for
/// the word's own text, a prefix, a longer text, another text of the same length, and "".
#[test]
fn a_word_is_compared_as_its_text() {
    let far = " ".repeat(70_000);
    let long = "l".repeat(16_400);
    let text = format!(
        "backend b\n  server s \"q r\" 'x y' a\\ b ${{V}} é€ {long}{far} z \"\"\n  timeout connect 5s\n"
    );
    let config = clean(&text);
    let lines: Vec<&Line> = config.sections.iter().flat_map(|s| &s.lines).collect();
    assert_eq!(lines.len(), 2);
    let mut compared = 0;
    for line in lines {
        for i in 0..=line.len() {
            let own = line.text(i).to_string();
            let mut other = own.clone().into_bytes();
            if let Some(b) = other.last_mut() {
                *b = if *b == b'z' { b'y' } else { b'z' };
            }
            let other = String::from_utf8_lossy(&other).into_owned();
            let prefix: String = own.chars().take(own.chars().count() / 2).collect();
            for want in [own.as_str(), &format!("{own}x"), &other, &prefix, ""] {
                assert_eq!(
                    line.is(i, want),
                    line.text(i) == want,
                    "word {i} {:?} against {want:?}",
                    line.text(i)
                );
                compared += 1;
            }
            assert!(line.is(i, &own));
        }
    }
    assert!(compared > 50);
}
