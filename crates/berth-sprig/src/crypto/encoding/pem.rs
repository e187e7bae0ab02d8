//! Go's encoding/pem: `Encode` (base64 lines of 64 characters, a newline after every line) and `Decode`
//! (the first well-formed block anywhere in the input, headers skipped, spaces and tabs in the body
//! ignored, malformed candidates passed over). A port of Go's `pem.Decode` and `pem.Encode`.

use super::base64;

const PEM_START: &[u8] = b"\n-----BEGIN ";
const PEM_END: &[u8] = b"\n-----END ";
const PEM_END_OF_LINE: &[u8] = b"-----";
const LINE_LENGTH: usize = 64;

/// A decoded PEM block: its type and the bytes of its body (headers are parsed but unused by Sprig).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    pub(crate) kind: String,
    pub(crate) bytes: Vec<u8>,
}

/// `pem.EncodeToMemory` of a block without headers.
pub(crate) fn encode(kind: &str, bytes: &[u8]) -> String {
    let body = base64::encode(bytes);
    let mut out = String::with_capacity(body.len() + body.len() / LINE_LENGTH + 2 * kind.len() + 40);
    out.push_str("-----BEGIN ");
    out.push_str(kind);
    out.push_str("-----\n");
    for line in body.as_bytes().chunks(LINE_LENGTH) {
        // The body is base64, hence ASCII: every chunk boundary is a character boundary.
        out.push_str(core::str::from_utf8(line).unwrap_or_default());
        out.push('\n');
    }
    out.push_str("-----END ");
    out.push_str(kind);
    out.push_str("-----\n");
    out
}

/// `pem.Decode`: the first block, or `None` when there is none.
pub(crate) fn decode(data: &[u8]) -> Option<Block> {
    let mut rest = data;
    // Where the next "\n-----END " at or after `rest` starts, in `data` offsets; searched again only when
    // `rest` has moved past it, which keeps a run of malformed BEGIN lines linear instead of quadratic.
    let mut end_search: Option<(usize, Option<usize>)> = None;
    loop {
        if let Some(after) = rest.strip_prefix(&PEM_START[1..]) {
            rest = after;
        } else if let Some(index) = find(rest, PEM_START) {
            rest = &rest[index + PEM_START.len()..];
        } else {
            return None;
        }

        let (type_line, after_type) = get_line(rest);
        rest = after_type;
        let Some(kind) = type_line.strip_suffix(PEM_END_OF_LINE) else {
            continue;
        };

        let mut has_headers = false;
        loop {
            if rest.is_empty() {
                return None;
            }
            let (line, next) = get_line(rest);
            if !line.contains(&b':') {
                break;
            }
            has_headers = true;
            rest = next;
        }

        let (end_index, end_trailer_index) = if !has_headers && rest.starts_with(&PEM_END[1..]) {
            (0, PEM_END.len() - 1)
        } else {
            let offset = data.len() - rest.len();
            let found = match end_search {
                Some((searched_from, found)) if searched_from <= offset && found.is_none_or(|at| at >= offset) => found,
                _ => {
                    let found = find(rest, PEM_END).map(|index| index + offset);
                    end_search = Some((offset, found));
                    found
                }
            };
            match found {
                Some(at) => (at - offset, at - offset + PEM_END.len()),
                // No END line anywhere after this BEGIN: no later BEGIN can have one either.
                None => return None,
            }
        };

        let end_trailer = &rest[end_trailer_index..];
        let end_trailer_len = kind.len() + PEM_END_OF_LINE.len();
        if end_trailer.len() < end_trailer_len {
            continue;
        }
        let (trailer, rest_of_end_line) = end_trailer.split_at(end_trailer_len);
        if !trailer.starts_with(kind) || !trailer.ends_with(PEM_END_OF_LINE) {
            continue;
        }
        if !get_line(rest_of_end_line).0.is_empty() {
            continue;
        }

        // A later BEGIN line inside the body would make Go's base64 decoding fail on its dashes; skipping
        // to it directly gives the same result without decoding the rest of the input once per BEGIN.
        if find(&rest[..end_index], PEM_START).is_some() {
            continue;
        }
        let body: Vec<u8> = rest[..end_index].iter().copied().filter(|&byte| byte != b' ' && byte != b'\t').collect();
        let Ok(bytes) = base64::decode(&body) else {
            continue;
        };
        return Some(Block { kind: String::from_utf8_lossy(kind).into_owned(), bytes });
    }
}

