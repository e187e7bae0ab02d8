//! Ports of huandu/xstrings v1.5.0 (convert.go) for Sprig's `snakecase`, `kebabcase`, `camelcase` (which is
//! xstrings' `ToPascalCase` since Sprig 3.3) and `shuffle`: the word splitter `nextWord` with its word types and
//! the rules for numbers between words ("HTTP20xOK" → "http_20x_ok").

use std::string::String;
use std::vec::Vec;

use berth_go::strings::{is_letter, is_number, is_punct, is_space, is_upper, to_lower, to_upper};

/// xstrings' `isAlphabet`: a letter that is not a CJK ideograph.
fn is_alphabet(c: char) -> bool {
    if !is_letter(c) {
        return false;
    }
    !matches!(c as u32, 0x4E00..=0x9FCC | 0x3400..=0x4D85 | 0x20000..=0x2B81D)
}

fn is_connector(c: char) -> bool {
    c == '-' || c == '_' || is_space(c)
}

/// xstrings' `toCamelCase(str, true)`.
pub(crate) fn to_pascal_case(s: &str) -> String {
    let mut chars = s.chars();
    let mut out = String::with_capacity(s.len());
    let mut first_upper = false;
    let mut r0 = None;
    // Leading connectors are kept.
    for c in chars.by_ref() {
        if !is_connector(c) {
            first_upper = is_upper(c);
            r0 = Some(to_upper(c));
            break;
        }
        out.push(c);
    }
    let Some(mut r0) = r0 else {
        return out;
    };
    for c in chars {
        let r1 = r0;
        r0 = c;
        if is_connector(r0) && is_connector(r1) {
            out.push(r1);
            continue;
        }
        if is_connector(r1) {
            first_upper = is_upper(r0);
            r0 = to_upper(r0);
        } else {
            if first_upper {
                if is_upper(r0) {
                    r0 = to_lower(r0);
                } else {
                    first_upper = false;
                }
            }
            out.push(r1);
        }
    }
    out.push(r0);
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Word {
    Invalid,
    Number,
    UpperCase,
    Alphabet,
    Connector,
    Punct,
    Other,
}

/// xstrings' `nextWord`: the type and text of the next word and what remains. (Strings here are valid UTF-8, so
/// `nextValidRune` never skips anything.)
fn next_word(s: &str) -> (Word, &str, &str) {
    let Some(first) = s.chars().next() else {
        return (Word::Invalid, "", "");
    };
    let mut end = first.len_utf8();
    // Extends the word over the following runes that satisfy `keep`.
    let take_while = |end: &mut usize, keep: &dyn Fn(char) -> bool| {
        for c in s[*end..].chars() {
            if !keep(c) {
                break;
            }
            *end += c.len_utf8();
        }
    };
    let word = if is_connector(first) {
        take_while(&mut end, &is_connector);
        Word::Connector
    } else if is_punct(first) {
        take_while(&mut end, &is_punct);
        Word::Punct
    } else if is_upper(first) {
        match s[end..].chars().next() {
            Some(next) if is_upper(next) => {
                // "HTTPStatus" splits as "HTTP" and "Status": the last capital starts the next word when a
                // letter follows it.
                let mut last_start = end;
                let mut last_len = 0;
                let mut stop_char = None;
                for (i, c) in s[end..].char_indices() {
                    if !is_upper(c) {
                        stop_char = Some(c);
                        break;
                    }
                    last_start = end + i;
                    last_len = c.len_utf8();
                }
                let mut word_end = last_start + last_len;
                if let Some(c) = stop_char
                    && is_alphabet(c)
                {
                    word_end -= last_len;
                }
                end = word_end;
            }
            Some(next) if is_alphabet(next) => {
                end += next.len_utf8();
                take_while(&mut end, &|c| is_alphabet(c) && !is_upper(c));
            }
            _ => {}
        }
        Word::UpperCase
    } else if is_alphabet(first) {
        take_while(&mut end, &|c| is_alphabet(c) && !is_upper(c));
        Word::Alphabet
    } else if is_number(first) {
        take_while(&mut end, &is_number);
        Word::Number
    } else {
        take_while(&mut end, &|c| !(is_connector(c) || is_alphabet(c) || is_number(c) || is_punct(c)));
        Word::Other
    };
    (word, &s[..end], &s[end..])
}

/// xstrings' `toLower(buf, wt, str, connector)`.
fn push_lower(out: &mut String, word: Word, text: &str, connector: char) {
    if word != Word::UpperCase && word != Word::Connector {
        out.push_str(text);
        return;
    }
    for c in text.chars() {
        if is_connector(c) {
            out.push(connector);
        } else if is_upper(c) {
            out.push(to_lower(c));
        } else {
            out.push(c);
        }
    }
}

/// xstrings' `camelCaseToLowerCase`: `ToSnakeCase` with '_', `ToKebabCase` with '-'.
pub(crate) fn camel_case_to_lower_case(s: &str, connector: char) -> String {
    if s.is_empty() {
        return String::new();
    }
    let mut out = String::with_capacity(s.len() + s.len() / 2);
    let (mut wt, mut word, mut remaining) = next_word(s);
    while !remaining.is_empty() {
        if wt != Word::Connector {
            push_lower(&mut out, wt, word, connector);
        }
        let prev = wt;
        let last = word;
        (wt, word, remaining) = next_word(remaining);
        match prev {
            Word::Number => {
                while wt == Word::Alphabet || wt == Word::Number {
                    push_lower(&mut out, wt, word, connector);
                    (wt, word, remaining) = next_word(remaining);
                }
                if wt != Word::Invalid && wt != Word::Punct && wt != Word::Connector {
                    out.push(connector);
                }
            }
            Word::Connector => push_lower(&mut out, prev, last, connector),
            Word::Punct => {}
            _ => {
                if wt != Word::Number {
                    if wt != Word::Connector && wt != Word::Punct {
                        out.push(connector);
                    }
                    continue;
                }
                if remaining.is_empty() {
                    continue;
                }
                let last = word;
                (wt, word, remaining) = next_word(remaining);
                // A number is part of the previous word ("Bld4Floor" → "bld4_floor")...
                if wt != Word::Alphabet {
                    push_lower(&mut out, Word::Number, last, connector);
                    if wt != Word::Connector && wt != Word::Punct {
                        out.push(connector);
                    }
                    continue;
                }
                // ...unless lower-case letters follow it ("HTTP2xx" → "http_2xx").
                out.push(connector);
                push_lower(&mut out, Word::Number, last, connector);
                while wt == Word::Alphabet || wt == Word::Number {
                    push_lower(&mut out, wt, word, connector);
                    (wt, word, remaining) = next_word(remaining);
                }
                if wt != Word::Invalid && wt != Word::Connector && wt != Word::Punct {
                    out.push(connector);
                }
            }
        }
    }
    push_lower(&mut out, wt, word, connector);
    out
}

/// xstrings' `Shuffle`: a Fisher-Yates shuffle of the runes.
pub(crate) fn shuffle(s: &str, mut random_below: impl FnMut(usize) -> usize) -> String {
    let mut runes: Vec<char> = s.chars().collect();
    for i in (1..runes.len()).rev() {
        let j = random_below(i + 1);
        runes.swap(i, j);
    }
    runes.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_matches_xstrings_samples() {
        let cases = [
            ("FirstName", "first_name"),
            ("HTTPServer", "http_server"),
            ("NoHTTPS", "no_https"),
            ("GO_PATH", "go_path"),
            ("GO PATH", "go_path"),
            ("GO-PATH", "go_path"),
            ("http2xx", "http_2xx"),
            ("HTTP20xOK", "http_20x_ok"),
            ("Duration2m3s", "duration_2m3s"),
            ("Bld4Floor3rd", "bld4_floor_3rd"),
        ];
        for (input, want) in cases {
            assert_eq!(camel_case_to_lower_case(input, '_'), want, "{input}");
        }
        assert_eq!(camel_case_to_lower_case("HTTPServer", '-'), "http-server");
    }

    #[test]
    fn pascal_case_matches_xstrings_samples() {
        let cases = [
            ("some_words", "SomeWords"),
            ("http_server", "HttpServer"),
            ("no_https", "NoHttps"),
            ("_complex__case_", "_Complex_Case_"),
            ("some words", "SomeWords"),
            ("GOLANG_IS_GREAT", "GolangIsGreat"),
            ("a", "A"),
            ("", ""),
        ];
        for (input, want) in cases {
            assert_eq!(to_pascal_case(input), want, "{input}");
        }
    }
}
