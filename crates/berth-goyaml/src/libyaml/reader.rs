//! The input reader (readerc.go): BOM detection, UTF-8/UTF-16 decoding and the check for characters YAML forbids.
//! libyaml decodes its input in 512-byte chunks and reports a bad character when the chunk holding it is decoded,
//! which can be before the scanner reaches it; the chunking is kept so the same error wins as in Go.

use super::chars::{at, width};
use super::parser::Parser;
use super::tokens::Encoding;
use super::{ErrorKind, Mark, ParseError};

/// `input_raw_buffer_size`.
const RAW_BUFFER_SIZE: usize = 512;

fn reader_error(problem: &str) -> ParseError {
    ParseError {
        kind: ErrorKind::Reader,
        problem: problem.to_string(),
        problem_mark: Mark::default(),
        context_mark: Mark::default(),
    }
}

impl Parser<'_> {
    /// `yaml_parser_determine_encoding`.
    fn determine_encoding(&mut self) -> Result<(), ParseError> {
        while !self.eof && self.input_pos - self.raw_pos < 3 {
            self.update_raw_buffer();
        }
        let avail = self.input_pos - self.raw_pos;
        let c0 = at(self.input, self.raw_pos);
        let c1 = at(self.input, self.raw_pos + 1);
        let c2 = at(self.input, self.raw_pos + 2);
        if avail >= 2 && c0 == 0xFF && c1 == 0xFE {
            self.encoding = Encoding::Utf16Le;
            self.raw_pos += 2;
            self.offset += 2;
        } else if avail >= 2 && c0 == 0xFE && c1 == 0xFF {
            self.encoding = Encoding::Utf16Be;
            self.raw_pos += 2;
            self.offset += 2;
        } else if avail >= 3 && c0 == 0xEF && c1 == 0xBB && c2 == 0xBF {
            self.encoding = Encoding::Utf8;
            self.raw_pos += 3;
            self.offset += 3;
        } else {
            self.encoding = Encoding::Utf8;
        }
        Ok(())
    }

    /// `yaml_parser_update_raw_buffer` with the string read handler: the raw buffer is the input window
    /// `[raw_start, input_pos)`.
    fn update_raw_buffer(&mut self) {
        if self.raw_pos == self.raw_start && self.input_pos - self.raw_start == RAW_BUFFER_SIZE {
            return;
        }
        if self.eof {
            return;
        }
        self.raw_start = self.raw_pos;
        let room = RAW_BUFFER_SIZE - (self.input_pos - self.raw_start);
        if self.input_pos == self.input.len() {
            self.eof = true;
        } else {
            self.input_pos += room.min(self.input.len() - self.input_pos);
        }
    }

    /// `yaml_parser_update_buffer`: make at least `length` characters available, decoding raw input.
    pub(super) fn update_buffer(&mut self, length: usize) -> Result<(), ParseError> {
        if self.unread >= length {
            return Ok(());
        }
        if self.encoding == Encoding::Any {
            self.determine_encoding()?;
        }
        // Move the unread characters to the beginning of the buffer.
        let consumed = self.buffer_pos.min(self.buffer.len());
        self.buffer.drain(..consumed);
        self.buffer_pos = 0;

        let mut first = true;
        while self.unread < length {
            if !first || self.raw_pos == self.input_pos {
                self.update_raw_buffer();
            }
            first = false;

            while self.raw_pos != self.input_pos {
                // Most of a manifest is printable ASCII: a run of it is copied as it is.
                if self.encoding == Encoding::Utf8 {
                    let window = self.input.get(self.raw_pos..self.input_pos).unwrap_or_default();
                    let run =
                        window.iter().take_while(|octet| matches!(octet, 0x09 | 0x0A | 0x0D | 0x20..=0x7E)).count();
                    if run > 0 {
                        self.buffer.extend_from_slice(&window[..run]);
                        self.raw_pos += run;
                        self.offset += run;
                        self.unread += run;
                        continue;
                    }
                }
                let raw_unread = self.input_pos - self.raw_pos;
                let (value, char_width) = match self.encoding {
                    Encoding::Utf16Le | Encoding::Utf16Be => match self.decode_utf16(raw_unread)? {
                        Some(decoded) => decoded,
                        None => break,
                    },
                    _ => match self.decode_utf8(raw_unread)? {
                        Some(decoded) => decoded,
                        None => break,
                    },
                };
                let allowed = matches!(value, 0x09 | 0x0A | 0x0D | 0x20..=0x7E | 0x85 | 0xA0..=0xD7FF
                    | 0xE000..=0xFFFD | 0x10000..=0x10FFFF);
                if !allowed {
                    return Err(reader_error("control characters are not allowed"));
                }
                self.raw_pos += char_width;
                self.offset += char_width;
                push_utf8(&mut self.buffer, value);
                self.unread += 1;
            }

            if self.eof {
                self.buffer.push(0);
                self.unread += 1;
                break;
            }
        }
        // Guarantee the requested length at EOF, as the Go port does.
        while self.buffer.len() < length {
            self.buffer.push(0);
        }
        Ok(())
    }

    /// Decodes one UTF-8 character at `raw_pos`; `None` when it is incomplete and more input may follow.
    fn decode_utf8(&self, raw_unread: usize) -> Result<Option<(u32, usize)>, ParseError> {
        let octet = at(self.input, self.raw_pos);
        let char_width = width(octet);
        if char_width == 0 {
            return Err(reader_error("invalid leading UTF-8 octet"));
        }
        if char_width > raw_unread {
            if self.eof {
                return Err(reader_error("incomplete UTF-8 octet sequence"));
            }
            return Ok(None);
        }
        let mut value = u32::from(match char_width {
            1 => octet & 0x7F,
            2 => octet & 0x1F,
            3 => octet & 0x0F,
            _ => octet & 0x07,
        });
        for k in 1..char_width {
            let trailing = at(self.input, self.raw_pos + k);
            if trailing & 0xC0 != 0x80 {
                return Err(reader_error("invalid trailing UTF-8 octet"));
            }
            value = (value << 6) + u32::from(trailing & 0x3F);
        }
        let length_ok = match char_width {
            1 => true,
            2 => value >= 0x80,
            3 => value >= 0x800,
            _ => value >= 0x10000,
        };
        if !length_ok {
            return Err(reader_error("invalid length of a UTF-8 sequence"));
        }
        if (0xD800..=0xDFFF).contains(&value) || value > 0x10FFFF {
            return Err(reader_error("invalid Unicode character"));
        }
        Ok(Some((value, char_width)))
    }

    /// Decodes one UTF-16 character (or surrogate pair) at `raw_pos`; `None` when incomplete.
    fn decode_utf16(&self, raw_unread: usize) -> Result<Option<(u32, usize)>, ParseError> {
        let (low, high) = if self.encoding == Encoding::Utf16Le { (0, 1) } else { (1, 0) };
        if raw_unread < 2 {
            if self.eof {
                return Err(reader_error("incomplete UTF-16 character"));
            }
            return Ok(None);
        }
        let unit = |offset: usize| {
            u32::from(at(self.input, self.raw_pos + offset + low))
                + (u32::from(at(self.input, self.raw_pos + offset + high)) << 8)
        };
        let value = unit(0);
        if value & 0xFC00 == 0xDC00 {
            return Err(reader_error("unexpected low surrogate area"));
        }
        if value & 0xFC00 == 0xD800 {
            if raw_unread < 4 {
                if self.eof {
                    return Err(reader_error("incomplete UTF-16 surrogate pair"));
                }
                return Ok(None);
            }
            let value2 = unit(2);
            if value2 & 0xFC00 != 0xDC00 {
                return Err(reader_error("expected low surrogate area"));
            }
            return Ok(Some((0x10000 + ((value & 0x3FF) << 10) + (value2 & 0x3FF), 4)));
        }
        Ok(Some((value, 2)))
    }
}

/// Appends `value` as UTF-8 (the reader's final step; `value` is a valid scalar value here).
fn push_utf8(buffer: &mut Vec<u8>, value: u32) {
    if value <= 0x7F {
        buffer.push(value as u8);
    } else if value <= 0x7FF {
        buffer.push((0xC0 + (value >> 6)) as u8);
        buffer.push((0x80 + (value & 0x3F)) as u8);
    } else if value <= 0xFFFF {
        buffer.push((0xE0 + (value >> 12)) as u8);
        buffer.push((0x80 + ((value >> 6) & 0x3F)) as u8);
        buffer.push((0x80 + (value & 0x3F)) as u8);
    } else {
        buffer.push((0xF0 + (value >> 18)) as u8);
        buffer.push((0x80 + ((value >> 12) & 0x3F)) as u8);
        buffer.push((0x80 + ((value >> 6) & 0x3F)) as u8);
        buffer.push((0x80 + (value & 0x3F)) as u8);
    }
}
