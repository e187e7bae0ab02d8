//! A tar reader as Go's `archive/tar` reads (reader.go, format.go, strconv.go): USTAR, PAX (`x` records for the
//! next entry, `g` global headers handed out as entries) and GNU (`L`/`K` long names), checksums, base-256 numbers,
//! header-only entry types whose data is never read. Helm's archive checks sit on top of it (`archive.rs`).
//!
//! Every read is bounded by the caller's byte budget, so a decompression bomb ends with an error instead of
//! exhausting memory or time.

use super::gzip::{GzipError, GzipReader};
use std::io::Read;

/// Go's `tar.ErrHeader` text.
pub(crate) const ERR_HEADER: &str = "archive/tar: invalid tar header";
const ERR_FIELD_TOO_LONG: &str = "archive/tar: header field too long";
const UNEXPECTED_EOF: &str = "unexpected EOF";
/// Go's `maxSpecialFileSize`: PAX and GNU long-name data larger than this is refused.
const MAX_SPECIAL_FILE_SIZE: i64 = 1 << 20;
const BLOCK: usize = 512;

/// Type flags that matter here.
pub(crate) const TYPE_DIR: u8 = b'5';
pub(crate) const TYPE_LINK: u8 = b'1';
pub(crate) const TYPE_SYMLINK: u8 = b'2';
pub(crate) const TYPE_X_HEADER: u8 = b'x';
pub(crate) const TYPE_X_GLOBAL_HEADER: u8 = b'g';

/// A tar entry header as Go's `tar.Header` gives it to Helm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Header {
    pub name: String,
    pub typeflag: u8,
    pub size: i64,
    pub mode: i64,
    /// The `mtime` field, or the PAX record's more precise one.
    pub mod_time: crate::chart::ModTime,
    /// What a hard or symbolic link points at (`linkname`, PAX `linkpath`, GNU `K`).
    pub link_name: String,
}

impl Header {
    /// `hd.FileInfo().IsDir()`: the directory type, or mode bits that say directory whatever the type.
    pub(crate) fn is_dir(&self) -> bool {
        const C_ISDIR: i64 = 0o40000;
        self.typeflag == TYPE_DIR || (self.mode & !0o7777) == C_ISDIR
    }
}

/// Why the tar stream could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TarError {
    Gzip(GzipError),
    /// Go's text (`archive/tar: invalid tar header`, `unexpected EOF`).
    Format(String),
    /// The caller's byte budget ran out.
    Budget,
}

impl From<GzipError> for TarError {
    fn from(error: GzipError) -> Self {
        TarError::Gzip(error)
    }
}

/// Reads entries from a gzip-compressed tar stream.
pub(crate) struct TarReader<R: Read> {
    input: GzipReader<R>,
    /// Bytes of the current entry not yet read, and the padding after them.
    remaining: i64,
    padding: i64,
    /// How many more decompressed bytes may be read in total.
    budget: u64,
}

impl<R: Read> TarReader<R> {
    pub(crate) fn new(input: GzipReader<R>, budget: u64) -> TarReader<R> {
        TarReader { input, remaining: 0, padding: 0, budget }
    }

    /// Reads up to `out.len()` bytes, fewer only at the end of the stream.
    fn read_full(&mut self, out: &mut [u8]) -> Result<usize, TarError> {
        let mut filled = 0;
        while filled < out.len() {
            if self.budget == 0 {
                return Err(TarError::Budget);
            }
            let want = (out.len() - filled).min(usize::try_from(self.budget).unwrap_or(usize::MAX));
            let n = self.input.read_some(&mut out[filled..filled + want])?;
            if n == 0 {
                break;
            }
            self.budget -= n as u64;
            filled += n;
        }
        Ok(filled)
    }

    fn read_exact(&mut self, out: &mut [u8]) -> Result<(), TarError> {
        if self.read_full(out)? < out.len() {
            return Err(TarError::Format(UNEXPECTED_EOF.to_string()));
        }
        Ok(())
    }

    fn skip(&mut self, mut count: i64) -> Result<(), TarError> {
        let mut scratch = [0u8; 4096];
        while count > 0 {
            let take = usize::try_from(count).unwrap_or(usize::MAX).min(scratch.len());
            self.read_exact(&mut scratch[..take])?;
            count -= take as i64;
        }
        Ok(())
    }

