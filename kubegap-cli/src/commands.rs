//! `kubegap rules`, `explain`, `completions` and `man`.

use serde::Serialize;

use kubegap_core::config::{preset, PRESETS};
use kubegap_core::rule::{Domain, Rule};
use kubegap_core::rules::{find, DIFF_CHECKS, RULES};
use kubegap_core::{suggest, Settings};

use crate::args::RulesFormat;
use crate::{write_stdout, EXIT_ERROR};

/// The family of a rule, as `kubegap rules` and the README name it.
pub fn family(rule: &Rule) -> &'static str {
    match rule.domain {
        Domain::Parse => "input",
        Domain::Kubernetes => "kubernetes",
        Domain::Haproxy => "haproxy",
        Domain::Nginx => "nginx",
        Domain::Controller => "controller",
        Domain::Chain => "chain",
    }
}

#[derive(Serialize)]
struct JsonRule<'a> {
    id: &'a str,
    family: &'a str,
    default_severity: &'a str,
    /// Every severity findings of the rule can carry (before configuration overrides).
    severities: Vec<&'a str>,
    summary: &'a str,
    sources: &'a [&'a str],
    #[serde(skip_serializing_if = "Option::is_none")]
    enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    severity: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonRules<'a> {
    version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    preset: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    rules: Vec<JsonRule<'a>>,
}

fn severities(rule: &Rule) -> Vec<&'static str> {
    rule.reported_severities()
        .into_iter()
        .map(|s| s.name())
        .collect()
}

/// `kubegap rules [--format json] [--preset NAME]`.
pub fn rules(format: RulesFormat, preset_name: Option<&str>) -> i32 {
    let preset = match preset_name {
        None => None,
        Some(name) => match preset(name) {
            Some(p) => Some(p),
            None => {
                crate::eprint_line(&format!(
                    "error: unknown preset `{name}`{} (presets: {})",
                    suggest::hint(name, PRESETS.iter().map(|p| p.name)),
                    PRESETS
                        .iter()
                        .map(|p| p.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                return EXIT_ERROR;
            }
        },
    };
    let mut settings = Settings::default();
    if let Some(p) = preset {
        if let Err(errors) = settings.apply_yaml(p.yaml, &|id| find(id).is_some()) {
            crate::eprint_line(&format!("error: preset `{}`: {errors:?}", p.name));
            return EXIT_ERROR;
        }
    }
    let effective = |rule: &Rule| {
        settings
            .severity
            .get(rule.id)
            .copied()
            .unwrap_or(rule.default_severity)
    };
    match format {
        RulesFormat::Json => {
            let doc = JsonRules {
                version: 1,
                preset: preset.map(|p| p.name),
                description: preset.map(|p| p.description),
                rules: every_rule()
                    .map(|r| JsonRule {
                        id: r.id,
                        family: family(r),
                        default_severity: r.default_severity.name(),
                        severities: severities(r),
                        summary: r.summary,
                        sources: r.evidence,
                        enabled: preset.map(|_| settings.rule_enabled(r.id)),
                        severity: preset.map(|_| effective(r).name()),
                    })
                    .collect(),
            };
            let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
            text.push('\n');
            write_stdout(&text)
        }
        RulesFormat::Human => {
            let mut out = String::new();
            if let Some(p) = preset {
                out.push_str(&format!("preset `{}`: {}\n\n", p.name, p.description));
            }
            let width = every_rule().map(|r| r.id.len()).max().unwrap_or(0);
            let sev_width = every_rule()
                .map(|r| severities(r).join(", ").len())
                .max()
                .unwrap_or(0);
            out.push_str(&format!(
                "{:width$}  {:sev_width$}  {:10}  summary\n",
                "rule", "reports at", "family"
            ));
            for rule in every_rule() {
                let status = match preset {
                    Some(_) if !settings.rule_enabled(rule.id) => "off: ".to_string(),
                    Some(_) if effective(rule) != rule.default_severity => {
                        format!("{}: ", effective(rule).name())
                    }
                    _ => String::new(),
                };
                out.push_str(&format!(
                    "{:width$}  {:sev_width$}  {:10}  {status}{}\n",
                    rule.id,
                    severities(rule).join(", "),
                    family(rule),
                    rule.summary
                ));
            }
            out.push_str(
                "\n`reports at`: the default severity first, then any other severity the rule's findings can carry.\n",
            );
            write_stdout(&out)
        }
    }
}

/// Every rule: the lint rules, then the `diff-*` rules of `kubegap diff`.
fn every_rule() -> impl Iterator<Item = &'static Rule> {
    RULES
        .iter()
        .copied()
        .chain(DIFF_CHECKS.iter().map(|(rule, _)| *rule))
}

/// `kubegap explain RULE`.
pub fn explain(rule: &str) -> i32 {
    match find(rule) {
        Some(rule) => {
            let mut out = format!(
                "# {} ({})\n\nReports at: {}. Family: {}.\n\n{}",
                rule.id,
                rule.default_severity.name(),
                severities(rule).join(", "),
                family(rule),
                rule.markdown()
            );
            if !rule.evidence.is_empty() {
                out.push_str("\n## Evidence\n");
                for link in rule.evidence {
                    out.push_str(&format!("- {link}\n"));
                }
            }
            write_stdout(&out)
        }
        None => {
            crate::eprint_line(&format!(
                "error: unknown rule `{rule}`{} (`kubegap rules` lists every rule)",
                suggest::rule_hint(rule)
            ));
            EXIT_ERROR
        }
    }
}

/// `kubegap completions SHELL`.
pub fn completions(shell: clap_complete::Shell) -> i32 {
    let mut cmd = <crate::args::Cli as clap::CommandFactory>::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "kubegap", &mut buf);
    write_stdout(&String::from_utf8_lossy(&buf))
}

/// The man page, as roff: kubegap's page, then a section per subcommand with its synopsis
/// and options.
pub fn man_page() -> String {
    let cmd = <crate::args::Cli as clap::CommandFactory>::command();
    let mut buf = Vec::new();
    let man = clap_mangen::Man::new(cmd.clone());
    let ok = man.render_title(&mut buf).is_ok()
        && man.render_name_section(&mut buf).is_ok()
        && man.render_synopsis_section(&mut buf).is_ok()
        && man.render_description_section(&mut buf).is_ok()
        && man.render_options_section(&mut buf).is_ok()
        && man.render_subcommands_section(&mut buf).is_ok();
    if !ok {
        return String::new();
    }
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("kubegap {}", sub.get_name());
        buf.extend_from_slice(format!(".SH \"{}\"\n", name.to_uppercase()).as_bytes());
        if let Some(about) = sub.get_long_about().or(sub.get_about()) {
            buf.extend_from_slice(format!("{}\n", roff_text(&about.to_string())).as_bytes());
        }
        let sub_man = clap_mangen::Man::new(sub.clone().bin_name(name));
        if sub_man.render_synopsis_section(&mut buf).is_err()
            || (sub.get_arguments().any(|a| !a.is_hide_set())
                && sub_man.render_options_section(&mut buf).is_err())
        {
            return String::new();
        }
    }
    if man.render_version_section(&mut buf).is_err() {
        return String::new();
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// Text as a roff paragraph: backslashes and leading dots escaped.
fn roff_text(text: &str) -> String {
    let text = text.replace('\\', "\\e").replace('-', "\\-");
    if text.starts_with('.') || text.starts_with('\'') {
        format!("\\&{text}")
    } else {
        text
    }
}

/// `kubegap man`.
pub fn man() -> i32 {
    write_stdout(&man_page())
}
