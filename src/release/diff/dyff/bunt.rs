//! gonvenience/bunt v1.4.3 as dyff's report uses it, with helm-diff's setting (`SetColorSettings(ON, ON)` under
//! `--color`, else `OFF, OFF`): a text becomes runes each with its settings (bold, italic, underline, a 24-bit
//! foreground and background; `model.go`), read back from the escape sequences it already holds (`ParseString`),
//! styled (`Style` with `Foreground`, `Bold`, `Italic`, `EachLine`) and written again (`String`): one select
//! graphic rendition sequence wherever the settings change, `\x1b[0m` where they end. With colours off the same
//! reading drops the escape sequences and nothing is written back. Under ON, NO_COLOR and TERM play no part, as in
//! bunt (`UseColors` returns the setting first).

use regex::Regex;
use std::sync::LazyLock;

/// A 24-bit colour (`colorful.Color` as `RGB255` gives it: web colours round-trip exactly).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// The colours dyff names: its own three (`colors.go`) and bunt's web colours (`colors.go`).
pub mod colours {
    use super::Rgb;
    pub const ADDITION_GREEN: Rgb = Rgb(0x58, 0xBF, 0x38);
    pub const MODIFICATION_YELLOW: Rgb = Rgb(0xC7, 0xC4, 0x3F);
    pub const REMOVAL_RED: Rgb = Rgb(0xB9, 0x31, 0x1B);
    pub const LIGHT_GREEN: Rgb = Rgb(0x90, 0xEE, 0x90);
    pub const LIGHT_SALMON: Rgb = Rgb(0xFF, 0xA0, 0x7A);
    pub const LIGHT_STEEL_BLUE: Rgb = Rgb(0xB0, 0xC4, 0xDE);
    pub const FIRE_BRICK: Rgb = Rgb(0xB2, 0x22, 0x22);
    pub const LIGHT_CORAL: Rgb = Rgb(0xF0, 0x80, 0x80);
    pub const DARK_SALMON: Rgb = Rgb(0xE9, 0x96, 0x7A);
    pub const SALMON: Rgb = Rgb(0xFA, 0x80, 0x72);
    pub const GREEN: Rgb = Rgb(0x00, 0x80, 0x00);
    pub const LIME_GREEN: Rgb = Rgb(0x32, 0xCD, 0x32);
    pub const OLIVE_DRAB: Rgb = Rgb(0x6B, 0x8E, 0x23);
    pub const OLIVE: Rgb = Rgb(0x80, 0x80, 0x00);
    pub const DARK_OLIVE_GREEN: Rgb = Rgb(0x55, 0x6B, 0x2F);
    /// `{R: 0.2, G: 0, B: 0}` and `{R: 0, G: 0.2, B: 0}`: 0.2 × 255 + 0.5 rounds to 51.
    pub const DARK_RED_INDENT: Rgb = Rgb(51, 0, 0);
    pub const DARK_GREEN_INDENT: Rgb = Rgb(0, 51, 0);
}

const FOREGROUND: u64 = 0x1;
const BACKGROUND: u64 = 0x2;
const BOLD: u64 = 0x4;
const ITALIC: u64 = 0x8;
const UNDERLINE: u64 = 0x10;

fn foreground_bits(Rgb(red, green, blue): Rgb) -> u64 {
    FOREGROUND | u64::from(red) << 8 | u64::from(green) << 16 | u64::from(blue) << 24
}

fn background_bits(Rgb(red, green, blue): Rgb) -> u64 {
    BACKGROUND | u64::from(red) << 32 | u64::from(green) << 40 | u64::from(blue) << 48
}

/// One style a text is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StyleOption {
    Foreground(Rgb),
    Bold,
    Italic,
}

/// Whether bunt writes colours: helm-diff's `bunt.SetColorSettings`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bunt {
    pub colours: bool,
}

/// A rune and its settings (`ColoredRune`).
#[derive(Debug, Clone, Copy)]
struct Rune {
    symbol: char,
    settings: u64,
}

static SELECT_GRAPHIC_RENDITION: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"\x1b\[(\d+(?:;\d+)*)m").ok());
static MODE_SETTINGS: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"\x1b\[\?.+[lh]").ok());
static CONDITIONAL_CHECK: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"\x1b\]11;\?.").ok());
static ANY_GRAPHIC_RENDITION: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"\x1b\[[\d;]*m").ok());

