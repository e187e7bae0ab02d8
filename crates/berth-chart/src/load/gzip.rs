//! A gzip reader with Go's `compress/gzip` behaviour: multistream (members read one after another), the header
//! checks and error texts Helm's messages carry (`gzip: invalid header`, `gzip: invalid checksum`,
//! `unexpected EOF`). Inflating is flate2's; the framing is here so the errors are Go's.

use std::io::{self, Read};

use flate2::{Crc, Decompress, FlushDecompress, Status};

/// Go's `gzip.ErrHeader` text.
pub(crate) const ERR_HEADER: &str = "gzip: invalid header";
const ERR_CHECKSUM: &str = "gzip: invalid checksum";
const UNEXPECTED_EOF: &str = "unexpected EOF";

/// Why reading failed, keeping apart what Helm tells apart (`errors.Is(err, gzip.ErrHeader)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GzipError {
    /// The input is not gzip (or a later member's header is broken).
    Header,
    /// The CRC-32 or length in a member's trailer does not match.
    Checksum,
    /// Any other failure, with Go's text.
    Other(String),
}

impl std::fmt::Display for GzipError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GzipError::Header => f.write_str(ERR_HEADER),
            GzipError::Checksum => f.write_str(ERR_CHECKSUM),
            GzipError::Other(text) => f.write_str(text),
        }
    }
}

/// Reads the decompressed bytes of a gzip stream.
pub(crate) struct GzipReader<R: Read> {
    input: R,
    buffer: Vec<u8>,
    start: usize,
    end: usize,
    input_done: bool,
    inflate: Decompress,
    crc: Crc,
    /// Bytes consumed from the compressed input in this member (for Go's `corrupt input before offset N`).
    consumed: u64,
    state: State,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Body,
    Done,
}

impl<R: Read> GzipReader<R> {
    /// `gzip.NewReader`: reads and checks the first member's header.
    pub(crate) fn new(input: R) -> Result<GzipReader<R>, GzipError> {
        let mut reader = GzipReader {
            input,
            buffer: vec![0; 64 * 1024],
            start: 0,
            end: 0,
            input_done: false,
            inflate: Decompress::new(false),
            crc: Crc::new(),
            consumed: 0,
            state: State::Body,
        };
        match reader.read_header()? {
            true => Ok(reader),
            // An empty input: Go's NewReader returns io.EOF.
            false => Err(GzipError::Other("EOF".to_string())),
        }
    }

