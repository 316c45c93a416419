//! What kubegap knows about individual nginx directives: argument counts and block shape of the
//! common ones (to report `user;` as nginx does), and the names of all the directives it has
//! seen, to catch misspellings.
//!
//! Unknown directives are **not** errors by themselves: third-party modules add hundreds. Only a
//! name one edit away from a known directive (and not itself known) is reported, because that is
//! almost always a typo that `nginx -t` would reject (crossplane's `spelling-mistake` config).

use crate::finding::ParseError;

use super::parse::Arg;

const MANY: u8 = u8::MAX;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Ends with `;`.
    Simple,
    /// Opens a block.
    Block,
}

/// (name, minimum args, maximum args, shape). Only directives whose arity is the same in every
/// context they appear in.
const TABLE: &[(&str, u8, u8, Shape)] = &[
    ("access_log", 1, MANY, Shape::Simple),
    ("add_header", 2, 3, Shape::Simple),
    ("alias", 1, 1, Shape::Simple),
    ("client_max_body_size", 1, 1, Shape::Simple),
    ("default_type", 1, 1, Shape::Simple),
    ("error_log", 1, MANY, Shape::Simple),
    ("events", 0, 0, Shape::Block),
    ("geo", 1, 2, Shape::Block),
    ("http", 0, 0, Shape::Block),
    ("if", 1, MANY, Shape::Block),
    ("include", 1, 1, Shape::Simple),
    ("index", 1, MANY, Shape::Simple),
    ("keepalive_timeout", 1, 2, Shape::Simple),
    ("limit_except", 1, MANY, Shape::Block),
    ("listen", 1, MANY, Shape::Simple),
    ("location", 1, 2, Shape::Block),
    ("log_format", 2, MANY, Shape::Simple),
    ("map", 2, 2, Shape::Block),
    ("pid", 1, 1, Shape::Simple),
    ("proxy_connect_timeout", 1, 1, Shape::Simple),
    ("proxy_http_version", 1, 1, Shape::Simple),
    ("proxy_next_upstream", 1, MANY, Shape::Simple),
    ("proxy_pass", 1, 1, Shape::Simple),
    ("proxy_read_timeout", 1, 1, Shape::Simple),
    ("proxy_send_timeout", 1, 1, Shape::Simple),
    ("proxy_set_header", 2, 2, Shape::Simple),
    ("return", 1, 2, Shape::Simple),
    ("rewrite", 2, 3, Shape::Simple),
    ("root", 1, 1, Shape::Simple),
    ("send_timeout", 1, 1, Shape::Simple),
    ("server_name", 1, MANY, Shape::Simple),
    ("set", 2, 2, Shape::Simple),
    ("stream", 0, 0, Shape::Block),
    ("try_files", 2, MANY, Shape::Simple),
    ("types", 0, 0, Shape::Block),
    ("upstream", 1, 1, Shape::Block),
    ("user", 1, 2, Shape::Simple),
    ("worker_connections", 1, 1, Shape::Simple),
    ("worker_processes", 1, 1, Shape::Simple),
    ("worker_shutdown_timeout", 1, 1, Shape::Simple),
];

/// Checks a directive's name and argument count. `block` says whether it opened a block.
pub(crate) fn check(name: &Arg, args: &[Arg], block: bool) -> Vec<ParseError> {
    let mut errors = Vec::new();
    let n = name.value.as_str();
    if let Some(&(_, min, max, shape)) = TABLE.iter().find(|(k, ..)| *k == n) {
        // `n` is a known directive name here: short, no excerpt needed.
        let count = args.len();
        if count < usize::from(min) || (max != MANY && count > usize::from(max)) {
            errors.push(ParseError::new(
                name.span,
                format!("invalid number of arguments in \"{n}\" directive"),
            ));
        }
        match (shape, block) {
            (Shape::Simple, true) => errors.push(ParseError::new(
                name.span,
                format!("directive \"{n}\" is not terminated by \";\""),
            )),
            (Shape::Block, false) => errors.push(ParseError::new(
                name.span,
                format!("directive \"{n}\" has no opening \"{{\""),
            )),
            _ => {}
        }
        return errors;
    }
    if let Some(suggestion) = misspelling_of(n) {
        errors.push(ParseError::new(
            name.span,
            format!(
                "unknown directive \"{}\" (did you mean \"{suggestion}\"?)",
                crate::finding::excerpt(n)
            ),
        ));
    }
    errors
}

/// The known directive a name is one edit away from, if the name itself is not known.
pub(crate) fn misspelling_of(name: &str) -> Option<&'static str> {
    if name.len() < 6
        || is_known(name)
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b == b'_' || b.is_ascii_digit())
    {
        return None;
    }
    KNOWN
        .iter()
        .copied()
        .find(|known| known.len() >= 6 && one_edit_apart(name, known))
}

/// Whether kubegap knows this directive name.
pub fn is_known(name: &str) -> bool {
    KNOWN.binary_search(&name).is_ok() || TABLE.iter().any(|(k, ..)| *k == name)
}

/// Damerau distance of exactly one (substitution, insertion, deletion or adjacent swap).
fn one_edit_apart(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a == b {
        return false;
    }
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[prefix..], &b[prefix..]);
    match ra.len().abs_diff(rb.len()) {
        0 => {
            ra[1..] == rb[1..]
                || (ra.len() >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..])
        }
        1 if ra.len() > rb.len() => ra[1..] == *rb,
        1 => rb[1..] == *ra,
        _ => false,
    }
}

/// Every directive name seen in nginx's own modules and in common third-party ones, sorted.
pub(crate) static KNOWN: &[&str] = &include!("known_directives.in");