impl Bunt {
    /// `bunt.Style(text, options...)`, with `EachLine` when `each_line` (line breaks keep no style).
    pub fn style(self, text: &str, options: &[StyleOption], each_line: bool) -> String {
        let mut runes = parse(text);
        for option in options {
            for rune in runes.iter_mut().filter(|rune| !(each_line && rune.symbol == '\n')) {
                match option {
                    // `Foreground` resets the colour it replaces (no `Blend` in dyff).
                    StyleOption::Foreground(colour) => {
                        rune.settings = (rune.settings & 0xFFFF_FFFF_0000_00FF) | foreground_bits(*colour);
                    }
                    StyleOption::Bold => rune.settings |= BOLD,
                    StyleOption::Italic => rune.settings |= ITALIC,
                }
            }
        }
        self.render(&runes)
    }

    /// `bunt.Sprintf(format, text)` for dyff's formats `*%s*` (bold), `_*%s*_` (bold italic) and
    /// `  LightSteelBlue{(%s)}`: the text annotations of the format styled, the argument put in as it is.
    pub fn annotated(self, before: &str, settings: &[StyleOption], text: &str, after: &str) -> String {
        let mut bits = 0;
        for setting in settings {
            bits |= match setting {
                StyleOption::Foreground(colour) => foreground_bits(*colour),
                StyleOption::Bold => BOLD,
                StyleOption::Italic => ITALIC,
            };
        }
        if !self.colours {
            return format!("{before}{text}{after}");
        }
        // The format's `%s` is one styled stretch: its sequence, the argument, a reset.
        format!("{before}{}{text}{}{after}", render_sequence(bits, &[]), render_sequence(0, &[]))
    }

    /// `String.String()`: a sequence where the settings change, a reset at the end; the symbols only without
    /// colours.
    fn render(self, runes: &[Rune]) -> String {
        let mut out = String::with_capacity(runes.len());
        let mut current = 0;
        for rune in runes {
            if self.colours && current != rune.settings {
                let emphasis_ends =
                    [BOLD, ITALIC, UNDERLINE].iter().any(|mask| current & mask != 0 && rune.settings & mask == 0);
                out.push_str(&render_sequence(rune.settings, if emphasis_ends { &[0] } else { &[] }));
                current = rune.settings;
            }
            out.push(rune.symbol);
        }
        if current != 0 {
            out.push_str(&render_sequence(0, &[]));
        }
        out
    }
}

/// `renderSGR` with true colour: `\x1b[0m` for no settings, else the prepended parameters, bold, italic,
/// underline, `38;2;r;g;b`, `48;2;r;g;b`.
fn render_sequence(settings: u64, prepend: &[u8]) -> String {
    if settings == 0 {
        return "\x1b[0m".to_string();
    }
    let mut parameters: Vec<u64> = prepend.iter().map(|value| u64::from(*value)).collect();
    for (mask, parameter) in [(BOLD, 1), (ITALIC, 3), (UNDERLINE, 4)] {
        if settings & mask != 0 {
            parameters.push(parameter);
        }
    }
    if settings & FOREGROUND != 0 {
        parameters.extend([38, 2, settings >> 8 & 0xFF, settings >> 16 & 0xFF, settings >> 24 & 0xFF]);
    }
    if settings & BACKGROUND != 0 {
        parameters.extend([48, 2, settings >> 32 & 0xFF, settings >> 40 & 0xFF, settings >> 48 & 0xFF]);
    }
    let parameters: Vec<String> = parameters.iter().map(u64::to_string).collect();
    format!("\x1b[{}m", parameters.join(";"))
}

/// `ParseString` without text annotations: the sequences it ignores removed, each select graphic rendition
/// sequence setting the settings of the runes after it (not adding to them).
fn parse(input: &str) -> Vec<Rune> {
    let mut text = input
        .replace("\x1b[m", "\x1b[0m")
        .replace("\x1b[?1h", "")
        .replace("\x1b=", "")
        .replace("\x1b>", "")
        .replace("\x1b[K", "");
    for expression in [&*MODE_SETTINGS, &*CONDITIONAL_CHECK].into_iter().flatten() {
        text = expression.replace_all(&text, "").into_owned();
    }
    let mut runes = Vec::with_capacity(text.len());
    let mut settings = 0;
    let mut pointer = 0;
    let push = |runes: &mut Vec<Rune>, part: &str, settings: u64| {
        runes.extend(part.chars().map(|symbol| Rune { symbol, settings }));
    };
    if let Some(expression) = &*SELECT_GRAPHIC_RENDITION {
        for captures in expression.captures_iter(&text) {
            let (Some(whole), Some(parameters)) = (captures.get(0), captures.get(1)) else { continue };
            push(&mut runes, &text[pointer..whole.start()], settings);
            settings = parse_sequence(parameters.as_str());
            pointer = whole.end();
        }
    }
    push(&mut runes, &text[pointer..], settings);
    runes
}