/// Go's `getLine`: the first `\n`- or `\r\n`-terminated line without trailing spaces and tabs, and what
/// follows it.
fn get_line(data: &[u8]) -> (&[u8], &[u8]) {
    let (mut end, next) = match data.iter().position(|&byte| byte == b'\n') {
        Some(index) => (index, index + 1),
        None => (data.len(), data.len()),
    };
    if next != end && end > 0 && data[end - 1] == b'\r' {
        end -= 1;
    }
    let mut line = &data[..end];
    while let Some((&last, init)) = line.split_last() {
        if last != b' ' && last != b'\t' {
            break;
        }
        line = init;
    }
    (line, &data[next..])
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_lines_of_64_with_a_trailing_newline() {
        let pem = encode("TEST", &[7u8; 100]);
        let lines: Vec<&str> = pem.lines().collect();
        assert_eq!(lines.first(), Some(&"-----BEGIN TEST-----"));
        // 100 bytes are 136 base64 characters: two full lines and one of 8.
        assert_eq!(lines.len(), 5);
        assert_eq!((lines[1].len(), lines[2].len(), lines[3].len()), (64, 64, 8));
        assert_eq!(lines.last(), Some(&"-----END TEST-----"));
        assert!(pem.ends_with("-----\n"));
        assert_eq!(encode("EMPTY", &[]), "-----BEGIN EMPTY-----\n-----END EMPTY-----\n");
        assert_eq!(decode(pem.as_bytes()).map(|block| block.bytes), Some(vec![7u8; 100]));
    }

    #[test]
    fn decodes_as_go_does() {
        type Expected<'a> = Option<(&'a str, &'a [u8])>;
        let cases: [(&str, Expected); 10] = [
            ("-----BEGIN A-----\nYWJj\n-----END A-----\n", Some(("A", b"abc"))),
            ("junk\n-----BEGIN A-----\nYW Jj\t\n-----END A-----", Some(("A", b"abc"))),
            ("-----BEGIN A-----\r\nYWJj\r\n-----END A-----  \r\n", Some(("A", b"abc"))),
            ("-----BEGIN A-----\nProc-Type: 4\n\nYWJj\n-----END A-----\n", Some(("A", b"abc"))),
            ("-----BEGIN A-----\n-----END A-----\n", Some(("A", b""))),
            ("-----BEGIN A-----\nYWJj\n-----END B-----\n", None),
            ("-----BEGIN A-----\nYWJ!\n-----END A-----\n-----BEGIN B-----\nYQ==\n-----END B-----\n", Some(("B", b"a"))),
            ("-----BEGIN A----\nYWJj\n-----END A-----\n", None),
            ("-----BEGIN A-----\nYWJj\n-----END A-----x\n", None),
            ("no pem here", None),
        ];
        for (input, expected) in cases {
            let actual = decode(input.as_bytes());
            let actual = actual.as_ref().map(|block| (block.kind.as_str(), block.bytes.as_slice()));
            assert_eq!(actual, expected, "{input:?}");
        }
    }

    #[test]
    fn many_broken_begin_lines_stay_fast() {
        let mut input = "-----BEGIN A-----\n!\n".repeat(20_000);
        input.push_str("\n-----END B-----\n");
        assert_eq!(decode(input.as_bytes()), None);
        // The same with the END line matching every BEGIN: each body but the last holds a later BEGIN.
        let mut input = "-----BEGIN A-----\n!\n".repeat(20_000);
        input.push_str("-----BEGIN A-----\nYQ==\n-----END A-----\n");
        assert_eq!(decode(input.as_bytes()).map(|block| block.bytes), Some(b"a".to_vec()));
    }
}