    /// `Reader.Next`: the next entry's header, `None` at the end of the archive.
    pub(crate) fn next(&mut self) -> Result<Option<Header>, TarError> {
        // Skip what is left of the previous entry.
        let rest = self.remaining + self.padding;
        self.remaining = 0;
        self.padding = 0;
        self.skip(rest)?;

        let mut pax: Vec<(String, String)> = Vec::new();
        let mut gnu_long_name: Option<String> = None;
        let mut gnu_long_link_name: Option<String> = None;
        loop {
            let Some(mut header) = self.read_header()? else {
                return Ok(None);
            };
            let data_size = if is_header_only(header.typeflag) { 0 } else { header.size };
            self.remaining = data_size;
            self.padding = block_padding(data_size);
            match header.typeflag {
                TYPE_X_HEADER | TYPE_X_GLOBAL_HEADER => {
                    let data = self.read_special(header.size)?;
                    let records = parse_pax(&data)?;
                    if header.typeflag == TYPE_X_GLOBAL_HEADER {
                        merge_pax(&mut header, &records)?;
                        return Ok(Some(header));
                    }
                    pax = records;
                    continue;
                }
                b'L' => {
                    let data = self.read_special(header.size)?;
                    gnu_long_name = Some(parse_string(&data));
                    continue;
                }
                b'K' => {
                    let data = self.read_special(header.size)?;
                    gnu_long_link_name = Some(parse_string(&data));
                    continue;
                }
                _ => {}
            }
            merge_pax(&mut header, &pax)?;
            if let Some(name) = gnu_long_name.take() {
                header.name = name;
            }
            if let Some(link_name) = gnu_long_link_name.take() {
                header.link_name = link_name;
            }
            // TypeRegA: a directory when the name ends with a slash, else a regular file.
            if header.typeflag == 0 {
                header.typeflag = if header.name.ends_with('/') { TYPE_DIR } else { b'0' };
            }
            let data_size = if is_header_only(header.typeflag) { 0 } else { header.size };
            self.remaining = data_size;
            self.padding = block_padding(data_size);
            return Ok(Some(header));
        }
    }

    /// The data of a PAX or GNU special entry, bounded as Go bounds it.
    fn read_special(&mut self, size: i64) -> Result<Vec<u8>, TarError> {
        if size > MAX_SPECIAL_FILE_SIZE {
            return Err(TarError::Format(ERR_FIELD_TOO_LONG.to_string()));
        }
        let mut data = vec![0u8; usize::try_from(size).unwrap_or(0)];
        self.read_exact(&mut data)?;
        self.remaining = 0;
        let padding = self.padding;
        self.padding = 0;
        self.skip(padding)?;
        Ok(data)
    }

    /// `readHeader`: one header block; two zero blocks (or a clean end) end the archive.
    fn read_header(&mut self) -> Result<Option<Header>, TarError> {
        let mut block = [0u8; BLOCK];
        let n = self.read_full(&mut block)?;
        if n == 0 {
            return Ok(None);
        }
        if n < BLOCK {
            return Err(TarError::Format(UNEXPECTED_EOF.to_string()));
        }
        if block.iter().all(|b| *b == 0) {
            let n = self.read_full(&mut block)?;
            if n == 0 {
                return Ok(None);
            }
            if n < BLOCK {
                return Err(TarError::Format(UNEXPECTED_EOF.to_string()));
            }
            if block.iter().all(|b| *b == 0) {
                return Ok(None);
            }
            return Err(TarError::Format(ERR_HEADER.to_string()));
        }
        parse_header(&block).map(Some)
    }

    /// Reads the current entry's data into `out`, at most `limit` bytes (Helm's `io.LimitReader`).
    pub(crate) fn read_data(&mut self, limit: i64, out: &mut Vec<u8>) -> Result<i64, TarError> {
        let take = self.remaining.min(limit).max(0);
        let start = out.len();
        out.resize(start + usize::try_from(take).unwrap_or(0), 0);
        self.read_exact(&mut out[start..])?;
        self.remaining -= take;
        Ok(take)
    }
}

/// Go's `isHeaderOnlyType`: links, devices, directories and FIFOs carry no data.
fn is_header_only(typeflag: u8) -> bool {
    matches!(typeflag, b'1' | b'2' | b'3' | b'4' | b'5' | b'6')
}

fn block_padding(size: i64) -> i64 {
    -size & (BLOCK as i64 - 1)
}