/// The basic colours bunt reads (`parseSelectGraphicRenditionEscapeSequence`).
const BASIC_COLOURS: [(u8, Rgb); 16] = [
    (0, Rgb(1, 1, 1)),
    (1, Rgb(222, 56, 43)),
    (2, Rgb(57, 181, 74)),
    (3, Rgb(255, 199, 6)),
    (4, Rgb(0, 111, 184)),
    (5, Rgb(118, 38, 113)),
    (6, Rgb(44, 181, 233)),
    (7, Rgb(204, 204, 204)),
    (60, Rgb(128, 128, 128)),
    (61, Rgb(255, 0, 0)),
    (62, Rgb(0, 255, 0)),
    (63, Rgb(255, 255, 0)),
    (64, Rgb(0, 0, 255)),
    (65, Rgb(255, 0, 255)),
    (66, Rgb(0, 255, 255)),
    (67, Rgb(255, 255, 255)),
];

/// `parseSelectGraphicRenditionEscapeSequence`: each parameter taken as Go's `uint8(value)`; bold, italic,
/// underline, the basic and bright colours, `38;2;r;g;b` and `48;2;r;g;b` (bunt panics on a 256-colour or a short
/// 24-bit sequence; those are skipped here).
fn parse_sequence(sequence: &str) -> u64 {
    // `uint8(value)` of Go's `strconv.Atoi`, which clamps what does not fit an int.
    let values: Vec<u8> =
        sequence.split(';').map(|value| value.parse::<i64>().unwrap_or(i64::MAX).to_le_bytes()[0]).collect();
    let mut result = 0;
    let mut index = 0;
    while let Some(value) = values.get(index) {
        match value {
            1 => result |= BOLD,
            3 => result |= ITALIC,
            4 => result |= UNDERLINE,
            30..=37 | 90..=97 => {
                if let Some((_, colour)) = BASIC_COLOURS.iter().find(|(offset, _)| *offset == value - 30) {
                    result |= foreground_bits(*colour);
                }
            }
            40..=47 | 100..=107 => {
                if let Some((_, colour)) = BASIC_COLOURS.iter().find(|(offset, _)| *offset == value - 40) {
                    result |= background_bits(*colour);
                }
            }
            38 | 48 if values.get(index + 1) == Some(&2) => {
                if let (Some(red), Some(green), Some(blue)) =
                    (values.get(index + 2), values.get(index + 3), values.get(index + 4))
                {
                    let colour = Rgb(*red, *green, *blue);
                    result |= if *value == 38 { foreground_bits(colour) } else { background_bits(colour) };
                }
                index += 4;
            }
            _ => {}
        }
        index += 1;
    }
    result
}

/// `plainTextLength`: the characters of a text without its select graphic rendition sequences
/// (`RemoveAllEscapeSequences`).
pub fn plain_length(text: &str) -> usize {
    if !text.contains('\x1b') {
        return text.chars().count();
    }
    match &*ANY_GRAPHIC_RENDITION {
        Some(expression) => expression.replace_all(text, "").chars().count(),
        None => text.chars().count(),
    }
}

#[cfg(test)]
mod tests {
    use super::colours::*;
    use super::*;

    const ON: Bunt = Bunt { colours: true };
    const OFF: Bunt = Bunt { colours: false };

