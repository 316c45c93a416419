//! "Did you mean …?" for unknown names (rule ids, configuration keys, presets).

/// Edit distance (insertions, deletions, substitutions and adjacent transpositions) between two
/// strings, counted in characters.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev2: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(prev2[j - 2] + 1);
            }
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The candidate closest to `word`, if one is close enough to be a likely typo: within an edit
/// distance of a third of the word's length (at least 1, at most 4), or a candidate that
/// contains the word or that the word contains (`service-target-port` → the full id). Ties
/// go to the first candidate in the given order, so the answer is deterministic.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).clamp(1, 4);
    let mut best: Option<(usize, &'a str)> = None;
    let mut containing: Option<&'a str> = None;
    for candidate in candidates {
        let d = distance(word, candidate);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, candidate));
        }
        if containing.is_none()
            && word.len() >= 4
            && (candidate.contains(word) || word.contains(candidate))
        {
            containing = Some(candidate);
        }
    }
    best.map(|(_, c)| c).or(containing)
}

/// ` (did you mean `x`?)` or an empty string.
pub fn hint<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    match did_you_mean(word, candidates) {
        Some(c) => format!(" (did you mean `{c}`?)"),
        None => String::new(),
    }
}

/// The did-you-mean hint for an unknown rule id.
pub fn rule_hint(id: &str) -> String {
    hint(
        id,
        crate::rules::RULES
            .iter()
            .map(|r| r.id)
            .chain(crate::rules::DIFF_CHECKS.iter().map(|(r, _)| r.id)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_the_rule() {
        assert_eq!(distance("k8s-no-pdbb", "k8s-no-pdb"), 1);
        assert_eq!(distance("ab", "ba"), 1);
        assert_eq!(
            did_you_mean(
                "k8s-service-targetport-missing",
                crate::rules::RULES.iter().map(|r| r.id)
            ),
            Some("k8s-service-target-port-missing")
        );
        assert_eq!(rule_hint("k8s-no-pdbb"), " (did you mean `k8s-no-pdb`?)");
        assert_eq!(rule_hint("foo"), "");
        assert_eq!(
            did_you_mean("ignor", ["select", "ignore", "severity"]),
            Some("ignore")
        );
    }
}
