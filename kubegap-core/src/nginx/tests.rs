//! Unit tests of the nginx parser, includes and effective values.

use crate::value::duration::Millis;
use std::path::{Path, PathBuf};

use super::*;
use crate::config::{Settings, Version};
use crate::finding::ParseError;
use crate::source::{FileKind, SourceFile, SourceMap};

fn load_text(text: &str) -> (SourceMap, NginxConfig, Vec<ParseError>) {
    let mut files = SourceMap::default();
    let id = files.add(SourceFile::new(
        "nginx.conf",
        None,
        text.to_string(),
        FileKind::Nginx,
    ));
    let loaded = load_all(&[id], &mut files, &Settings::default());
    let mut configs = loaded.configs;
    let mut errors = loaded.parse_errors;
    errors.extend(loaded.include_errors);
    let config = configs.remove(0);
    (files, config, errors)
}

fn messages(errors: &[ParseError]) -> Vec<&str> {
    errors.iter().map(|e| e.message.as_str()).collect()
}

fn find(cfg: &NginxConfig, name: &str) -> DirectiveId {
    cfg.iter()
        .find(|(_, d)| d.name == name)
        .map(|(id, _)| id)
        .unwrap()
}

/// A scratch directory for include tests, removed and recreated, and removed again when the
/// test ends.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("kubegap-nginx-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

fn load_paths(
    paths: &[PathBuf],
    settings: &Settings,
) -> (SourceMap, Vec<NginxConfig>, Vec<ParseError>) {
    let mut files = SourceMap::default();
    let ids: Vec<_> = paths
        .iter()
        .map(|p| {
            files.add(SourceFile::new(
                p.display().to_string(),
                Some(p.clone()),
                std::fs::read_to_string(p).unwrap(),
                FileKind::Nginx,
            ))
        })
        .collect();
    // Syntax errors first, then include problems (`nginx-include-missing`).
    let loaded = load_all(&ids, &mut files, settings);
    let mut errors = loaded.parse_errors;
    errors.extend(loaded.include_errors);
    (files, loaded.configs, errors)
}

#[test]
fn times_and_sizes() {
    assert_eq!(parse_time("60"), Some(Millis::from_secs(60)));
    assert_eq!(parse_time("60s"), Some(Millis::from_secs(60)));
    assert_eq!(parse_time("500ms"), Some(Millis(500)));
    assert_eq!(parse_time("5m"), Some(Millis::from_secs(300)));
    assert_eq!(parse_time("1h30m"), Some(Millis::from_secs(5400)));
    assert_eq!(parse_time("2d"), Some(Millis::from_secs(172_800)));
    assert_eq!(parse_time("1w"), Some(Millis::from_secs(604_800)));
    assert_eq!(parse_time("1M"), Some(Millis::from_secs(30 * 86_400)));
    assert_eq!(parse_time("1y"), Some(Millis::from_secs(365 * 86_400)));
    assert_eq!(parse_time("1x"), None);
    assert_eq!(parse_time("s"), None);
    assert_eq!(parse_time(""), None);
    assert_eq!(parse_time("99999999999999999999999y"), None);
    assert_eq!(parse_size("512"), Some(512));
    assert_eq!(parse_size("8k"), Some(8192));
    assert_eq!(parse_size("1M"), Some(1 << 20));
    assert_eq!(parse_size("2g"), Some(2 << 30));
    assert_eq!(parse_size("k"), None);
    assert_eq!(parse_size("1.5m"), None);
}