/// `parseString`: up to the first NUL.
fn parse_string(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// `parseOctal` (spaces and NULs trimmed).
fn parse_octal(bytes: &[u8]) -> Result<i64, TarError> {
    let text = parse_string(bytes);
    let trimmed = text.trim_matches(|c| c == ' ' || c == '\0');
    if trimmed.is_empty() {
        return Ok(0);
    }
    i64::from_str_radix(trimmed, 8).map_err(|_| TarError::Format(ERR_HEADER.to_string()))
}

/// `parseNumeric`: base-256 when the top bit is set, else octal.
fn parse_numeric(bytes: &[u8]) -> Result<i64, TarError> {
    let Some(&first) = bytes.first() else {
        return Ok(0);
    };
    if first & 0x80 == 0 {
        return parse_octal(bytes);
    }
    let inverted = if first & 0x40 != 0 { 0xffu8 } else { 0 };
    let mut value: u64 = 0;
    for (i, byte) in bytes.iter().enumerate() {
        let mut b = byte ^ inverted;
        if i == 0 {
            b &= 0x7f;
        }
        if value >> 56 > 0 {
            return Err(TarError::Format(ERR_HEADER.to_string()));
        }
        value = (value << 8) | u64::from(b);
    }
    if value >> 63 > 0 {
        return Err(TarError::Format(ERR_HEADER.to_string()));
    }
    let value = value as i64;
    Ok(if inverted == 0xff { !value } else { value })
}

/// Checks the block's checksum (signed or unsigned sum, as Go accepts either) and decodes its fields.
fn parse_header(block: &[u8; BLOCK]) -> Result<Header, TarError> {
    let stored = parse_octal(&block[148..156])?;
    let mut unsigned: i64 = 0;
    let mut signed: i64 = 0;
    for (i, b) in block.iter().enumerate() {
        let b = if (148..156).contains(&i) { b' ' } else { *b };
        unsigned += i64::from(b);
        signed += i64::from(b as i8);
    }
    if stored != unsigned && stored != signed {
        return Err(TarError::Format(ERR_HEADER.to_string()));
    }
    let magic = &block[257..263];
    let version = &block[263..265];
    let is_ustar = magic == b"ustar\0";
    let is_gnu = magic == b"ustar " && version == b" \0";
    let mut name = parse_string(&block[0..100]);
    let mode = parse_numeric(&block[100..108])?;
    let size = parse_numeric(&block[124..136])?;
    let mtime = parse_numeric(&block[136..148])?;
    let typeflag = block[156];
    let link_name = parse_string(&block[157..257]);
    if is_ustar && !is_gnu {
        let prefix = parse_string(&block[345..500]);
        if !prefix.is_empty() {
            name = format!("{prefix}/{name}");
        }
    }
    if size < 0 {
        return Err(TarError::Format(ERR_HEADER.to_string()));
    }
    Ok(Header { name, typeflag, size, mode, mod_time: crate::chart::ModTime { seconds: mtime, nanos: 0 }, link_name })
}

/// `parsePAX`: `"%d %s=%s\n"` records.
fn parse_pax(data: &[u8]) -> Result<Vec<(String, String)>, TarError> {
    let bad = || TarError::Format(ERR_HEADER.to_string());
    let mut records = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let space = rest.iter().position(|b| *b == b' ').ok_or_else(bad)?;
        let length: usize = std::str::from_utf8(&rest[..space]).ok().and_then(|s| s.parse().ok()).ok_or_else(bad)?;
        if length <= space + 1 || length > rest.len() {
            return Err(bad());
        }
        let record = &rest[space + 1..length];
        rest = &rest[length..];
        let record = record.strip_suffix(b"\n").ok_or_else(bad)?;
        let equals = record.iter().position(|b| *b == b'=').ok_or_else(bad)?;
        let key = String::from_utf8_lossy(&record[..equals]).into_owned();
        let value = String::from_utf8_lossy(&record[equals + 1..]).into_owned();
        if key.is_empty() {
            return Err(bad());
        }
        records.push((key, value));
    }
    Ok(records)
}

/// `mergePAX`: the records that change what Helm reads (path and size).
fn merge_pax(header: &mut Header, records: &[(String, String)]) -> Result<(), TarError> {
    for (key, value) in records {
        match key.as_str() {
            "path" => header.name = value.clone(),
            "linkpath" => header.link_name = value.clone(),
            "mtime" => header.mod_time = parse_pax_time(value)?,
            "size" => {
                header.size = value.parse::<i64>().map_err(|_| TarError::Format(ERR_HEADER.to_string()))?;
                if header.size < 0 {
                    return Err(TarError::Format(ERR_HEADER.to_string()));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// `parsePAXTime`: seconds with an optional fraction (nanoseconds, extra digits dropped).
fn parse_pax_time(text: &str) -> Result<crate::chart::ModTime, TarError> {
    let bad = || TarError::Format(ERR_HEADER.to_string());
    let (seconds, fraction) = text.split_once('.').unwrap_or((text, ""));
    let seconds: i64 = seconds.parse().map_err(|_| bad())?;
    if !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let digits: String = fraction.chars().chain(std::iter::repeat('0')).take(9).collect();
    let mut nanos: u32 = digits.parse().map_err(|_| bad())?;
    let mut seconds = seconds;
    // A negative time with a fraction counts down from the whole second, as Go's does.
    if text.starts_with('-') && nanos != 0 {
        seconds -= 1;
        nanos = 1_000_000_000 - nanos;
    }
    Ok(crate::chart::ModTime { seconds, nanos })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base256_numbers() {
        let mut field = [0u8; 12];
        field[0] = 0x80;
        field[11] = 0x05;
        assert_eq!(parse_numeric(&field).unwrap(), 5);
        assert_eq!(parse_numeric(b"0000644 \0").unwrap(), 0o644);
    }

    #[test]
    fn pax_times() {
        let time = |text: &str| parse_pax_time(text).map(|t| (t.seconds, t.nanos));
        assert_eq!(time("1700000000.5"), Ok((1700000000, 500_000_000)));
        assert_eq!(time("12"), Ok((12, 0)));
        assert_eq!(time("-1.25"), Ok((-2, 750_000_000)));
        assert!(time("x.1").is_err());
    }

    #[test]
    fn pax_records() {
        let records = parse_pax(b"18 path=a/long/nm\n").unwrap();
        assert_eq!(records, [("path".to_string(), "a/long/nm".to_string())]);
        assert!(parse_pax(b"5 x\n").is_err());
    }
}
