//! Text a server chose (a registry's error message, a token service's realm, a repository's answer), made safe to
//! show: every control character is written as an escape (`\u{1b}`), so no terminal escape sequence (a window
//! title, a cleared screen, a moved cursor), carriage return, backspace or bidirectional override from a server
//! reaches the user's terminal or forges another line of berth's output. The one function every such text goes
//! through before it is put into a message. Pure.

/// Unicode's bidirectional embeddings, overrides and isolates: they reorder what the terminal shows without being
/// control characters.
const BIDIRECTIONAL: &[char] = &[
    '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}',
    '\u{2068}', '\u{2069}',
];

/// `text` with its C0 and C1 control characters, DEL and bidirectional formatting characters escaped (`\n`, `\r`,
/// `\t` by name, the others as `\u{hex}`); everything else as it is.
pub fn escape_controls(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

fn needs_escape(c: char) -> bool {
    c.is_control() || BIDIRECTIONAL.contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_controls_are_escaped_and_text_is_kept() {
        let table = [
            ("plain text: ok", "plain text: ok"),
            ("\u{1b}]0;pwned\u{7}title", "\\u{1b}]0;pwned\\u{7}title"),
            ("\u{1b}[2J\u{1b}[Hclear", "\\u{1b}[2J\\u{1b}[Hclear"),
            ("fake\rline\u{8}\u{8}", "fake\\rline\\u{8}\\u{8}"),
            ("two\nlines\tand tab", "two\\nlines\\tand tab"),
            ("c1 \u{9b}31m csi", "c1 \\u{9b}31m csi"),
            ("del \u{7f}", "del \\u{7f}"),
            ("rtl \u{202e}gnp.exe", "rtl \\u{202e}gnp.exe"),
            ("unicode kept: ⎈ é 中", "unicode kept: ⎈ é 中"),
        ];
        for (input, want) in table {
            assert_eq!(escape_controls(input), want, "{input:?}");
        }
    }

    #[test]
    fn no_escaped_text_holds_a_control_character() {
        let every: String = (0u32..0x300).filter_map(char::from_u32).collect();
        let shown = escape_controls(&every);
        assert!(!shown.chars().any(needs_escape), "{shown:?}");
    }
}