#[test]
fn quoting_escapes_and_spans() {
    let text = r#"log_format main '$a "b" \' c' "x\"y" plain\ word ${var}x;"#;
    let (files, cfg, errors) = load_text(text);
    assert!(errors.is_empty(), "{errors:?}");
    let d = cfg.get(find(&cfg, "log_format"));
    let values: Vec<&str> = d.args.iter().map(|a| a.value.as_str()).collect();
    assert_eq!(
        values,
        ["main", "$a \"b\" ' c", "x\"y", "plain\\ word", "${var}x"]
    );
    assert!(d.args[1].quoted && !d.args[0].quoted);
    let file = files.get(d.span.file);
    assert_eq!(file.slice(d.args[2].span), r#""x\"y""#);
    assert_eq!(file.slice(d.name_span), "log_format");
    assert!(file.slice(d.span).ends_with(';'));
}

#[test]
fn comments_braces_in_quotes_and_if() {
    let text = "http { # c1\n  log_format x '{ \"a\": 1 }';\n  server {\n    location / {\n      if ($request_method = \"POST\") { return 405; }\n    }\n  }\n}\n";
    let (_, cfg, errors) = load_text(text);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(cfg.comments.len(), 1);
    assert_eq!(cfg.comments[0].text, "c1");
    let iff = cfg.get(find(&cfg, "if"));
    // A `)` right after a closing quote is the next word, as in nginx.
    let values: Vec<&str> = iff.args.iter().map(|a| a.value.as_str()).collect();
    assert_eq!(values, ["($request_method", "=", "POST", ")"]);
    assert_eq!(cfg.children(Some(find(&cfg, "if"))).len(), 1);
}

#[test]
fn lua_blocks_are_opaque() {
    let text = "http {\n  init_by_lua_block {\n    local t = { a = \"}\" } -- }\n    s = [[ } ]]\n  }\n  server { listen 80; }\n}\n";
    let (files, cfg, errors) = load_text(text);
    assert!(errors.is_empty(), "{errors:?}");
    let lua = cfg.get(find(&cfg, "init_by_lua_block"));
    assert!(
        lua.is_block()
            && cfg
                .children(Some(find(&cfg, "init_by_lua_block")))
                .is_empty()
    );
    let body = files.get(lua.span.file).slice(lua.raw_body.unwrap());
    assert!(body.contains("[[ } ]]"));
    assert_eq!(cfg.servers().len(), 1);
}

#[test]
fn syntax_errors_are_reported_and_parsing_goes_on() {
    let (_, cfg, errors) =
        load_text("events {}\nhttp {\n  server {\n    listen 80\n  }\n}\n}\n;\n");
    assert_eq!(
        messages(&errors),
        [
            "directive \"listen\" is not terminated by \";\"",
            "unexpected \"}\"",
            "unexpected \";\""
        ]
    );
    assert_eq!(cfg.servers().len(), 1);
    let (_, _, errors) = load_text("http {\n server {\n");
    assert_eq!(errors.len(), 1);
    assert!(errors[0].message.starts_with("unexpected end of file"));
    let (_, _, errors) = load_text("user 'x");
    assert!(
        errors.iter().any(|e| e.message.contains("never closed")),
        "{errors:?}"
    );
}

#[test]
fn arity_block_shape_and_misspellings() {
    let (_, _, errors) =
        load_text("user;\nevents;\nproxy_pass a {}\nproxy_passs x;\nmore_set_headers x;\n");
    assert_eq!(
        messages(&errors),
        [
            "invalid number of arguments in \"user\" directive",
            "directive \"events\" has no opening \"{\"",
            "directive \"proxy_pass\" is not terminated by \";\"",
            "unknown directive \"proxy_passs\" (did you mean \"proxy_pass\"?)",
        ]
    );
    // Entries of map/geo/types blocks are data, not directives.
    let (_, _, errors) =
        load_text("http { map $a $b { proxy_passs 1; user 2 3 4; } types { text/html html; } }");
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn effective_values_follow_inheritance_and_defaults() {
    let text = "http {\n  proxy_read_timeout 30s;\n  keepalive_timeout 10;\n  upstream u { server 10.0.0.1:80; keepalive 4; keepalive_timeout 5s; }\n  server {\n    location /a { proxy_pass http://u; }\n    location /b { proxy_read_timeout 2h; location /b/c { proxy_pass http://x; } }\n  }\n}\nstream { server { proxy_pass 10.0.0.2:53; } }\n";
    let (files, cfg, errors) = load_text(text);
    assert!(errors.is_empty(), "{errors:?}");
    let passes = cfg.proxy_passes();
    let a = Some(passes[0].directive);
    let c = Some(passes[1].directive);
    let read = cfg.proxy_read_timeout(a);
    assert_eq!(read.value, Millis::from_secs(30));
    assert_eq!(
        read.source.cite(&files),
        "`proxy_read_timeout` at nginx.conf:2"
    );
    assert_eq!(
        cfg.proxy_read_timeout(c).value,
        Millis::from_secs(7200),
        "nested location inherits from its parent location"
    );
    assert_eq!(cfg.keepalive_timeout(a).value, Millis::from_secs(10));
    assert_eq!(
        cfg.proxy_send_timeout(a),
        crate::value::provenance::Setting {
            value: Millis::from_secs(60),
            source: crate::value::provenance::Source::default_setting(
                "nginx",
                "proxy_send_timeout"
            )
            .into()
        }
    );
    let upstreams = cfg.upstreams();
    assert_eq!(upstreams.len(), 1);
    assert_eq!(passes[0].upstream, Some(0));
    assert_eq!(passes[1].upstream, None);
    assert_eq!(
        cfg.upstream_keepalive_timeout(upstreams[0].directive).value,
        Millis::from_secs(5)
    );
    // Outside any location, at the main context: the client keepalive default.
    assert_eq!(cfg.keepalive_timeout(None).value, Millis::from_secs(75));
    // The stream proxy_pass has no scheme and no location.
    assert_eq!(passes[2].scheme, None);
    assert_eq!(passes[2].location, None);
    assert!(passes[2].stream && !passes[0].stream);
    assert_eq!(
        (passes[2].host.as_str(), passes[2].port),
        ("10.0.0.2", Some(53))
    );
}

#[test]
fn upstream_keepalive_timeout_defaults_to_60s_and_does_not_inherit() {
    let (_, cfg, _) =
        load_text("http { keepalive_timeout 5s; upstream u { server a:80; keepalive 2; } }");
    let u = cfg.upstreams()[0].directive;
    let v = cfg.upstream_keepalive_timeout(u);
    assert_eq!(v.value, Millis::from_secs(60));
    assert!(v.source.is_default());
}

#[test]
fn proxy_http_version_default_depends_on_the_version() {
    let (_, cfg, _) = load_text("http { server { location / { proxy_pass http://a; } } }");
    let at = Some(cfg.proxy_passes()[0].directive);
    let unknown = cfg.proxy_http_version(at, &Settings::default());
    assert_eq!(unknown.value, "1.0");
    assert!(
        matches!(&*unknown.source, crate::value::provenance::Source::Default(d) if d.note.as_ref().is_some_and(|t| t.contains("version unknown")))
    );
    let old = Settings {
        nginx_version: Version::parse("1.25.3"),
        ..Settings::default()
    };
    assert_eq!(cfg.proxy_http_version(at, &old).value, "1.0");
    let new = Settings {
        nginx_version: Version::parse("1.29.7"),
        ..Settings::default()
    };
    assert_eq!(cfg.proxy_http_version(at, &new).value, "1.1");
}

#[test]
fn proxy_set_header_level_replaces_inherited_ones() {
    let text = "http { proxy_set_header Upgrade $http_upgrade; server {\n location /a { proxy_pass http://a; }\n location /b { proxy_set_header X 1; proxy_pass http://b; } } }";
    let (_, cfg, _) = load_text(text);
    let passes = cfg.proxy_passes();
    assert!(cfg
        .proxy_header(Some(passes[0].directive), "upgrade")
        .is_some());
    assert!(cfg
        .proxy_header(Some(passes[1].directive), "Upgrade")
        .is_none());
}

#[test]
fn model_exposes_servers_upstreams_and_targets() {
    let text = "http {\n upstream backend { least_conn; server 10.0.0.1:8080 weight=2; server [::1]:81; server unix:/tmp/s; }\n server { listen 80; server_name a.example b.example;\n  location / { proxy_pass https://backend/x; }\n  location /svc { proxy_pass http://web.default.svc.cluster.local:8080; }\n  location /var { proxy_pass http://$host; } } }";
    let (files, cfg, errors) = load_text(text);
    assert!(errors.is_empty(), "{errors:?}");
    let servers = cfg.servers();
    assert_eq!(servers.len(), 1);
    assert_eq!(servers[0].names.len(), 2);
    let u = &cfg.upstreams()[0];
    assert_eq!(u.name, "backend");
    assert!(u.balancer.is_some());
    let hosts: Vec<(&str, Option<u16>)> = u
        .servers
        .iter()
        .map(|s| (s.host.as_str(), s.port))
        .collect();
    assert_eq!(
        hosts,
        [
            ("10.0.0.1", Some(8080)),
            ("::1", Some(81)),
            ("unix:/tmp/s", None)
        ]
    );
    assert_eq!(
        files
            .get(u.servers[0].address_span.file)
            .slice(u.servers[0].address_span),
        "10.0.0.1:8080"
    );
    let passes = cfg.proxy_passes();
    assert_eq!(passes[0].scheme.as_deref(), Some("https"));
    assert_eq!(passes[0].upstream, Some(0));
    assert_eq!(passes[1].host, "web.default.svc.cluster.local");
    assert_eq!(passes[1].port, Some(8080));
    assert_eq!(passes[2].host, "");
    assert!(passes
        .iter()
        .all(|p| p.server.is_some() && p.location.is_some()));
    let upstreams = cfg.upstreams();
    let targets = cfg.targets(&passes[0], &upstreams);
    assert_eq!(targets.len(), 3);
    assert_eq!(targets[0].host, "10.0.0.1");
    let targets = cfg.targets(&passes[1], &upstreams);
    assert_eq!(
        (targets[0].host.as_str(), targets[0].port),
        ("web.default.svc.cluster.local", Some(8080))
    );
    assert!(cfg.targets(&passes[2], &upstreams).is_empty());
}

#[test]
fn includes_globs_relative_to_the_main_directory() {
    let dir = scratch("glob");
    let main = write(
        &dir,
        "nginx.conf",
        "events {}\nhttp {\n    include conf.d/*.conf;\n    include nothing/*.conf;\n}\n",
    );
    // `snippets/ws.conf` is relative to the main directory even from inside conf.d.
    write(
        &dir,
        "conf.d/b.conf",
        "server { listen 81; include snippets/ws.conf; }\n",
    );
    write(&dir, "conf.d/a.conf", "server { listen 80; }\n");
    write(
        &dir,
        "snippets/ws.conf",
        "location /ws { proxy_pass http://x; }\n",
    );
    let (files, configs, errors) = load_paths(&[main], &Settings::default());
    assert!(errors.is_empty(), "{errors:?}");
    let cfg = &configs[0];
    assert_eq!(cfg.files.len(), 4);
    let servers = cfg.servers();
    assert_eq!(servers.len(), 2);
    // Glob results are sorted: a.conf first.
    let first = cfg.get(servers[0].directive);
    assert!(files.get(first.span.file).name.ends_with("a.conf"));
    // The location from snippets/ is inside the second server and points into its file.
    let loc = cfg.get(cfg.locations()[0]);
    assert!(files.get(loc.span.file).name.ends_with("ws.conf"));
    assert_eq!(
        cfg.enclosing(cfg.locations()[0], "server"),
        Some(servers[1].directive)
    );
    assert!(loc.included_by.is_some());
}

#[test]
fn missing_include_and_cycles_are_include_problems() {
    let dir = scratch("cycle");
    let main = write(
        &dir,
        "nginx.conf",
        "events {}\nhttp {\n    include missing.conf;\n    include a.conf;\n}\n",
    );
    write(&dir, "a.conf", "include b.conf;\n");
    write(&dir, "b.conf", "include a.conf;\n");
    let mut files = SourceMap::default();
    let id = files.add(SourceFile::new(
        "nginx.conf",
        Some(main.clone()),
        std::fs::read_to_string(&main).unwrap(),
        FileKind::Nginx,
    ));
    let loaded = load_all(&[id], &mut files, &Settings::default());
    assert_eq!(loaded.configs.len(), 1);
    assert!(loaded.parse_errors.is_empty(), "{:?}", loaded.parse_errors);
    let msgs = messages(&loaded.include_errors);
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert_eq!(
        msgs[0],
        "`nginx.conf:3` includes `missing.conf`, not found relative to the directory of \
         `nginx.conf`, as nginx resolves it"
    );
    // The cycle is reported at the include that closes it, in b.conf, and says so.
    assert_eq!(
        msgs[1],
        "`b.conf:1` includes `a.conf`, an include cycle: a.conf → b.conf → a.conf"
    );
    assert_eq!(
        files.get(loaded.include_errors[1].span.file).base_name(),
        "b.conf"
    );
}

#[test]
fn self_include_is_a_cycle() {
    let dir = scratch("self");
    let main = write(&dir, "nginx.conf", "events {}\ninclude nginx.conf;\n");
    let (_, _, errors) = load_paths(&[main], &Settings::default());
    assert_eq!(errors.len(), 1);
    assert!(errors[0].message.contains("an include cycle"));
}

#[test]
fn absolute_includes_need_the_prefix() {
    let dir = scratch("prefix");
    let main = write(
        &dir,
        "nginx.conf",
        "events {}\nhttp {\n    include /etc/nginx/conf.d/*.conf;\n    include /etc/nginx/mime.types;\n}\n",
    );
    write(&dir, "conf.d/app.conf", "server { listen 80; }\n");
    write(&dir, "mime.types", "types { text/html html; }\n");
    // Without a prefix: not read, not an error (the files live on the server).
    let (_, configs, errors) = load_paths(std::slice::from_ref(&main), &Settings::default());
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(configs[0].unresolved_includes.len(), 2);
    assert!(configs[0].servers().is_empty());
    // With the prefix: `/etc/nginx/conf.d/*.conf` is found as `<prefix>/conf.d/*.conf`.
    let settings = Settings {
        nginx_prefix: Some(dir.to_path_buf()),
        ..Settings::default()
    };
    let (_, configs, errors) = load_paths(&[main], &settings);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(configs[0].servers().len(), 1);
    assert_eq!(configs[0].files.len(), 3);
}

#[test]
fn an_input_included_by_another_is_linted_once() {
    let dir = scratch("dedup");
    let main = write(
        &dir,
        "nginx.conf",
        "events {}\nhttp { include conf.d/*.conf; }\n",
    );
    let part = write(&dir, "conf.d/app.conf", "server { listen 80 }\n");
    let other = write(&dir, "conf.d/other.conf", "server { listen 81; }\n");
    let (files, configs, errors) = load_paths(&[main, part, other], &Settings::default());
    // One configuration: the two conf.d inputs are part of nginx.conf.
    assert_eq!(configs.len(), 1);
    assert_eq!(configs[0].servers().len(), 2);
    // The syntax error of app.conf is reported once, in app.conf.
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(files.get(errors[0].span.file).name.ends_with("app.conf"));
    // No file was read twice.
    assert_eq!(files.len(), 3);
}

#[test]
fn fragments_look_for_relative_includes_in_ancestors() {
    let dir = scratch("fragment");
    write(&dir, "snippets/proxy.conf", "proxy_read_timeout 1h;\n");
    let site = write(
        &dir,
        "sites-enabled/app.conf",
        "server { listen 80; include snippets/proxy.conf; include unknown/x.conf;\n location /ws { proxy_pass http://a; } }\n",
    );
    // The parent directories searched are inside the lint root (`dir`, as `kubegap lint dir`).
    let mut settings = Settings::default();
    settings.reads.roots.push(dir.to_path_buf());
    let (_, configs, errors) = load_paths(std::slice::from_ref(&site), &settings);
    assert!(errors.is_empty(), "{errors:?}");
    let cfg = &configs[0];
    assert!(!cfg.is_complete());
    assert_eq!(cfg.unresolved_includes.len(), 1);
    let pass = cfg.proxy_passes()[0].directive;
    assert_eq!(
        cfg.proxy_read_timeout(Some(pass)).value,
        Millis::from_secs(3600)
    );
    // Linting the fragment alone, its parent directory is outside the lint root: not searched.
    let (_, configs, errors) = load_paths(&[site], &Settings::default());
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(configs[0].unresolved_includes.len(), 2);
}

#[test]
fn includes_outside_the_roots_are_not_read() {
    let dir = scratch("escape");
    write(&dir, "secret.env", "TOKEN=abc\n");
    write(&dir, "other/x.conf", "TOKEN=abc\n");
    let main = write(
        &dir,
        "repo/nginx.conf",
        "events {}\nhttp {\n include ../secret.env;\n include ../other/*.conf;\n include /proc/self/environ;\n}\n",
    );
    let (files, _, errors) = load_paths(std::slice::from_ref(&main), &Settings::default());
    // Nothing outside `repo/` was read; each include is named, with its line.
    assert_eq!(files.len(), 1);
    let msgs = messages(&errors);
    assert_eq!(
        msgs,
        [
            "`nginx.conf:3` includes `../secret.env`, outside the lint root, not read",
            "`nginx.conf:4` includes `../other/*.conf`, outside the lint root, not read",
        ]
    );
    // `--nginx-prefix /` makes the whole machine a root (the user said so), never /proc.
    let mut settings = Settings {
        nginx_prefix: Some(PathBuf::from("/")),
        ..Settings::default()
    };
    let (files, _, errors) = load_paths(&[main], &settings);
    assert_eq!(files.len(), 3);
    let includes: Vec<&str> = messages(&errors)
        .into_iter()
        .filter(|m| m.contains("includes"))
        .collect();
    assert_eq!(
        includes,
        ["`nginx.conf:5` includes `/proc/self/environ`, in a pseudo file system (/proc, /sys, /dev), not read"]
    );
    // Allowed explicitly: read (and /proc still is not).
    settings.nginx_prefix = None;
    settings.reads.allow_outside_roots = true;
    let (files, _, errors) = load_paths(&[dir.join("repo/nginx.conf")], &settings);
    assert_eq!(files.len(), 3);
    assert!(
        errors.iter().all(|e| !e.message.contains("outside")),
        "{errors:?}"
    );
}

#[test]
fn included_files_together_are_bounded_by_the_size_limit() {
    let dir = scratch("include-bytes");
    for name in ["a", "b", "c"] {
        write(
            &dir,
            &format!("inc/{name}.conf"),
            &format!("# {}\n", "x".repeat(100)),
        );
    }
    let main = write(
        &dir,
        "nginx.conf",
        "events {}\nhttp { include inc/*.conf; }\n",
    );
    let mut settings = Settings::default();
    settings.reads.max_file_size = 250;
    let (files, _, errors) = load_paths(&[main], &settings);
    // Two files fit in 250 bytes, the third does not.
    assert_eq!(files.len(), 3);
    assert_eq!(
        messages(&errors),
        ["`nginx.conf:2` includes `inc/*.conf`, not read: the included files together would exceed --max-file-size (250 bytes)"]
    );
}

#[test]
fn bytes_that_are_not_utf8_are_valid_nginx() {
    let dir = scratch("bytes");
    write(&dir, "inc.conf", "");
    std::fs::write(dir.join("inc.conf"), b"map $a $b { \xff\xfe 1; }\n").unwrap();
    let main = write(
        &dir,
        "nginx.conf",
        "events {}\nhttp { include inc.conf; }\n",
    );
    let (_, configs, errors) = load_paths(&[main], &Settings::default());
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(configs[0].files.len(), 2);
}

#[test]
fn long_lived_hints() {
    let text = "stream { upstream ws { server a:1; } server { listen 1; proxy_pass ws; } }\nhttp { upstream ws_backend { server a:1; }\n upstream plain { # kubegap: long-lived\n server b:1; }\n server {\n location /socket.io/ { proxy_pass http://a; }\n location /x { proxy_pass http://ws_backend; }\n location /y { proxy_pass http://plain; }\n # kubegap: long-lived\n location /z { proxy_pass http://c; }\n location /u { proxy_set_header Upgrade $http_upgrade; proxy_pass http://d; }\n location /news { proxy_pass http://e; }\n location /ws-docs { root /srv; } } }";
    let (files, cfg, errors) = load_text(text);
    assert!(errors.is_empty(), "{errors:?}");
    let found: Vec<String> = cfg
        .long_lived(&files)
        .iter()
        .map(|l| cfg.describe(l.location))
        .collect();
    assert_eq!(
        found,
        [
            "location /socket.io/",
            "location /x",
            "location /y",
            "location /z",
            "location /u"
        ]
    );
}

#[test]
fn an_upgrade_header_in_every_location_is_not_a_hint() {
    let location = |p: &str| {
        format!("location {p} {{ proxy_set_header Upgrade $http_upgrade; proxy_pass http://a; }}\n")
    };
    let text = format!(
        "http {{ server {{\n{}{}{}}} }}",
        location("/a"),
        location("/b"),
        location("/ws")
    );
    let (files, cfg, errors) = load_text(&text);
    assert!(errors.is_empty(), "{errors:?}");
    let found: Vec<String> = cfg
        .long_lived(&files)
        .iter()
        .map(|l| cfg.describe(l.location))
        .collect();
    assert_eq!(found, ["location /ws"]);
}

#[test]
fn include_fan_out_is_bounded() {
    // Every file includes every file: cycles are cut, and the expansion stays finite.
    let dir = scratch("fanout");
    let main = write(
        &dir,
        "nginx.conf",
        "events {}\nhttp { include inc/*.conf; }\n",
    );
    for i in 0..9 {
        write(
            &dir,
            &format!("inc/{i}.conf"),
            "include inc/*.conf;\nserver { listen 80; }\n",
        );
    }
    let (_, configs, errors) = load_paths(&[main], &Settings::default());
    assert_eq!(configs.len(), 1);
    assert!(errors
        .iter()
        .all(|e| e.message.contains("an include cycle") || e.message.starts_with("too many")));
    // One cycle report per include directive at most, plus the cap.
    assert!(errors.len() <= 11, "{}", errors.len());
    assert!(!configs[0].servers().is_empty());
}

#[test]
fn variable_braces_stay_in_the_word_as_in_nginx() {
    // Found by comparing with `nginx -t`: after `${`, further `{` stay in the word.
    let (_, cfg, errors) =
        load_text("http { server { location /l1${{\"${host}\" { return 204; } } }");
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(
        cfg.get(cfg.locations()[0]).arg(0),
        Some("/l1${{\"${host}\"")
    );
}
