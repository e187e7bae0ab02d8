//! dyff's rename detection (`DetectRenames`, which helm-diff turns on with `--find-renames`): gonvenience/idem
//! v0.0.3, git's content similarity as go-git and JGit compute it (`rename.go`, `index.go`). Each removed and each
//! added document is its yaml.v3 rendering (`RenameCandidate.marshal`); every pair whose sizes are close enough is
//! scored by the lines (or 64-byte blocks) they share, with a little weight on the similarity of their names, and
//! pairs scoring 60 or more are taken best first, each document at most once. More than 50 removed or added
//! documents turn detection off (`DefaultDetectOptions`).

use std::collections::HashMap;

/// `DefaultDetectOptions.RenameScore`.
const RENAME_SCORE: u64 = 60;
/// `DefaultDetectOptions.RenameLimit`.
const RENAME_LIMIT: usize = 50;

/// A removed or added document: its name (`apiVersion/kind/namespace/name`) and its yaml.v3 text.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub name: String,
    pub content: Vec<u8>,
}

/// `detectContentRenames`: the renamed pairs (index of the removed, index of the added document) in the order
/// idem marks them (`MarkAsRename`), highest score first.
pub fn detect(deleted: &[Candidate], added: &[Candidate]) -> Vec<(usize, usize)> {
    if deleted.is_empty() || added.is_empty() || deleted.len().max(added.len()) > RENAME_LIMIT {
        return Vec::new();
    }
    let indices: Vec<SimilarityIndex> = added.iter().map(|candidate| SimilarityIndex::of(&candidate.content)).collect();
    let mut matrix = Vec::new();
    for (deleted_index, source) in deleted.iter().enumerate() {
        let index = SimilarityIndex::of(&source.content);
        for (added_index, destination) in added.iter().enumerate() {
            // `Size() + 1` each, as idem counts them.
            let (source_size, destination_size) =
                (source.content.len() as u64 + 1, destination.content.len() as u64 + 1);
            if source_size.min(destination_size) * 100 / source_size.max(destination_size) < RENAME_SCORE {
                continue;
            }
            let content_score = index.score(&indices[added_index], 10_000);
            let name_score = name_similarity(source.name.as_bytes(), destination.name.as_bytes()) * 100;
            let score = (content_score * 99 + name_score) / 10_000;
            if score >= RENAME_SCORE {
                matrix.push((score, added_index, deleted_index));
            }
        }
    }
    // `sort.Stable` by score, then added, then deleted index; matched best first.
    matrix.sort_unstable();
    let (mut deleted_taken, mut added_taken) = (vec![false; deleted.len()], vec![false; added.len()]);
    let mut pairs = Vec::new();
    for (_, added_index, deleted_index) in matrix.into_iter().rev() {
        if deleted_taken[deleted_index] || added_taken[added_index] {
            continue;
        }
        deleted_taken[deleted_index] = true;
        added_taken[added_index] = true;
        pairs.push((deleted_index, added_index));
    }
    pairs
}

/// `similarityIndex`: per key (the mixed hash of a line or a 64-byte block) the bytes it covers, and the bytes
/// hashed in all. idem keeps these in an open-addressing table sorted before comparing; the sums it computes are
/// those of this map.
struct SimilarityIndex {
    counts: HashMap<u32, u64>,
    hashed: u64,
}

impl SimilarityIndex {
    /// `hashContent`: a block ends after a line break or 64 bytes; a carriage return before a line break is read
    /// but not counted or hashed.
    fn of(content: &[u8]) -> SimilarityIndex {
        let mut index = SimilarityIndex { counts: HashMap::new(), hashed: 0 };
        let mut position = 0;
        while position < content.len() {
            let remaining = content.len() - position;
            let (mut hash, mut counted, mut read) = (5381_u32, 0_u64, 0_usize);
            while let Some(&byte) = content.get(position + read) {
                read += 1;
                if byte == b'\r' && content.get(position + read) == Some(&b'\n') {
                    continue;
                }
                counted += 1;
                if byte == b'\n' {
                    break;
                }
                hash = (hash << 5).wrapping_add(hash).wrapping_add(u32::from(byte));
                if read >= 64 || read >= remaining {
                    break;
                }
            }
            index.hashed += counted;
            // `add`: the key mixed as idem mixes it.
            let key = hash.wrapping_mul(0x9e37_0001) >> 1;
            *index.counts.entry(key).or_default() += counted;
            position += read;
        }
        index
    }

    /// `score`: the bytes both share over the larger count, scaled to `max_score` (`max_score` when both are
    /// empty).
    fn score(&self, other: &SimilarityIndex, max_score: u64) -> u64 {
        let most = self.hashed.max(other.hashed);
        if most == 0 {
            return max_score;
        }
        let common: u64 = self
            .counts
            .iter()
            .filter_map(|(key, count)| other.counts.get(key).map(|other_count| (*count).min(*other_count)))
            .sum();
        common * max_score / most
    }
}

