#!/usr/bin/env bash
# Scaffold a new lint rule, like ruff's add_rule.py or clippy's `cargo dev new_lint`:
#
#   scripts/new-rule.sh [--root DIR] ID FAMILY
#
#   ID      the public rule id, kebab-case, e.g. `k8s-service-port-unnamed`
#   FAMILY  k8s | haproxy | nginx | controller | chain (the rule's `Domain` and fixture format)
#
# It creates
#   kubegap-core/src/rules/<id_with_underscores>.rs   the rule, with its doc skeleton
#   testdata/rules/<ID>/invalid.<ext>, valid.<ext>      the fixture folder
# and inserts, each at its sorted place,
#   `mod <id>;` and the `RULES` line in kubegap-core/src/rules/mod.rs
#   the test line in the `rule_tests!` list of kubegap-cli/tests/rules.rs
#
# The new rule compiles at once; its tests fail until the rule is written (the invalid fixture
# expects a finding, the docs need evidence). `--root DIR` edits a copy of the repository
# instead (kubegap-cli/tests/rules.rs runs the script that way, so it cannot rot).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
if [ "${1:-}" = "--root" ]; then
  root="${2:?--root needs a directory}"
  shift 2
fi
if [ $# -ne 2 ]; then
  echo "usage: scripts/new-rule.sh [--root DIR] ID FAMILY  (FAMILY: k8s, haproxy, nginx, controller, chain)" >&2
  exit 2
fi
id="$1"
family="$2"

die() { echo "new-rule: $*" >&2; exit 1; }

[[ "$id" =~ ^[a-z][a-z0-9]*(-[a-z0-9]+)+$ ]] || die "\`$id\` is not a kebab-case id such as k8s-service-port-unnamed"
case "$family" in
  k8s) domain=Kubernetes; lang=yaml; ext=yaml; prefixes="k8s-" ;;
  haproxy) domain=Haproxy; lang=haproxy; ext=cfg; prefixes="haproxy-" ;;
  nginx) domain=Nginx; lang=nginx; ext=conf; prefixes="nginx-" ;;
  controller) domain=Controller; lang=yaml; ext=yaml; prefixes="controller- ingress- lb- route-" ;;
  chain) domain=Chain; lang=yaml; ext=yaml; prefixes="chain-" ;;
  *) die "unknown family \`$family\` (k8s, haproxy, nginx, controller, chain)" ;;
esac
prefixed=false
for p in $prefixes; do
  case "$id" in "$p"*) prefixed=true ;; esac
done
$prefixed || die "a $family rule id starts with one of: $prefixes (docs/CONTRIBUTING.md, step 1)"

module="${id//-/_}"
const="$(printf '%s' "$module" | tr '[:lower:]' '[:upper:]')"
rule_file="$root/kubegap-core/src/rules/$module.rs"
registry="$root/kubegap-core/src/rules/mod.rs"
tests="$root/kubegap-cli/tests/rules.rs"
fixtures="$root/testdata/rules/$id"

for f in "$registry" "$tests"; do
  [ -f "$f" ] || die "$f is missing"
done
[ ! -e "$rule_file" ] || die "$rule_file already exists"
[ ! -e "$fixtures" ] || die "$fixtures already exists"
grep -q "^    &$module::" "$registry" && die "$id is already registered in $registry"
grep -q "^    $module,\$" "$tests" && die "$id already has a test in $tests"

# Inserts LINE into FILE between the lines matching START and END (exclusive), before the first
# line whose key sorts after KEY. A line's key is its first identifier with `_` read as `-`,
# so the order is the order of rule ids (what the tests check).
insert_sorted() {
  local file="$1" start="$2" end="$3" key="$4" line="$5"
  local tmp="$file.new-rule.tmp"
  LC_ALL=C awk -v start="$start" -v end="$end" -v key="$key" -v line="$line" '
    function keyof(s) {
      sub(/^[ \t]*(mod[ \t]+|&)?/, "", s)
      match(s, /^[a-z0-9_]+/)
      s = substr(s, RSTART, RLENGTH)
      gsub(/_/, "-", s)
      return s
    }
    state == 0 && $0 ~ start { state = 1; print; next }
    state == 1 && $0 ~ end { if (!done) { print line; done = 1 } state = 2; print; next }
    state == 1 && !done && keyof($0) > key { print line; done = 1 }
    { print }
    END { if (!done) exit 3 }
  ' "$file" > "$tmp" || { rm -f "$tmp"; die "could not find the list to edit in $file"; }
  mv "$tmp" "$file"
}

