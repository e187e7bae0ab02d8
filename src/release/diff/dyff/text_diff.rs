//! The text comparisons dyff's human report makes of two strings: sergi/go-diff's diff-match-patch by line
//! (`DiffLinesToChars`, `DiffMain`, `DiffCharsToLines`) for multi-line text, by character (`DiffMain`) for the
//! highlighted characters of a minor change, and texttheater/golang-levenshtein's distance (`isMinorChange`).
//! The diff is the `diff-match-patch-rs` crate (Google's algorithm as go-diff ports it: common prefix and suffix,
//! half-match, bisection, merge cleanup, a one second deadline), which reads characters as Go reads runes.

use diff_match_patch_rs::{Compat, DiffMatchPatch, Ops};

/// What a run of a diff does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Delete,
    Insert,
    Equal,
}

/// One run of a diff: its operation and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub operation: Operation,
    pub text: String,
}

/// go-diff's `DiffMain(from, to, false)` over the character sequences given; when the crate refuses (it reports
/// an inner slicing error only), the whole of `from` deleted and `to` inserted, which is a correct if coarse diff.
fn diff_main(from: &str, to: &str, decode: impl Fn(&[char]) -> String) -> Vec<Run> {
    let mut engine = DiffMatchPatch::new();
    // `checklines` false, as dyff calls it: no line-mode speedup inside the character diff.
    engine.set_checklines(false);
    match engine.diff_main::<Compat>(from, to) {
        Ok(diffs) => diffs
            .iter()
            .map(|diff| Run {
                operation: match diff.op() {
                    Ops::Delete => Operation::Delete,
                    Ops::Insert => Operation::Insert,
                    Ops::Equal => Operation::Equal,
                },
                text: decode(diff.data()),
            })
            .collect(),
        Err(_) => [(Operation::Delete, from), (Operation::Insert, to)]
            .into_iter()
            .filter(|(_, text)| !text.is_empty())
            .map(|(operation, text)| Run { operation, text: decode(&text.chars().collect::<Vec<_>>()) })
            .collect(),
    }
}

/// `DiffMain(from, to, false)`: a character diff.
pub fn characters(from: &str, to: &str) -> Vec<Run> {
    diff_main(from, to, |characters| characters.iter().collect())
}

/// `DiffLinesToChars` + `DiffMain` + `DiffCharsToLines`: each line (with its `\n`) one symbol, the diff of the
/// symbols, each run given back as its lines.
pub fn lines(from: &str, to: &str) -> Vec<Run> {
    let mut lines: Vec<&str> = vec![""];
    let mut index_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let (mut from_symbols, mut to_symbols) = (String::new(), String::new());
    for (text, symbols) in [(from, &mut from_symbols), (to, &mut to_symbols)] {
        for line in text.split_inclusive('\n') {
            let index = *index_of.entry(line).or_insert_with(|| {
                lines.push(line);
                lines.len() - 1
            });
            match symbol(index) {
                Some(character) => symbols.push(character),
                // More distinct lines than Unicode has scalar values (go-diff panics here): the texts as wholes.
                None => return whole(from, to),
            }
        }
    }
    diff_main(&from_symbols, &to_symbols, |characters| {
        characters
            .iter()
            .filter_map(|character| index(*character).and_then(|index| lines.get(index)))
            .copied()
            .collect()
    })
}

/// The whole of `from` deleted and `to` inserted.
fn whole(from: &str, to: &str) -> Vec<Run> {
    [(Operation::Delete, from), (Operation::Insert, to)]
        .into_iter()
        .filter(|(_, text)| !text.is_empty())
        .map(|(operation, text)| Run { operation, text: text.to_string() })
        .collect()
}

/// The character standing for line `index` (`intToRune`: any one-to-one mapping gives the same diff, which
/// compares symbols for equality only); the surrogate range is skipped.
fn symbol(index: usize) -> Option<char> {
    let index = u32::try_from(index).ok()?;
    let code = if index < 0xD800 { index } else { index.checked_add(0x800)? };
    char::from_u32(code)
}

/// The line index a character stands for (`runeToInt`).
fn index(character: char) -> Option<usize> {
    let code = u32::from(character);
    let index = if code < 0xD800 { code } else { code - 0x800 };
    usize::try_from(index).ok()
}

/// The most cells of the distance table `is_minor_change` fills; beyond, the change counts as not minor (which
/// changes its colours only, never its text).
const MAX_DISTANCE_CELLS: usize = 4_000_000;

/// `isMinorChange`: a Levenshtein distance (insertion and deletion 1, substitution 2, over runes) of at most
/// four, or below `threshold` relative to the shorter string's length in bytes.
pub fn is_minor_change(from: &str, to: &str, threshold: f64) -> bool {
    let (from_chars, to_chars): (Vec<char>, Vec<char>) = (from.chars().collect(), to.chars().collect());
    if from_chars.len().saturating_mul(to_chars.len()) > MAX_DISTANCE_CELLS {
        return false;
    }
    let distance = levenshtein(&from_chars, &to_chars);
    if distance <= 4 {
        return true;
    }
    let reference = from.len().min(to.len());
    // Go divides floats: by zero it is +Inf or NaN, neither below the threshold.
    (distance as f64) / (reference as f64) < threshold
}

