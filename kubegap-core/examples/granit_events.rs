//! Prints granit-parser's events with their byte spans for a file: how the reference parser
//! places every node, for work on kubegap's own scanner (`src/yaml/fast.rs`).
//! `cargo run -p kubegap-core --example granit_events -- FILE`
use granit_parser::Parser;
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: granit_events FILE");
        std::process::exit(2);
    };
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("cannot read {path}");
        std::process::exit(2);
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let mut parser = Parser::new_from_str(&text);
    while let Some(event) = parser.next_event() {
        match event {
            Ok((event, span)) => {
                let s = span.start.byte_offset().unwrap_or(span.start.index());
                let e = span.end.byte_offset().unwrap_or(span.end.index());
                println!("{s}..{e} {:?} {event:?}", text.get(s..e).unwrap_or(""));
            }
            Err(error) => {
                println!("error: {error}");
                break;
            }
        }
    }
}