# The registry: `mod` lines (from `use crate::rule::Rule;` to the first `pub use`), then the
# `RULES` list.
insert_sorted "$registry" '^use crate::rule::Rule;$' '^pub use ' "$id" "mod $module;"
insert_sorted "$registry" '^pub static RULES: ' '^[]];$' "$id" "    &$module::$const,"
insert_sorted "$tests" '^rule_tests! [{]$' '^[}]$' "$id" "    $module,"

case "$lang" in
  yaml)
    invalid_example='/// apiVersion: v1
    /// kind: ConfigMap
    /// metadata: {name: example}'
    valid_example="$invalid_example"
    invalid_fixture="# The smallest input where $id must fire; end each such line with \`# expect: $id\`.
apiVersion: v1
kind: ConfigMap
metadata: {name: example} # expect: $id"
    valid_fixture="# Near misses: inputs that look like the invalid ones, where $id must stay silent.
apiVersion: v1
kind: ConfigMap
metadata: {name: example}"
    ;;
  haproxy)
    invalid_example='/// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 30s
    ///     timeout server 30s'
    valid_example="$invalid_example"
    invalid_fixture="# The smallest input where $id must fire; end each such line with \`# expect: $id\`.
defaults
    mode http # expect: $id
    timeout connect 5s
    timeout client 30s
    timeout server 30s"
    valid_fixture="# Near misses: inputs that look like the invalid ones, where $id must stay silent.
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s"
    ;;
  nginx)
    invalid_example='/// events {}
    /// http {
    ///     server { listen 80; }
    /// }'
    valid_example="$invalid_example"
    invalid_fixture="# The smallest input where $id must fire; end each such line with \`# expect: $id\`.
events {}
http {
    server { listen 80; } # expect: $id
}"
    valid_fixture="# Near misses: inputs that look like the invalid ones, where $id must stay silent.
events {}
http {
    server { listen 80; }
}"
    ;;
esac

cat > "$rule_file" <<EOF
//! \`$id\`: TODO one line: the bad pattern this rule finds.

use crate::rule::prelude::*;

declare_rule! {
    /// TODO one sentence: what is wrong (this line is the rule's title in \`kubegap explain\`).
    ///
    /// ## What it does
    /// TODO which objects or directives it reads, and when it fires.
    ///
    /// ## Why is this bad?
    /// TODO what breaks in production, with the incidents listed in \`evidence\`.
    ///
    /// ## Example
    /// \`\`\`$lang,invalid
    $invalid_example
    /// \`\`\`
    ///
    /// Use instead:
    /// \`\`\`$lang,valid
    $valid_example
    /// \`\`\`
    pub static $const = {
        id: "$id",
        severity: Warning,
        domain: $domain,
        summary: "TODO lowercase summary without a final period",
        evidence: &[],
        check: check,
    }
}

fn check(_cx: &Context<'_>, _sink: &mut Sink) {
    // Report with \`sink.report(span, message)\`; say where every number came from
    // (docs/CONTRIBUTING.md, step 3).
}
EOF

mkdir -p "$fixtures"
printf '%s\n' "$invalid_fixture" > "$fixtures/invalid.$ext"
printf '%s\n' "$valid_fixture" > "$fixtures/valid.$ext"

rel() { printf '%s' "${1#"$root"/}"; }
cat <<EOF
created $(rel "$rule_file")
created $(rel "$fixtures")/invalid.$ext, valid.$ext
edited  $(rel "$registry") (mod + RULES), $(rel "$tests") (rule_tests!)
next:
  1. write the rule and its docs; make the fixtures real (docs/CONTRIBUTING.md)
  2. cargo test -p kubegap-cli --test rules $module
  3. INSTA_UPDATE=always cargo test -p kubegap-cli --test rules $module   (then read testdata/rules/$id/snapshots/)
  4. KUBEGAP_BLESS=1 cargo test -p kubegap-core --test generated_docs
EOF
