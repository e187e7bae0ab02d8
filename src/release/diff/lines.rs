//! The line diff helm-diff prints: its own longest-common-subsequence diff (`diffLines` in helm-diff's
//! `diff/lcs.go`, Hirschberg's linear-space split with the tie-breaks of aryann/difflib it replaced), because a
//! different but equally short diff (another LCS, or Myers' algorithm) pairs lines differently and the output
//! would not be helm-diff's byte for byte. Also the distance of each line to the nearest change, from which
//! `--context` elides lines (`calculateDistances`).

/// Which side a line of the diff belongs to (difflib's `DiffType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delta {
    /// On both sides.
    Common,
    /// Only before (removed).
    LeftOnly,
    /// Only after (added).
    RightOnly,
}

/// One line of a diff (difflib's `DiffRecord`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffRecord {
    pub payload: String,
    pub delta: Delta,
}

impl DiffRecord {
    fn new(payload: &str, delta: Delta) -> DiffRecord {
        DiffRecord { payload: payload.to_string(), delta }
    }
}

/// The line diff of two texts (`diffStrings`): split on `\n` (a final newline gives a last empty line, as Go's
/// `strings.Split`), with `strip_trailing_cr` each line's trailing `\r` dropped first.
pub fn diff_strings(before: &str, after: &str, strip_trailing_cr: bool) -> Vec<DiffRecord> {
    let split = |text: &str| -> Vec<String> {
        text.split('\n')
            .map(|line| if strip_trailing_cr { line.strip_suffix('\r').unwrap_or(line) } else { line })
            .map(str::to_string)
            .collect()
    };
    diff_lines(&split(before), &split(after))
}

/// `diffLines`: the common head and tail as they are, Hirschberg's diff between them.
pub fn diff_lines(before: &[String], after: &[String]) -> Vec<DiffRecord> {
    let (start, end) = equal_ends(before, after);
    let mut result: Vec<DiffRecord> = before[..start].iter().map(|line| DiffRecord::new(line, Delta::Common)).collect();
    hirschberg(&before[start..before.len() - end], &after[start..after.len() - end], &mut result);
    result.extend(before[before.len() - end..].iter().map(|line| DiffRecord::new(line, Delta::Common)));
    result
}

/// `numEqualStartAndEndElements`: the lengths of the equal head and of the equal tail (which never reaches
/// into the head: the tail's loop stops one short of it, as upstream's does).
fn equal_ends(before: &[String], after: &[String]) -> (usize, usize) {
    let mut start = 0;
    while start < before.len() && start < after.len() && before[start] == after[start] {
        start += 1;
    }
    let mut end = 0;
    let (mut i, mut j) = (before.len(), after.len());
    // Upstream's `i > start && j > start` on the last indexes (i - 1, j - 1).
    while i > start + 1 && j > start + 1 && before[i - 1] == after[j - 1] {
        i -= 1;
        j -= 1;
        end += 1;
    }
    (start, end)
}

/// `hirschbergDiff`, appending to `out`. Recursion depth is log2 of `before`'s length (it halves each time).
fn hirschberg(before: &[String], after: &[String], out: &mut Vec<DiffRecord>) {
    if before.is_empty() {
        out.extend(after.iter().map(|line| DiffRecord::new(line, Delta::RightOnly)));
        return;
    }
    if after.is_empty() {
        out.extend(before.iter().map(|line| DiffRecord::new(line, Delta::LeftOnly)));
        return;
    }
    if before.len() == 1 {
        single_row(&before[0], after, out);
        return;
    }
    let middle = before.len() / 2;
    let forward = lcs_row(before[..middle].iter(), after.iter());
    let backward = lcs_row(before[middle..].iter().rev(), after.iter().rev());
    // backward[j] of the reversed run is the LCS of before[middle..] with after[len - j..].
    let mut split = 0;
    let mut best: Option<usize> = None;
    for j in 0..=after.len() {
        let score = forward[j] + backward[after.len() - j];
        if best.is_none_or(|best| score > best) {
            best = Some(score);
            split = j;
        }
    }
    hirschberg(&before[..middle], &after[..split], out);
    hirschberg(&before[middle..], &after[split..], out);
}

