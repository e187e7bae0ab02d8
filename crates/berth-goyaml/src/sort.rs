//! Map key order of the go-yaml encoders: `keyList.Less` of yaml.v2 and yaml.v3 (letters after other characters,
//! digit runs compared as numbers) applied through Go's `sort.Sort` (pdqsort). `Less` is not a total order for
//! some key sets (leading zeros next to letters); Go then prints them in an order that varies with map iteration,
//! and this port picks one. pdqsort is ported rather than using `slice::sort_by`, which may panic on such orders.

use std::cmp::Ordering;
use std::sync::LazyLock;

use regex_syntax::hir::{Class, HirKind};

/// The ranges of a Unicode general category, from regex-syntax's tables.
fn category(name: &str) -> Vec<(char, char)> {
    let Ok(hir) = regex_syntax::ParserBuilder::new().build().parse(&format!("\\p{{{name}}}")) else {
        return Vec::new();
    };
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => class.ranges().iter().map(|r| (r.start(), r.end())).collect(),
        _ => Vec::new(),
    }
}

fn in_ranges(ranges: &[(char, char)], c: char) -> bool {
    ranges
        .binary_search_by(|(start, end)| {
            if *end < c {
                Ordering::Less
            } else if *start > c {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        })
        .is_ok()
}

/// `unicode.IsLetter`: general category L.
fn is_letter(c: char) -> bool {
    static LETTERS: LazyLock<Vec<(char, char)>> = LazyLock::new(|| category("L"));
    if c.is_ascii() { c.is_ascii_alphabetic() } else { in_ranges(&LETTERS, c) }
}

/// `unicode.IsDigit`: general category Nd.
fn is_digit(c: char) -> bool {
    static DIGITS: LazyLock<Vec<(char, char)>> = LazyLock::new(|| category("Nd"));
    if c.is_ascii() { c.is_ascii_digit() } else { in_ranges(&DIGITS, c) }
}

/// `keyList.Less` for two string keys; `v3` adds yaml.v3's rule for a letter after a digit run.
pub(crate) fn key_less(a: &str, b: &str, v3: bool) -> bool {
    if a.is_ascii() && b.is_ascii() {
        // Runes are bytes: no need to collect them.
        return less_runes(a.as_bytes(), b.as_bytes(), v3);
    }
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    less_runes(&ar, &br, v3)
}

/// `keyList.Less` over the runes of two strings.
fn less_runes<T: Copy + Into<char>>(a: &[T], b: &[T], v3: bool) -> bool {
    let ar = |i: usize| -> char { a[i].into() };
    let br = |i: usize| -> char { b[i].into() };
    let mut digits = false;
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if ar(i) == br(i) {
            digits = is_digit(ar(i));
            i += 1;
            continue;
        }
        let al = is_letter(ar(i));
        let bl = is_letter(br(i));
        if al && bl {
            return ar(i) < br(i);
        }
        if al || bl {
            return if v3 && digits { al } else { bl };
        }
        let mut an: i64 = 0;
        let mut bn: i64 = 0;
        if ar(i) == '0' || br(i) == '0' {
            let mut j = i;
            while j > 0 && is_digit(ar(j - 1)) {
                j -= 1;
                if ar(j) != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < a.len() && is_digit(ar(ai)) {
            an = an.wrapping_mul(10).wrapping_add(i64::from(ar(ai) as u32) - i64::from(b'0'));
            ai += 1;
        }
        let mut bi = i;
        while bi < b.len() && is_digit(br(bi)) {
            bn = bn.wrapping_mul(10).wrapping_add(i64::from(br(bi) as u32) - i64::from(b'0'));
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar(i) < br(i);
    }
    a.len() < b.len()
}

/// Go's `sort.Sort` over `data` with `less` (pdqsort from Go's sort package).
pub(crate) fn go_sort<T>(data: &mut [T], less: &dyn Fn(&T, &T) -> bool) {
    let n = data.len();
    if n <= 1 {
        return;
    }
    let limit = usize::BITS - n.leading_zeros();
    let mut sorter = Sorter { data, less };
    sorter.pdqsort(0, n, limit as usize);
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Hint {
    Unknown,
    Increasing,
    Decreasing,
}

struct Sorter<'a, T> {
    data: &'a mut [T],
    less: &'a dyn Fn(&T, &T) -> bool,
}

impl<T> Sorter<'_, T> {
    fn less(&self, i: usize, j: usize) -> bool {
        (self.less)(&self.data[i], &self.data[j])
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.data.swap(i, j);
    }

    fn insertion_sort(&mut self, a: usize, b: usize) {
        for i in a + 1..b {
            let mut j = i;
            while j > a && self.less(j, j - 1) {
                self.swap(j, j - 1);
                j -= 1;
            }
        }
    }

    fn sift_down(&mut self, lo: usize, hi: usize, first: usize) {
        let mut root = lo;
        loop {
            let mut child = 2 * root + 1;
            if child >= hi {
                break;
            }
            if child + 1 < hi && self.less(first + child, first + child + 1) {
                child += 1;
            }
            if !self.less(first + root, first + child) {
                return;
            }
            self.swap(first + root, first + child);
            root = child;
        }
    }

    fn heap_sort(&mut self, a: usize, b: usize) {
        let first = a;
        let hi = b - a;
        for i in (0..=(hi.saturating_sub(1)) / 2).rev() {
            self.sift_down(i, hi, first);
        }
        for i in (0..hi).rev() {
            self.swap(first, first + i);
            self.sift_down(0, i, first);
        }
    }

    fn pdqsort(&mut self, mut a: usize, mut b: usize, mut limit: usize) {
        const MAX_INSERTION: usize = 12;
        let mut was_balanced = true;
        let mut was_partitioned = true;
        loop {
            let length = b - a;
            if length <= MAX_INSERTION {
                self.insertion_sort(a, b);
                return;
            }
            if limit == 0 {
                self.heap_sort(a, b);
                return;
            }
            if !was_balanced {
                self.break_patterns(a, b);
                limit -= 1;
            }
            let (mut pivot, mut hint) = self.choose_pivot(a, b);
            if hint == Hint::Decreasing {
                self.reverse_range(a, b);
                pivot = (b - 1) - (pivot - a);
                hint = Hint::Increasing;
            }
            if was_balanced && was_partitioned && hint == Hint::Increasing && self.partial_insertion_sort(a, b) {
                return;
            }
            if a > 0 && !self.less(a - 1, pivot) {
                a = self.partition_equal(a, b, pivot);
                continue;
            }
            let (mid, already_partitioned) = self.partition(a, b, pivot);
            was_partitioned = already_partitioned;
            let (left_len, right_len) = (mid - a, b - mid);
            let balance_threshold = length / 8;
            if left_len < right_len {
                was_balanced = left_len >= balance_threshold;
                self.pdqsort(a, mid, limit);
                a = mid + 1;
            } else {
                was_balanced = right_len >= balance_threshold;
                self.pdqsort(mid + 1, b, limit);
                b = mid;
            }
        }
    }

    fn partition(&mut self, a: usize, b: usize, pivot: usize) -> (usize, bool) {
        self.swap(a, pivot);
        let (mut i, mut j) = (a + 1, b - 1);
        while i <= j && self.less(i, a) {
            i += 1;
        }
        while i <= j && !self.less(j, a) {
            j -= 1;
        }
        if i > j {
            self.swap(j, a);
            return (j, true);
        }
        self.swap(i, j);
        i += 1;
        j -= 1;
        loop {
            while i <= j && self.less(i, a) {
                i += 1;
            }
            while i <= j && !self.less(j, a) {
                j -= 1;
            }
            if i > j {
                break;
            }
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
        self.swap(j, a);
        (j, false)
    }

    fn partition_equal(&mut self, a: usize, b: usize, pivot: usize) -> usize {
        self.swap(a, pivot);
        let (mut i, mut j) = (a + 1, b - 1);
        loop {
            while i <= j && !self.less(a, i) {
                i += 1;
            }
            while i <= j && self.less(a, j) {
                j -= 1;
            }
            if i > j {
                break;
            }
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
        i
    }

    fn partial_insertion_sort(&mut self, a: usize, b: usize) -> bool {
        const MAX_STEPS: usize = 5;
        const SHORTEST_SHIFTING: usize = 50;
        let mut i = a + 1;
        for _ in 0..MAX_STEPS {
            while i < b && !self.less(i, i - 1) {
                i += 1;
            }
            if i == b {
                return true;
            }
            if b - a < SHORTEST_SHIFTING {
                return false;
            }
            self.swap(i, i - 1);
            if i - a >= 2 {
                let mut j = i - 1;
                while j >= 1 {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                    j -= 1;
                }
            }
            if b - i >= 2 {
                let mut j = i + 1;
                while j < b {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                    j += 1;
                }
            }
        }
        false
    }

    fn break_patterns(&mut self, a: usize, b: usize) {
        let length = b - a;
        if length >= 8 {
            let mut random = length as u64;
            let modulus = 1u64 << (u64::BITS - (length as u64).leading_zeros());
            let start = a + (length / 4) * 2 - 1;
            for idx in start..=start + 2 {
                random ^= random << 13;
                random ^= random >> 7;
                random ^= random << 17;
                let mut other = (random & (modulus - 1)) as usize;
                if other >= length {
                    other -= length;
                }
                self.swap(idx, a + other);
            }
        }
    }

    fn choose_pivot(&mut self, a: usize, b: usize) -> (usize, Hint) {
        const SHORTEST_NINTHER: usize = 50;
        const MAX_SWAPS: usize = 4 * 3;
        let l = b - a;
        let mut swaps = 0;
        let mut i = a + l / 4;
        let mut j = a + l / 4 * 2;
        let mut k = a + l / 4 * 3;
        if l >= 8 {
            if l >= SHORTEST_NINTHER {
                i = self.median(i - 1, i, i + 1, &mut swaps);
                j = self.median(j - 1, j, j + 1, &mut swaps);
                k = self.median(k - 1, k, k + 1, &mut swaps);
            }
            j = self.median(i, j, k, &mut swaps);
        }
        match swaps {
            0 => (j, Hint::Increasing),
            MAX_SWAPS => (j, Hint::Decreasing),
            _ => (j, Hint::Unknown),
        }
    }

    fn order2(&self, a: usize, b: usize, swaps: &mut usize) -> (usize, usize) {
        if self.less(b, a) {
            *swaps += 1;
            (b, a)
        } else {
            (a, b)
        }
    }

    fn median(&self, a: usize, b: usize, c: usize, swaps: &mut usize) -> usize {
        let (a, b) = self.order2(a, b, swaps);
        let (b, c) = self.order2(b, c, swaps);
        let (_a, b) = self.order2(a, b, swaps);
        let _ = c;
        b
    }

    fn reverse_range(&mut self, a: usize, b: usize) {
        let (mut i, mut j) = (a, b - 1);
        while i < j {
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_follows_go_yaml() {
        let mut keys = vec!["b", "a10", "a9", "A", "_x", "1", "10", "2", "a", "a01", "a1", "é", "z"];
        go_sort(&mut keys, &|a: &&str, b: &&str| key_less(a, b, false));
        // The order Helm 4.1.4 prints for these keys.
        assert_eq!(keys, vec!["_x", "1", "2", "10", "A", "a", "a1", "a01", "a9", "a10", "b", "z", "é"]);
    }

    #[test]
    fn unicode_categories_follow_go() {
        // Roman numeral twelve is a number letter (Nl), superscript two is No, Arabic-Indic one is Nd.
        assert!(!is_letter('Ⅻ'));
        assert!(!is_digit('²'));
        assert!(is_digit('١'));
        assert!(is_letter('日'));
        assert!(!is_letter('\u{0903}'));
    }

    #[test]
    fn pdqsort_sorts_large_inputs() {
        let mut values: Vec<u64> = (0..1000u64).map(|i| (i * 7919) % 1009).collect();
        go_sort(&mut values, &|a: &u64, b: &u64| a < b);
        assert!(values.windows(2).all(|w| w[0] <= w[1]));
    }
}