/// `nameSimilarityScore`: how much of the directory part (before the last `/`) agrees from either end, and how
/// much of the file part from its end, 25/25/50.
fn name_similarity(a: &[u8], b: &[u8]) -> u64 {
    let directory_length = |name: &[u8]| name.iter().rposition(|byte| *byte == b'/').map_or(0, |index| index + 1);
    let (a_directory, b_directory) = (directory_length(a), directory_length(b));
    let (directory_min, directory_max) = (a_directory.min(b_directory), a_directory.max(b_directory));
    let same_from_start = (0..directory_min).take_while(|index| a[*index] == b[*index]).count();
    // No directory on either side scores 100 both ways, as does an equal one.
    let (left_to_right, right_to_left) = match (same_from_start * 100).checked_div(directory_max) {
        None | Some(100) => (100, 100),
        Some(left_to_right) => {
            let same_from_end =
                (0..directory_min).take_while(|index| a[a_directory - 1 - index] == b[b_directory - 1 - index]).count();
            (left_to_right, same_from_end * 100 / directory_max)
        }
    };
    let (a_file, b_file) = (a.len() - a_directory, b.len() - b_directory);
    let (file_min, file_max) = (a_file.min(b_file), a_file.max(b_file));
    let same_file_end = (0..file_min).take_while(|index| a[a.len() - 1 - index] == b[b.len() - 1 - index]).count();
    // Go divides by zero here (both names end with `/`); no Kubernetes name does.
    let file_score = same_file_end * 100 / file_max.max(1);
    (((left_to_right + right_to_left) * 25 + file_score * 50) / 100) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// go-git's `TestNameSimilarityScore` (plumbing/object/rename_test.go), the function idem copies.
    #[test]
    fn names_score_as_go_git_scores_them() {
        for (a, b, expected) in [
            ("foo/bar.c", "foo/baz.c", 70),
            ("src/utils/Foo.java", "tests/utils/Foo.java", 64),
            ("foo/bar/baz.py", "README.md", 0),
            ("src/utils/something/foo.py", "src/utils/something/other/foo.py", 69),
            ("src/utils/something/foo.py", "src/utils/yada/foo.py", 63),
            ("src/utils/something/foo.py", "src/utils/something/other/bar.py", 44),
            ("src/utils/something/foo.py", "src/utils/something/foo.py", 100),
        ] {
            assert_eq!(name_similarity(a.as_bytes(), b.as_bytes()), expected, "{a} {b}");
        }
    }

    /// go-git's `SimilarityIndexSuite` (`TestCommonSameFiles`, `TestCommonSameFilesCR`, `TestSimilarity75`,
    /// `TestCommonTotallyDifferentFiles`) and its content rename cases (`TestContentRename_OnePair`,
    /// `..._OneRenameTwoUnrelatedFiles`, `..._SameContentMultipleTimes`, `TestNoRenames_EmptyFile2`).
    #[test]
    fn contents_score_and_pair_as_go_git_does() {
        let score = |a: &str, b: &str| SimilarityIndex::of(a.as_bytes()).score(&SimilarityIndex::of(b.as_bytes()), 100);
        assert_eq!(score("A\nB\nD\nB\n", "A\nB\nD\nB\n"), 100);
        assert_eq!(score("A\r\nB\r\nD\r\nB\r\n", "A\nB\nD\nB\n"), 100);
        assert_eq!(score("A\nB\nC\nD\n", "A\nB\nC\nQ\n"), 75);
        assert_eq!(score("A\n", "D\n"), 0);
        let candidate = |name: &str, content: &str| Candidate { name: name.to_string(), content: content.into() };
        assert_eq!(
            detect(&[candidate("src/A", "foo\nbar\nbaz\nblah\n")], &[candidate("src/A", "foo\nbar\nbaz\nblarg\n")]),
            [(0, 0)]
        );
        assert_eq!(
            detect(
                &[candidate("src/Q", "foo\nbar\nbaz\nblah\n"), candidate("src/H", "completely\nunrelated\ntext\n")],
                &[candidate("src/A", "foo\nbar\nbaz\nblarg\n"), candidate("src/B", "some\nsort\nof\ntext\n")],
            ),
            [(0, 0)]
        );
        assert_eq!(detect(&[candidate("src/Q", "a\na\na\n")], &[candidate("src/A", "a\na\na\na\n")]), [(0, 0)]);
        assert_eq!(detect(&[candidate("src/Q", "blah")], &[candidate("src/A", "")]), []);
    }
}