/// `singleRowDiff`: one line against many, matched at its last occurrence (difflib prefers that), else
/// removed before the added lines.
fn single_row(line: &String, after: &[String], out: &mut Vec<DiffRecord>) {
    match after.iter().rposition(|candidate| candidate == line) {
        Some(found) => {
            out.extend(after[..found].iter().map(|added| DiffRecord::new(added, Delta::RightOnly)));
            out.push(DiffRecord::new(line, Delta::Common));
            out.extend(after[found + 1..].iter().map(|added| DiffRecord::new(added, Delta::RightOnly)));
        }
        None => {
            out.push(DiffRecord::new(line, Delta::LeftOnly));
            out.extend(after.iter().map(|added| DiffRecord::new(added, Delta::RightOnly)));
        }
    }
}

/// `lcsLift`: the last row of the LCS table, `row[j]` the LCS of `a` with the first `j` lines of `b`.
fn lcs_row<'a>(a: impl Iterator<Item = &'a String>, b: impl Iterator<Item = &'a String> + Clone) -> Vec<usize> {
    let width = b.clone().count();
    let mut previous = vec![0; width + 1];
    let mut current = vec![0; width + 1];
    for line in a {
        for (j, other) in b.clone().enumerate() {
            current[j + 1] = if line == other {
                previous[j] + 1
            } else if previous[j + 1] >= current[j] {
                previous[j + 1]
            } else {
                current[j]
            };
        }
        std::mem::swap(&mut previous, &mut current);
        current.iter_mut().for_each(|cell| *cell = 0);
    }
    previous
}

/// `calculateDistances`: how many lines each line is from the nearest change (`usize::MAX` when there is none).
pub fn distances(records: &[DiffRecord]) -> Vec<usize> {
    let mut distances = vec![usize::MAX; records.len()];
    let mut change: Option<usize> = None;
    for (i, record) in records.iter().enumerate() {
        if record.delta != Delta::Common {
            change = Some(i);
        }
        if let Some(change) = change {
            distances[i] = i - change;
        }
    }
    change = None;
    for (i, record) in records.iter().enumerate().rev() {
        if record.delta != Delta::Common {
            change = Some(i);
        }
        if let Some(change) = change {
            distances[i] = distances[i].min(change - i);
        }
    }
    distances
}

/// How many lines of a diff are changes (`actualChanges`).
pub fn changed_lines(records: &[DiffRecord]) -> usize {
    records.iter().filter(|record| record.delta != Delta::Common).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(records: &[DiffRecord]) -> String {
        records
            .iter()
            .map(|record| {
                let sign = match record.delta {
                    Delta::Common => ' ',
                    Delta::LeftOnly => '-',
                    Delta::RightOnly => '+',
                };
                format!("{sign}{}\n", record.payload)
            })
            .collect()
    }

    /// Inputs where two diffs are equally short: the pairing follows upstream's tie-breaks (the first best
    /// split, a single line matched at its last occurrence, the equal tail never reaching into the head).
    #[test]
    fn pairs_lines_as_helm_diff_does() {
        let cases: [(&str, &str, &str); 4] = [
            ("a\nb\nc", "a\nc", " a\n-b\n c\n"),
            ("a\nb", "b\na", "-a\n b\n+a\n"),
            ("x\ny\nz", "a\nb", "-x\n-y\n-z\n+a\n+b\n"),
            ("a\nb\na", "a", " a\n-b\n-a\n"),
        ];
        for (before, after, expected) in cases {
            assert_eq!(shown(&diff_strings(before, after, false)), expected, "{before:?} -> {after:?}");
        }
    }

    #[test]
    fn distances_count_to_the_nearest_change() {
        let records = diff_strings("a\nb\nc\nd\ne", "a\nb\nX\nd\ne", false);
        assert_eq!(distances(&records), vec![2, 1, 0, 0, 1, 2]);
        assert_eq!(distances(&diff_strings("a", "a", false)), vec![usize::MAX]);
    }
}
