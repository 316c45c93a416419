//! Rule metadata stays true: every severity a rule's code can set is declared in its
//! `also_reports`, so `kubegap rules` lists the severities findings are really reported at.

use kubegap_core::rules::RULES;
use kubegap_core::Severity;

#[test]
fn declared_severities_cover_every_severity_the_code_sets() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules");
    let mut checked = 0;
    for rule in RULES {
        let file = dir.join(format!("{}.rs", rule.id.replace('-', "_")));
        let Ok(code) = std::fs::read_to_string(&file) else {
            continue;
        };
        checked += 1;
        for (name, severity) in [
            ("Error", Severity::Error),
            ("Warning", Severity::Warning),
            ("Info", Severity::Info),
        ] {
            if code.contains(&format!("severity(Severity::{name})")) {
                assert!(
                    rule.reported_severities().contains(&severity),
                    "{} sets severity {name} but does not declare it in `also_reports`",
                    rule.id
                );
            }
        }
    }
    assert!(
        checked >= 50,
        "rule files not found under {}",
        dir.display()
    );
}