/// golang-levenshtein's `DistanceForStrings` with `DefaultOptions` (substitution costs two).
fn levenshtein(from: &[char], to: &[char]) -> usize {
    let mut previous: Vec<usize> = (0..=to.len()).collect();
    let mut current = vec![0; to.len() + 1];
    for (row, from_char) in from.iter().enumerate() {
        current[0] = row + 1;
        for (column, to_char) in to.iter().enumerate() {
            let substitution = previous[column] + if from_char == to_char { 0 } else { 2 };
            current[column + 1] = substitution.min(previous[column + 1] + 1).min(current[column] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[to.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(diff: &[Run]) -> Vec<(Operation, &str)> {
        diff.iter().map(|run| (run.operation, run.text.as_str())).collect()
    }

    /// go-diff v1.4.0 `TestDiffMain` (diffmatchpatch/diff_test.go): its first table (default timeout) and the
    /// cases of its second (timeout off) where half-match finds nothing, so the timeout does not change them.
    #[test]
    fn character_diffs_are_go_diffs() {
        use Operation::{Delete, Equal, Insert};
        type Case<'a> = (&'a str, &'a str, Vec<(Operation, &'a str)>);
        let cases: Vec<Case> = vec![
            ("", "", vec![]),
            ("abc", "abc", vec![(Equal, "abc")]),
            ("abc", "ab123c", vec![(Equal, "ab"), (Insert, "123"), (Equal, "c")]),
            ("a123bc", "abc", vec![(Equal, "a"), (Delete, "123"), (Equal, "bc")]),
            ("abc", "a123b456c", vec![(Equal, "a"), (Insert, "123"), (Equal, "b"), (Insert, "456"), (Equal, "c")]),
            ("a123b456c", "abc", vec![(Equal, "a"), (Delete, "123"), (Equal, "b"), (Delete, "456"), (Equal, "c")]),
            ("a", "b", vec![(Delete, "a"), (Insert, "b")]),
            (
                "Apples are a fruit.",
                "Bananas are also fruit.",
                vec![(Delete, "Apple"), (Insert, "Banana"), (Equal, "s are a"), (Insert, "lso"), (Equal, " fruit.")],
            ),
            (
                "ax\t",
                "\u{0680}x\u{0000}",
                vec![(Delete, "a"), (Insert, "\u{0680}"), (Equal, "x"), (Delete, "\t"), (Insert, "\u{0000}")],
            ),
            (
                "1ayb2",
                "abxab",
                vec![(Delete, "1"), (Equal, "a"), (Delete, "y"), (Equal, "b"), (Delete, "2"), (Insert, "xab")],
            ),
            ("abcy", "xaxcxabc", vec![(Insert, "xaxcx"), (Equal, "abc"), (Delete, "y")]),
        ];
        for (from, to, expected) in cases {
            assert_eq!(runs(&characters(from, to)), expected, "{from:?} → {to:?}");
        }
    }

    /// The line mode gives whole lines back, a run all its lines, the last line without its break its own symbol
    /// (go-diff `TestDiffLinesToChars`' inputs).
    #[test]
    fn line_diffs_give_whole_lines() {
        use Operation::{Delete, Equal, Insert};
        let diff = lines("alpha\nbeta\nalpha\n", "beta\nalpha\nbeta\n");
        let side =
            |skipped: Operation| diff.iter().filter(move |run| run.operation != skipped).map(|run| run.text.as_str());
        assert_eq!(side(Insert).collect::<String>(), "alpha\nbeta\nalpha\n");
        assert_eq!(side(Delete).collect::<String>(), "beta\nalpha\nbeta\n");
        assert!(diff.iter().all(|run| run.text.ends_with('\n')), "{diff:?}");
        assert_eq!(runs(&lines("a\nb", "a\nc")), vec![(Equal, "a\n"), (Delete, "b"), (Insert, "c")]);
        assert_eq!(runs(&lines("", "x\n")), vec![(Insert, "x\n")]);
    }

    /// golang-levenshtein v1.0.1 `testCases` with `DefaultOptions` (levenshtein/levenshtein_test.go).
    #[test]
    fn distances_count_a_substitution_twice() {
        let distance = |a: &str, b: &str| levenshtein(&a.chars().collect::<Vec<_>>(), &b.chars().collect::<Vec<_>>());
        for (from, to, expected) in [
            ("", "a", 1),
            ("a", "aa", 1),
            ("a", "aaa", 2),
            ("", "", 0),
            ("a", "b", 2),
            ("aaa", "aba", 2),
            ("aaa", "ab", 3),
            ("a", "a", 0),
            ("ab", "ab", 0),
            ("a", "", 1),
            ("aa", "a", 1),
            ("aaa", "a", 2),
            ("kitten", "sitting", 5),
        ] {
            assert_eq!(distance(from, to), expected, "{from} → {to}");
        }
    }

    /// dyff's `assets/colors` goldens: `v1.19.0` → `v1.20.0` is minor (highlighted), two SHA-1 sums are not.
    #[test]
    fn minor_changes_are_dyffs() {
        assert!(is_minor_change("v1.19.0", "v1.20.0", 0.1));
        assert!(!is_minor_change(
            "77186faf9dc9606e633ef27186ae09ba8599f4cb",
            "c56405524d92b34af2b063e7d7ee44a7465b7697",
            0.1
        ));
    }
}
