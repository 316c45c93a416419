//! File-kind detection: the one place that decides whether a path is a manifest, an
//! haproxy.cfg or an nginx config.

use std::path::Path;

use crate::source::FileKind;

/// Detects the kind of a file from its path and (optionally) the start of its content.
///
/// Returns `None` for files kubegap does not read. `head` should be the first few KiB.
///
/// File names that are not UTF-8 are judged by their bytes (the extension of `caf\xe9.yaml` is
/// `yaml`).
pub fn detect(path: &Path, head: Option<&[u8]>) -> Option<FileKind> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if let Some("yaml" | "yml" | "json") = ext.as_deref() {
        return Some(FileKind::Yaml);
    }
    if name == "haproxy.cfg" || (name.starts_with("haproxy") && name.ends_with(".conf")) {
        return Some(FileKind::Haproxy);
    }
    if name == "nginx.conf" {
        return Some(FileKind::Nginx);
    }
    let head = head
        .map(|h| String::from_utf8_lossy(h).into_owned())
        .unwrap_or_default();
    match ext.as_deref() {
        Some("cfg") if looks_like_haproxy(&head) => Some(FileKind::Haproxy),
        Some("conf") => {
            let in_nginx_tree = path.components().any(|c| {
                matches!(
                    c.as_os_str().to_str(),
                    Some("conf.d" | "sites-enabled" | "sites-available" | "nginx")
                )
            });
            if looks_like_haproxy(&head) {
                Some(FileKind::Haproxy)
            } else if in_nginx_tree || looks_like_nginx(&head) {
                Some(FileKind::Nginx)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The kind of content without a file name (stdin): an haproxy.cfg when its first keyword is an
/// HAProxy section, an nginx config when it starts with nginx contexts or directives, else a
/// manifest (YAML or JSON). The same content tests as for `.cfg` and `.conf` files.
pub fn detect_content(head: &[u8]) -> FileKind {
    let head = String::from_utf8_lossy(head);
    if looks_like_haproxy(&head) {
        FileKind::Haproxy
    } else if looks_like_nginx(&head) {
        FileKind::Nginx
    } else {
        FileKind::Yaml
    }
}

/// Whether the bytes hold nothing but whitespace, YAML document markers and `#` comments:
/// no manifest, haproxy or nginx content at all.
pub fn is_blank(bytes: &[u8]) -> bool {
    bytes
        .split(|b| *b == b'\n' || *b == b'\r')
        .map(|line| line.trim_ascii())
        .all(|line| {
            line.is_empty()
                || line.starts_with(b"#")
                || line == b"---"
                || line == b"..."
                || line.starts_with(b"--- #")
        })
}

/// The first significant words of `text`, skipping comments and blank lines.
fn first_keywords(text: &str, n: usize) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next())
        .take(n)
        .collect()
}

/// Whether the first keyword of a file is an HAProxy section header (`global`, `defaults`,
/// `frontend`, ..., and newer ones such as `log-forward` or `traces`). Conditional directives
/// (`.if version_atleast(2.6)`, `.endif`) before it are skipped.
pub fn looks_like_haproxy(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('.'))
        .filter_map(|l| l.split_whitespace().next())
        .next()
        .is_some_and(|k| crate::haproxy::SectionKind::from_keyword(k).is_some())
}

/// Whether the content starts with nginx contexts or directives.
pub fn looks_like_nginx(text: &str) -> bool {
    const STARTS: &[&str] = &[
        "http",
        "http{",
        "server",
        "server{",
        "upstream",
        "events",
        "events{",
        "user",
        "worker_processes",
        "location",
        "map",
        "include",
        "stream",
        "pid",
        "error_log",
        "load_module",
        "worker_rlimit_nofile",
        "proxy_pass",
        "proxy_set_header",
        "listen",
        "server_name",
        "root",
        "log_format",
    ];
    let first_line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or("");
    first_keywords(text, 1).first().is_some_and(|k| {
        // Any directive nginx knows counts too (`worker_shutdown_timeout 2h;`), as long as the
        // line looks like an nginx statement (it ends with `;` or opens a block).
        STARTS.contains(k)
            || (crate::nginx::is_known(k.trim_end_matches([';', '{']))
                && (first_line.contains(';') || first_line.ends_with('{')))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_kinds() {
        assert_eq!(detect(Path::new("a/b.yaml"), None), Some(FileKind::Yaml));
        assert_eq!(detect(Path::new("x.JSON"), None), Some(FileKind::Yaml));
        assert_eq!(
            detect(Path::new("etc/haproxy.cfg"), None),
            Some(FileKind::Haproxy)
        );
        assert_eq!(
            detect(Path::new("haproxy-edge.conf"), None),
            Some(FileKind::Haproxy)
        );
        assert_eq!(
            detect(Path::new("lb.cfg"), Some(b"# c\nglobal\n  daemon\n")),
            Some(FileKind::Haproxy)
        );
        assert_eq!(detect(Path::new("setup.cfg"), Some(b"[metadata]\n")), None);
        assert_eq!(
            detect(
                Path::new("traces.cfg"),
                Some(b"# t\n.if version_atleast(3.1)\ntraces\n  trace h1 sink stderr\n.endif\n")
            ),
            Some(FileKind::Haproxy)
        );
        assert_eq!(
            detect(
                Path::new("lf.cfg"),
                Some(b"log-forward syslog\n  bind :514\n")
            ),
            Some(FileKind::Haproxy)
        );
        assert_eq!(detect(Path::new("nginx.conf"), None), Some(FileKind::Nginx));
        assert_eq!(
            detect(Path::new("etc/nginx/conf.d/app.conf"), Some(b"")),
            Some(FileKind::Nginx)
        );
        assert_eq!(
            detect(Path::new("site.conf"), Some(b"server {\n listen 80;\n}\n")),
            Some(FileKind::Nginx)
        );
        assert_eq!(detect(Path::new("other.conf"), Some(b"[section]\n")), None);
        assert_eq!(
            detect(
                Path::new("main.conf"),
                Some(b"# x\nworker_shutdown_timeout 2h;\n")
            ),
            Some(FileKind::Nginx)
        );
        assert_eq!(detect(Path::new("app.conf"), Some(b"timeout = 5\n")), None);
        assert_eq!(detect(Path::new("README.md"), None), None);
    }

    #[test]
    fn stdin_kind_from_content() {
        assert_eq!(
            detect_content(b"# edge\nglobal\n  daemon\ndefaults\n"),
            FileKind::Haproxy
        );
        assert_eq!(
            detect_content(b"events {}\nhttp { server { listen 80; } }\n"),
            FileKind::Nginx
        );
        assert_eq!(detect_content(b"worker_processes auto;\n"), FileKind::Nginx);
        assert_eq!(
            detect_content(b"apiVersion: v1\nkind: Service\n"),
            FileKind::Yaml
        );
        assert_eq!(detect_content(b"server: x\nglobal: y\n"), FileKind::Yaml);
        assert_eq!(detect_content(b"{\"kind\": \"List\"}"), FileKind::Yaml);
        assert!(is_blank(b""));
        assert!(is_blank(b"\n  \n# only a comment\n---\n"));
        assert!(!is_blank(b"---\nkind: Service\n"));
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8() {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"caf\xe9.yaml");
        assert_eq!(detect(Path::new(name), None), Some(FileKind::Yaml));
        let name = std::ffi::OsStr::from_bytes(b"\xff/nginx.conf");
        assert_eq!(detect(Path::new(name), None), Some(FileKind::Nginx));
    }
}