    /// bunt v1.4.3 `convenience_test.go`, "style function" (true colour on).
    #[test]
    fn styles_render_as_bunt_renders_them() {
        const CORNFLOWER_BLUE: Rgb = Rgb(100, 149, 237);
        const YELLOW: Rgb = Rgb(255, 255, 0);
        const ORANGE: Rgb = Rgb(255, 165, 0);
        let foreground = StyleOption::Foreground;
        assert_eq!(ON.style("text", &[StyleOption::Bold], false), "\x1b[1mtext\x1b[0m");
        assert_eq!(ON.style("text", &[StyleOption::Italic], false), "\x1b[3mtext\x1b[0m");
        assert_eq!(ON.style("text", &[foreground(CORNFLOWER_BLUE)], false), "\x1b[38;2;100;149;237mtext\x1b[0m");
        assert_eq!(
            ON.style("text", &[StyleOption::Bold, foreground(CORNFLOWER_BLUE)], false),
            "\x1b[1;38;2;100;149;237mtext\x1b[0m"
        );
        assert_eq!(ON.style("_text_", &[foreground(Rgb(154, 205, 50))], false), "\x1b[38;2;154;205;50m_text_\x1b[0m");
        assert_eq!(ON.style("text\ntext", &[foreground(YELLOW)], false), "\x1b[38;2;255;255;0mtext\ntext\x1b[0m");
        assert_eq!(
            ON.style("text\ntext", &[foreground(YELLOW)], true),
            "\x1b[38;2;255;255;0mtext\x1b[0m\n\x1b[38;2;255;255;0mtext\x1b[0m"
        );
        assert_eq!(ON.style("text\ntext", &[StyleOption::Bold], false), "\x1b[1mtext\ntext\x1b[0m");
        assert_eq!(ON.style("text\ntext", &[StyleOption::Italic], true), "\x1b[3mtext\x1b[0m\n\x1b[3mtext\x1b[0m");
        // "should correctly apply a color to a string that already contains text emphasis" (the text is what
        // `Sprintf("text with *bold* and _italic_.")` gives).
        assert_eq!(
            ON.style("text with \x1b[1mbold\x1b[0m and \x1b[3mitalic\x1b[0m.", &[foreground(ORANGE)], false),
            "\x1b[38;2;255;165;0mtext with \x1b[1;38;2;255;165;0mbold\x1b[0;38;2;255;165;0m and \x1b[3;38;2;255;165;0mitalic\x1b[0;38;2;255;165;0m.\x1b[0m"
        );
        // "should return the correct text length of a string with ANSI sequences", "... based on the rune count".
        assert_eq!(plain_length("\x1b[0;32mINFO \x1b[mNo dependencies found"), "INFO No dependencies found".len());
        assert_eq!(plain_length("fünf"), 4);
        // Without colours the escape sequences already in the text are dropped (`String` with `UseColors` off).
        assert_eq!(OFF.style("\x1b[1mtext\x1b[0m", &[StyleOption::Bold], true), "text");
    }

    /// dyff's `assets/colors/dyff.expected`: `BoldRed` of a changed part (`Bold(Red(text))`), a key as neat writes
    /// it (`Style(colorize(keyColor, "key:"), Bold())`), an emphasis ending mid-text (a `0;` prepended).
    #[test]
    fn nested_styles_merge_into_one_sequence() {
        let red = ON.style("19", &[StyleOption::Foreground(REMOVAL_RED)], true);
        assert_eq!(ON.style(&red, &[StyleOption::Bold], true), "\x1b[1;38;2;185;49;27m19\x1b[0m");
        let key = ON.style("locket:", &[StyleOption::Foreground(FIRE_BRICK)], false);
        assert_eq!(ON.style(&key, &[StyleOption::Bold], false), "\x1b[1;38;2;178;34;34mlocket:\x1b[0m");
        let italic = format!("from {}", ON.style("int", &[StyleOption::Italic], true));
        assert_eq!(
            ON.style(&format!("{italic} to"), &[StyleOption::Foreground(MODIFICATION_YELLOW)], true),
            "\x1b[38;2;199;196;63mfrom \x1b[3;38;2;199;196;63mint\x1b[0;38;2;199;196;63m to\x1b[0m"
        );
    }

    /// The path of `assets/colors/dyff.expected` (`*%s*` bold, `_*%s*_` bold italic) and the plain length of a
    /// styled text.
    #[test]
    fn annotations_and_plain_lengths() {
        assert_eq!(ON.annotated("", &[StyleOption::Bold], "releases", ""), "\x1b[1mreleases\x1b[0m");
        assert_eq!(ON.annotated("", &[StyleOption::Bold, StyleOption::Italic], "capi", ""), "\x1b[1;3mcapi\x1b[0m");
        assert_eq!(
            ON.annotated("  ", &[StyleOption::Foreground(LIGHT_STEEL_BLUE)], "(web)", ""),
            "  \x1b[38;2;176;196;222m(web)\x1b[0m"
        );
        assert_eq!(OFF.annotated("  ", &[StyleOption::Foreground(LIGHT_STEEL_BLUE)], "(web)", ""), "  (web)");
        assert_eq!(parse_sequence("1;38;2;1;2;3"), BOLD | foreground_bits(Rgb(1, 2, 3)));
        assert_eq!(parse_sequence("31"), foreground_bits(Rgb(222, 56, 43)));
    }
}
