//! Snapshots of the rendered diagnostics of every rule fixture (`testdata/rules/<id>/invalid*`),
//! as a user sees them: miette's graphical report, no colour, width 100.

use std::path::Path;

use kubegap_core::Settings;

#[test]
fn rendered_fixture_diagnostics() {
    // Paths in the output are relative to the workspace root, as a user would type them.
    std::env::set_current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("..")).unwrap();
    let mut dirs: Vec<_> = std::fs::read_dir("testdata/rules")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let rule = dir.file_name().unwrap().to_str().unwrap().to_string();
        let mut cases: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        cases.sort();
        for case in cases {
            let name = case.file_name().unwrap().to_str().unwrap().to_string();
            if !name.starts_with("invalid") {
                continue;
            }
            let discovered = kubegap_cli::walk::discover(std::slice::from_ref(&case), None);
            let mut settings = Settings {
                select: Some(vec![rule.clone(), "parse-error".into()]),
                ..Settings::default()
            };
            apply_fixture_settings(&dir, &mut settings);
            let report = kubegap_core::lint(discovered.inputs, &settings);
            let mut text = String::new();
            for f in &report.findings {
                text.push_str(&kubegap_cli::output::human::render_finding(&report, f));
                text.push('\n');
            }
            let stem = name.split('.').next().unwrap_or(&name).to_string();
            insta::assert_snapshot!(format!("{rule}__{stem}"), text);
        }
    }
}

fn apply_fixture_settings(dir: &Path, settings: &mut Settings) {
    let Ok(text) = std::fs::read_to_string(dir.join("settings")) else {
        return;
    };
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        settings.apply_fixture_setting(key, value);
    }
}
