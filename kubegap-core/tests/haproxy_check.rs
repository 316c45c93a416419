//! When an `haproxy` binary is installed, every haproxy fixture must be a configuration that
//! HAProxy itself accepts (`haproxy -c`): the rules flag risky settings, not syntax errors, and
//! their examples must be copy-pastable. Without the binary the test does nothing on a
//! developer machine; `.ci/run` installs Debian's haproxy and sets `KUBEGAP_REQUIRE_ORACLES`,
//! so in CI a missing binary is a failure, not a silent pass.

use std::path::{Path, PathBuf};
use std::process::Command;

fn haproxy_available() -> bool {
    Command::new("haproxy")
        .arg("-v")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/rules");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).expect("testdata/rules is readable") {
        let dir = dir.expect("directory entry").path();
        let is_haproxy = dir
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("haproxy-"));
        if !is_haproxy {
            continue;
        }
        for file in std::fs::read_dir(&dir).expect("rule folder is readable") {
            let file = file.expect("directory entry").path();
            if file.extension().is_some_and(|e| e == "cfg") {
                out.push(file);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn haproxy_accepts_every_haproxy_fixture() {
    if !haproxy_available() {
        // CI installs HAProxy and sets this, so the oracle cannot silently stop running there.
        assert!(
            std::env::var_os("KUBEGAP_REQUIRE_ORACLES").is_none(),
            "KUBEGAP_REQUIRE_ORACLES is set but no `haproxy` binary is installed"
        );
        return;
    }
    let mut failures = Vec::new();
    for file in fixtures() {
        let output = Command::new("haproxy")
            .arg("-c")
            .arg("-f")
            .arg(&file)
            // Fixtures that keep values symbolic read them from the environment.
            .env("HARD_STOP", "30m")
            .env("CHECK_TIMEOUT", "2s")
            .output()
            .expect("haproxy runs");
        // 0: valid; 2: valid but no listener would start.
        if !matches!(output.status.code(), Some(0 | 2)) {
            failures.push(format!(
                "{}:\n{}",
                file.display(),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
