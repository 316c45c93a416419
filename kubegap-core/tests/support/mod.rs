//! What the corpus tests share: where the corpus is, and whether it must be there.
//!
//! The corpus (`../shared/corpus`: real manifests and configs from public projects, with the
//! verdicts of PyYAML, `haproxy -c` and `nginx -t`) sits beside the repository in the
//! project's checkouts and CI, not in the repository. On a fresh clone without it, the tests
//! that read it say loudly that they are skipped and pass; `.ci/run` sets
//! `KUBEGAP_REQUIRE_CORPUS=1`, which makes a missing corpus a failure, so CI cannot silently
//! stop running them.

use std::io::Write;
use std::path::{Path, PathBuf};

/// `../shared/corpus`, beside the repository.
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

/// Whether `test` can run: true when `path` exists. When it does not, panics if
/// `KUBEGAP_REQUIRE_CORPUS` is set (and not `0`), and otherwise prints a skip notice that
/// `cargo test` shows even for passing tests and returns false.
pub fn present(path: &Path, test: &str) -> bool {
    if path.exists() {
        return true;
    }
    let required = std::env::var("KUBEGAP_REQUIRE_CORPUS").is_ok_and(|v| !v.is_empty() && v != "0");
    assert!(
        !required,
        "KUBEGAP_REQUIRE_CORPUS is set but {} is missing: the corpus must sit beside the repository (../shared/corpus)",
        path.display()
    );
    // Written to the process's stderr directly, not through `eprintln!`, which the test
    // harness captures and shows only for failing tests.
    let _ = writeln!(
        std::io::stderr().lock(),
        "\nSKIPPED {test}: {} is missing (the corpus sits beside the repository as ../shared/corpus; \
         set KUBEGAP_REQUIRE_CORPUS=1 to make this a failure, as .ci/run does)\n",
        path.display()
    );
    false
}