    fn fill(&mut self) -> Result<(), GzipError> {
        if self.start < self.end || self.input_done {
            return Ok(());
        }
        self.start = 0;
        self.end = 0;
        loop {
            match self.input.read(&mut self.buffer) {
                Ok(0) => {
                    self.input_done = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end = n;
                    return Ok(());
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(GzipError::Other(error.to_string())),
            }
        }
    }

    /// One byte of input, `None` at the end.
    fn byte(&mut self) -> Result<Option<u8>, GzipError> {
        self.fill()?;
        if self.start == self.end {
            return Ok(None);
        }
        let b = self.buffer[self.start];
        self.start += 1;
        Ok(Some(b))
    }

    fn need_byte(&mut self) -> Result<u8, GzipError> {
        self.byte()?.ok_or_else(|| GzipError::Other(UNEXPECTED_EOF.to_string()))
    }

    /// `Reader.readHeader`: `Ok(false)` when the input ends cleanly before a header.
    fn read_header(&mut self) -> Result<bool, GzipError> {
        let Some(id1) = self.byte()? else {
            return Ok(false);
        };
        let mut header = [id1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        for slot in header.iter_mut().skip(1) {
            *slot = self.need_byte()?;
        }
        if header[0] != 0x1f || header[1] != 0x8b || header[2] != 8 {
            return Err(GzipError::Header);
        }
        let flags = header[3];
        let mut header_crc = Crc::new();
        header_crc.update(&header);
        if flags & 0x04 != 0 {
            let lo = self.need_byte()?;
            let hi = self.need_byte()?;
            header_crc.update(&[lo, hi]);
            let len = usize::from(lo) | (usize::from(hi) << 8);
            for _ in 0..len {
                let b = self.need_byte()?;
                header_crc.update(&[b]);
            }
        }
        for flag in [0x08u8, 0x10] {
            if flags & flag != 0 {
                // A zero-terminated string (name or comment), Latin-1 in Go; its content is not needed.
                loop {
                    let b = self.need_byte()?;
                    header_crc.update(&[b]);
                    if b == 0 {
                        break;
                    }
                }
            }
        }
        if flags & 0x02 != 0 {
            let lo = self.need_byte()?;
            let hi = self.need_byte()?;
            let want = u16::from(lo) | (u16::from(hi) << 8);
            if header_crc.sum() as u16 != want {
                return Err(GzipError::Header);
            }
        }
        self.inflate.reset(false);
        self.crc.reset();
        self.consumed = 0;
        self.state = State::Body;
        Ok(true)
    }

    fn read_trailer(&mut self) -> Result<(), GzipError> {
        let mut trailer = [0u8; 8];
        for slot in trailer.iter_mut() {
            *slot = self.need_byte()?;
        }
        let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
        let size = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
        if crc != self.crc.sum() || size != self.crc.amount() {
            return Err(GzipError::Checksum);
        }
        Ok(())
    }

    /// Reads decompressed bytes into `out`; `Ok(0)` at the end of the last member.
    pub(crate) fn read_some(&mut self, out: &mut [u8]) -> Result<usize, GzipError> {
        if out.is_empty() {
            return Ok(0);
        }
        loop {
            if self.state == State::Done {
                return Ok(0);
            }
            self.fill()?;
            let input = &self.buffer[self.start..self.end];
            let before_in = self.inflate.total_in();
            let before_out = self.inflate.total_out();
            let flush = if self.input_done { FlushDecompress::Finish } else { FlushDecompress::None };
            let status = self.inflate.decompress(input, out, flush);
            let used = (self.inflate.total_in() - before_in) as usize;
            let produced = (self.inflate.total_out() - before_out) as usize;
            self.start += used;
            self.consumed += used as u64;
            self.crc.update(&out[..produced]);
            match status {
                Ok(Status::StreamEnd) => {
                    self.read_trailer()?;
                    // Multistream: another member may follow.
                    if !self.read_header()? {
                        self.state = State::Done;
                    }
                    if produced > 0 {
                        return Ok(produced);
                    }
                }
                Ok(_) => {
                    if produced > 0 {
                        return Ok(produced);
                    }
                    if used == 0 && self.input_done {
                        return Err(GzipError::Other(UNEXPECTED_EOF.to_string()));
                    }
                }
                Err(_) => {
                    return Err(GzipError::Other(format!("flate: corrupt input before offset {}", self.consumed)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    fn read_all(input: &[u8]) -> Result<Vec<u8>, GzipError> {
        let mut reader = GzipReader::new(input)?;
        let mut out = Vec::new();
        let mut buf = [0u8; 7];
        loop {
            let n = reader.read_some(&mut buf)?;
            if n == 0 {
                return Ok(out);
            }
            out.extend_from_slice(&buf[..n]);
        }
    }

    #[test]
    fn reads_concatenated_members() {
        let mut input = gzip(b"hello ");
        input.extend(gzip(b"world"));
        assert_eq!(read_all(&input).unwrap(), b"hello world");
    }

    #[test]
    fn errors_are_go_texts() {
        assert_eq!(read_all(b"not gzip at all").unwrap_err(), GzipError::Header);
        assert_eq!(read_all(b"").unwrap_err().to_string(), "EOF");
        let data = gzip(b"some data to compress");
        assert_eq!(read_all(&data[..data.len() - 3]).unwrap_err().to_string(), "unexpected EOF");
        let mut corrupt = data.clone();
        let crc_at = corrupt.len() - 8;
        corrupt[crc_at] ^= 0xff;
        assert_eq!(read_all(&corrupt).unwrap_err().to_string(), "gzip: invalid checksum");
        let mut trailing = data;
        trailing.extend_from_slice(b"garbage!!!");
        assert_eq!(read_all(&trailing).unwrap_err(), GzipError::Header);
    }
}
